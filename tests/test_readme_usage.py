"""The README and the docs show what the tools really do.

Every fenced command of the README is run (:func:`test_every_readme_command_runs_as_shown`):
the ``console`` blocks in order, in a copy of the checkout's ``examples/`` and
configuration files (so that ``--fix`` rewrites the copy), their output compared
with what is shown (exactly, or in order where ``...`` stands for lines left out);
the ``bash`` blocks' commands run too, but for the installs and the test command,
which must be what ``.ci/run`` runs.  The "Migrating a 0.3 codebase" walk-through of
docs/migration.md is run as written, the hand edits given as a diff applied to the
file.  The JSON example and the annotation format of docs/integrations.md are
checked against real output, and the pre-commit section against
``.pre-commit-hooks.yaml``.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MIGRATION = ROOT / "docs" / "migration.md"
INTEGRATIONS = ROOT / "docs" / "integrations.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
EXAMPLE = ROOT / "examples" / "legacy_train.py"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def section(title, page=README):
    text = page.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def torch04(args, cwd):
    proc = subprocess.run([sys.executable, "-m", "flake8_torch04", *args], cwd=cwd,
                          capture_output=True, text=True, encoding="utf-8", timeout=120)
    return proc.stdout + proc.stderr


def assert_shown_in(shown, actual, command):
    """Every line shown (but ``...``) is in the actual output, in the same order."""
    actual_lines = iter(line.rstrip() for line in actual.splitlines())
    for line in shown:
        if line.strip() == "...":
            continue
        assert any(line.rstrip() == got for got in actual_lines), (
            f"README shows a line `$ {command}` does not print, or out of order:\n{line}\n"
            f"--- actual output ---\n{actual}"
        )


def console_commands(block):
    """``(command, lines shown under it)`` of each ``$ `` line of a console block."""
    commands = []
    for line in block.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            assert commands, f"output before any command: {line}"
            commands[-1][1].append(line)
    return commands


def run_console(block, cwd):
    """Run the ``$ torch04`` commands of a console block, comparing their output."""
    for command, shown in console_commands(block):
        args = shlex.split(command)
        assert args[0] == "torch04", f"the walk-through runs only torch04: {command}"
        assert_shown_in(shown, torch04(args[1:], cwd), command)


def apply_patch(text, patch):
    """``text`` with a one-file unified diff applied; every context line must match."""
    old = text.splitlines(keepends=True)
    new, pos = [], 0
    for line in patch.splitlines():
        hunk = HUNK.match(line)
        if hunk:
            start = int(hunk.group(1)) - 1
            assert start >= pos, "hunks out of order"
            new.extend(old[pos:start])
            pos = start
        elif line.startswith(("--- ", "+++ ")):
            continue
        elif line.startswith("+"):
            new.append(line[1:] + "\n")
        else:  # context (" " or an empty line) or removal ("-")
            assert old[pos].rstrip("\n") == line[1:], (pos + 1, old[pos], line)
            if not line.startswith("-"):
                new.append(old[pos])
            pos += 1
    return "".join(new + old[pos:])


def copy_examples(tmp_path):
    """A copy of the checkout's examples/ (every file) and configuration files."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    for name in ("setup.cfg", "pyproject.toml", "tox.ini", ".flake8"):
        if (ROOT / name).is_file():
            shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def walk_through(tmp_path):
    """Run the migration section on a copy of the examples; return the script."""
    copy_examples(tmp_path)
    script = tmp_path / "examples" / "legacy_train.py"
    blocks = FENCE.findall(section("Migrating a 0.3 codebase", MIGRATION))
    kinds = [kind for kind, _ in blocks]
    assert set(kinds) == {"console", "diff"} and kinds.count("console") >= 4, kinds
    for kind, body in blocks:
        if kind == "console":
            run_console(body, tmp_path)
        else:
            # the hand edits start from what --fix --unsafe-fixes made
            fixed = (ROOT / "examples" / "legacy_train_fixed.py").read_text(encoding="utf-8")
            assert script.read_text(encoding="utf-8") == fixed
            script.write_text(apply_patch(fixed, body), encoding="utf-8")
    return script


def test_migration_walkthrough_runs_as_written(tmp_path):
    walk_through(tmp_path)
    assert "Found 0 findings" in torch04(["check", "examples/legacy_train.py"], tmp_path)


def torch_python():
    """An interpreter with torch: ``$TORCH04_TORCH_PYTHON``, else this one."""
    python = os.environ.get("TORCH04_TORCH_PYTHON", sys.executable)
    proc = subprocess.run([python, "-c", "import torch"], capture_output=True)
    if proc.returncode:
        pytest.skip(f"torch cannot be imported by {python} (set TORCH04_TORCH_PYTHON)")
    return python


