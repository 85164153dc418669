"""The README's usage sections show what the tools really do.

The "Migrating a 0.3 codebase" walk-through is run as written: each ``$ torch04
...`` command runs on a copy of ``examples/legacy_train.py``, the output shown
under it must appear in the real output (in order; ``...`` stands for lines left
out), and the hand edits given as a diff are applied to the file.  The JSON
example and the annotation format of the CI section are checked against real
output, and the pre-commit section against ``.pre-commit-hooks.yaml``.
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
EXAMPLE = ROOT / "examples" / "legacy_train.py"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def section(title):
    text = README.read_text(encoding="utf-8")
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


def run_console(block, cwd):
    """Run the ``$ torch04`` commands of a console block, comparing their output."""
    commands = []
    for line in block.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            assert commands, f"output before any command: {line}"
            commands[-1][1].append(line)
    for command, shown in commands:
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


def walk_through(tmp_path):
    """Run the migration section on a copy of the example; return the copy."""
    (tmp_path / "examples").mkdir()
    script = tmp_path / "examples" / "legacy_train.py"
    shutil.copy(EXAMPLE, script)
    blocks = FENCE.findall(section("Migrating a 0.3 codebase"))
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
    blocks = [body for kind, body in FENCE.findall(section("CI")) if kind == "json"]
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
    documented = set(re.findall(r"^\| `([\w.]+)`(?:, `([\w.]+)`)? \|", section("CI"), re.M))
    keys = {k for pair in documented for k in pair if k}
    emitted = {key for record in records for key in record}
    emitted |= {f"fix.{key}" for record in records if record["fix"] for key in record["fix"]}
    assert keys == emitted


def test_github_annotation_format_is_real_output():
    text = section("CI")
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
    (tmp_path / "examples").mkdir()
    shutil.copy(EXAMPLE, tmp_path / "examples" / "legacy_train.py")
    blocks = [body for kind, body in FENCE.findall(section("Migrating a large codebase step "
                                                           "by step")) if kind == "console"]
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

    text = section("Command line")
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
    assert "Found 22 findings" in out, out
    (tmp_path / "pyproject.toml").write_text(toml, encoding="utf-8")
    out = torch04(["check", "--statistics", "."], tmp_path)
    # TV006 ignored; TV004 ignored outside src/ by the negated per-file-ignores pattern
    assert "Found 12 findings" in out and "TV004" not in out and "TV006" not in out, out
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "TV", "."],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout.count(": TV") == 22, proc.stderr