def test_migrated_example_runs_on_torch_and_the_original_does_not(tmp_path):
    python = torch_python()
    # any warning attributed to the script's own lines is an error (torch's
    # "volatile was removed", deprecated overloads); torch's import is not checked
    strict = ["-W", "error::Warning:__main__"]
    before = subprocess.run([python, *strict, str(EXAMPLE)], capture_output=True, text=True,
                            timeout=300)
    assert before.returncode != 0
    assert "KeyError: 'module name can\\'t contain \".\"" in before.stderr
    after = subprocess.run([python, *strict, str(walk_through(tmp_path))], capture_output=True,
                           text=True, timeout=300)
    assert after.returncode == 0, after.stderr
    assert "mean loss" in after.stdout


def test_json_example_is_real_output():
    blocks = [body for kind, body in FENCE.findall(section("CI", INTEGRATIONS))
              if kind == "json"]
    assert len(blocks) == 1
    shown = json.loads(blocks[0])
    proc = subprocess.run(
        [sys.executable, "-m", "flake8_torch04", "check", "--output-format", "json",
         "examples/legacy_train.py"],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=120,
    )
    records = json.loads(proc.stdout)
    assert shown and all(record in records for record in shown)
    # the key table documents every key the command emits
    documented = set(re.findall(r"^\| `([\w.]+)`(?:, `([\w.]+)`)? \|",
                                section("CI", INTEGRATIONS), re.M))
    keys = {k for pair in documented for k in pair if k}
    emitted = {key for record in records for key in record}
    emitted |= {f"fix.{key}" for record in records if record["fix"] for key in record["fix"]}
    assert keys == emitted


def test_github_annotation_format_is_real_output():
    text = section("CI", INTEGRATIONS)
    assert "run: torch04 check --output-format github ." in text
    proc = subprocess.run(
        [sys.executable, "-m", "flake8_torch04", "check", "--output-format", "github",
         "examples/legacy_train.py"],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=120,
    )
    assert proc.returncode == 1
    *annotations, summary = proc.stdout.splitlines()
    shape = re.compile(r"::warning file=examples/legacy_train\.py,line=\d+,col=\d+"
                       r"(,endLine=\d+,endColumn=\d+)?,title=(TV\d{3})::\2 .+\Z")
    assert annotations and all(shape.match(line) for line in annotations), annotations
    assert summary.startswith("Found ")


def test_precommit_section_names_the_hooks():
    manifest = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    hooks = dict(re.findall(r"^- id: (\S+)\n(?:  .*\n)*?  entry: (.+)$", manifest, re.M))
    assert hooks == {"torch04": "torch04 check --force-exclude",
                     "torch04-fix": "torch04 check --force-exclude --fix"}
    text = section("pre-commit")
    for hook_id, entry in hooks.items():
        assert f"`{hook_id}` runs `{entry}`" in text
        assert f"id: {hook_id}" in text


def test_step_by_step_migration_runs_as_written(tmp_path):
    copy_examples(tmp_path)  # (all of examples/, as on a checkout)
    blocks = [body for kind, body in FENCE.findall(section("Migrating a large codebase step "
                                                           "by step", MIGRATION))
              if kind == "console"]
    assert len(blocks) == 4
    commands = " ".join(blocks)
    for flag in ("--statistics", "--add-noqa", "--remove-noqa", "--show-fixes"):
        assert flag in commands
    for body in blocks:
        run_console(body, tmp_path)
    assert "noqa" not in (tmp_path / "examples" / "legacy_train.py").read_text()


def test_every_option_and_format_is_documented():
    from flake8_torch04 import cli
    from flake8_torch04.cli import output as cli_output

    text = section("Command line", CONFIGURATION)
    check = next(action for action in cli.build_parser()._subparsers._group_actions
                 if action.dest == "command").choices["check"]
    for action in check._actions:
        for flag in action.option_strings:
            if flag in ("-h", "--help"):
                continue
            assert f"`{flag}" in text or f" {flag}`" in text or f"`{flag}`" in text, flag
    for fmt in cli_output.FORMATS:
        assert f"| `{fmt}` |" in text, fmt


def test_configuration_examples_are_accepted(tmp_path):
    blocks = FENCE.findall(section("Configuration"))
    (ini,) = [body for kind, body in blocks if kind == "ini"]
    (toml,) = [body for kind, body in blocks if kind == "toml"]
    shutil.copy(EXAMPLE, tmp_path / "legacy_train.py")
    (tmp_path / "setup.cfg").write_text(ini, encoding="utf-8")
    out = torch04(["check", "--statistics", "."], tmp_path)
    assert "Found 20 findings" in out and "TV002" not in out, out  # extend-ignore = TV002
    # --select on the command line replaces select, not the file's extend-ignore: in
    # flake8 and in torch04 alike
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "TV", "."],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    # (an explicit ``TV`` also selects the codes off by default: TV157 here)
    assert proc.returncode == 1 and proc.stdout.count(": TV") == 21, proc.stderr
    assert "Found 21 findings" in torch04(["check", "--select", "TV", "."], tmp_path)
    (tmp_path / "pyproject.toml").write_text(toml, encoding="utf-8")
    out = torch04(["check", "--statistics", "."], tmp_path)
    # TV006 ignored; TV004 ignored outside src/ by the negated per-file-ignores pattern
    assert "Found 12 findings" in out and "TV004" not in out and "TV006" not in out, out
    out = torch04(["check", "--show-settings", "legacy_train.py"], tmp_path)
    assert "target-version = '0.3'  # pyproject.toml [tool.torch04] target-version" in out
    assert "unfixable = ['TV005']" in out


# ---------------------------------------------------------------------------
# every fenced command of the README


def bin_dir(tmp_path):
    """``torch04``, ``flake8`` and ``pylint`` on PATH, running this checkout's code."""
    directory = tmp_path / "bin"
    directory.mkdir()
    for name, module in (("torch04", "flake8_torch04"), ("flake8", "flake8"),
                         ("pylint", "pylint")):
        script = directory / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {module} "$@"\n')
        script.chmod(0o755)
    env = dict(os.environ, PATH=f"{directory}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("TORCH04_DOCS_URL", None)
    return env


def shell(command, cwd, env):
    proc = subprocess.run(["sh", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


def compare(shown, actual, command):
    if any(line.strip() == "..." for line in shown):
        assert_shown_in(shown, actual, command)
    else:
        assert [line.rstrip() for line in shown] == \
            [line.rstrip() for line in actual.splitlines()], (command, actual)


#: the bash commands that are not run here: the installs (the checkout under test is
#: installed already) and the test command, which .ci/run runs on every Python
NOT_RUN = ("pip install . ", "pip install -e '.[test]' ",
           "python -m pytest -p no:cacheprovider -n auto --dist worksteal")


def test_every_readme_command_runs_as_shown(tmp_path):
    copy_examples(tmp_path)
    env = bin_dir(tmp_path)
    blocks = FENCE.findall(README.read_text(encoding="utf-8"))
    ran = 0
    for kind, body in blocks:
        if kind == "console":
            for command, shown in console_commands(body):
                status, actual = shell(command, tmp_path, env)
                assert status in (0, 1), (command, actual)
                compare(shown, actual, command)
                ran += 1
        elif kind == "bash":
            for line in body.splitlines():
                line = line.split("#")[0].strip()
                for command in filter(None, (c.strip() for c in line.split("&&"))):
                    if (command + " ").startswith(NOT_RUN) or command in NOT_RUN:
                        continue
                    status, actual = shell(command, tmp_path, env)
                    # (pylint's status is a bit mask: 1 fatal, 32 usage error; the
                    # others say which kinds of messages it gave: import-error for
                    # torch where torch is not installed, say)
                    assert status & (1 | 32) == 0 if command.startswith("pylint") \
                        else status in (0, 1), (command, actual)
                    assert "Traceback" not in actual, actual
                    ran += 1
    assert ran >= 8


def test_readme_commands_that_are_not_run_here_are_what_ci_runs():
    text = README.read_text(encoding="utf-8")
    block = text.split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert commands[1] == ("pip install -e '.[test]' && python -m pytest -p no:cacheprovider "
                           "-n auto --dist worksteal")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip\" install -q -e '.[test]' && \"$venv/bin/python\" -m pytest -p " \
           "no:cacheprovider -n auto --dist worksteal\n" in ci
    assert commands[0] == "pip install . && flake8 --select=TV examples/"
    # the CI snippet's torch04 command is a valid command line
    from flake8_torch04.cli import build_parser

    ci_block = [body for kind, body in FENCE.findall(section("CI")) if kind == "yaml"][0]
    for line in ci_block.splitlines():
        if "run: torch04 " in line:
            build_parser().parse_args(shlex.split(line.split("run: torch04 ", 1)[1]))


def test_readme_is_short_and_links_each_rule_page():
    from flake8_torch04.analysis.registry import all_rules

    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 40 * 1024
    for code in all_rules():
        assert f"[{code}](docs/rules/{code}.md)" in text
        assert (ROOT / "docs" / "rules" / f"{code}.md").is_file()
    for link in re.findall(r"\]\(((?:docs/|LICENSE)[^)#]*)", text):
        assert (ROOT / link).exists(), link
