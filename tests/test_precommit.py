"""The pre-commit hooks, run by the real ``pre-commit`` on a temporary git repository.

pre-commit installs hooks from a git repository, so the tests first commit this
project's working tree (tracked and untracked files that ``.gitignore`` does not
exclude, exactly as they are on disk) into a temporary repository; that copy is
what ``try-repo`` and the configurations below install.  Every hook environment
is built from the package index into a temporary ``PRE_COMMIT_HOME``, so these
tests take a while (three environments: ``try-repo``'s own, one for the pinned
hooks, one for the flake8 hook).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, NamedTuple

import pytest

pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install -e '.[test]')")
if shutil.which("git") is None:
    pytest.skip("git is not installed: pre-commit needs it", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
INSTALL_TIMEOUT = 900  # seconds; a pre-commit run that builds a hook environment

LEGACY = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable


    def train(model, loader, criterion):
        for data, target in loader:
            data, target = Variable(data), Variable(target)
            loss = criterion(model(data), target)
            loss.backward()


    def evaluate(model, x):
        if type(x) == torch.FloatTensor:
            x = Variable(x, volatile=True)
        return model(x)
    """
)
# --fix applies the two safe TV001 fixes and nothing else (together they drop
# the statement, which would be `data, target = data, target`): TV005's fix is
# unsafe, and Variable(x, volatile=True) waits for the user's choice of region.
LEGACY_SAFE_FIXED = LEGACY.replace(
    "        data, target = Variable(data), Variable(target)\n", ""
)
SAFE_FINDINGS = ["legacy.py:7:24: TV001 [*] ", "legacy.py:7:40: TV001 [*] "]
NOTEBOOK = json.dumps({
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Legacy\n"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["import torch\n", "from torch.autograd import Variable\n", "\n",
                    "x = Variable(torch.ones(2))"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                "name": "python3"}, "language_info": {"name": "python"}},
    "nbformat": 4, "nbformat_minor": 5,
}, indent=1) + "\n"
NOTEBOOK_FINDING = "legacy.ipynb:cell 2, line 4, col 5: TV001 [*] "
OTHER_FINDINGS = ["legacy.py:13:8: TV005 ", "legacy.py:14:13: TV001 ", "legacy.py:14:25: TV002 "]
# the same findings once the fix has removed line 7
OTHER_FINDINGS_FIXED = [
    "legacy.py:12:8: TV005 ", "legacy.py:13:13: TV001 ", "legacy.py:13:25: TV002 "
]

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.com",
}


@pytest.fixture(scope="session")
def env(tmp_path_factory):
    """The environment for git and pre-commit: one hook cache for the whole session."""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("GIT_", "PRE_COMMIT"))}
    environ.update(GIT_IDENTITY)
    environ["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    return environ


def git(*args, cwd, env):
    subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main",
                    *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory, env):
    """A git repository whose single commit is this project's working tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    ).stdout.decode().split("\0")
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file may be deleted in the working tree
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    assert (repo / ".pre-commit-hooks.yaml").is_file()
    git("init", "-q", cwd=repo, env=env)
    git("add", "-A", cwd=repo, env=env)
    git("commit", "-q", "-m", "snapshot", cwd=repo, env=env)
    return repo


@pytest.fixture
def project(tmp_path, env):
    """A user's repository with one legacy file in it."""
    git("init", "-q", cwd=tmp_path, env=env)
    (tmp_path / "legacy.py").write_text(LEGACY, encoding="utf-8")
    git("add", "legacy.py", cwd=tmp_path, env=env)
    return tmp_path


def pre_commit(*args, cwd, env):
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
    )
    print(proc.stdout, proc.stderr, sep="\n")  # shown by pytest when a test fails
    return proc


class Hook(NamedTuple):
    status: str
    output: str


_HEADER = re.compile(r"^(?P<name>.+?)\.{3,}(?:\(no files to check\))?(?P<status>Passed|Failed|"
                     r"Skipped)$")


def hooks(output: str) -> Dict[str, Hook]:
    """The status and output of each hook in a ``pre-commit run --verbose`` report."""
    found: Dict[str, Hook] = {}
    status = hook_id = None
    lines = []
    for line in output.splitlines() + ["end...Passed"]:
        header = _HEADER.match(line)
        if header:
            if hook_id is not None:
                found[hook_id] = Hook(status, "\n".join(lines))
            status, hook_id, lines = header["status"], None, []
        elif line.startswith("- hook id: ") and hook_id is None:
            hook_id = line[len("- hook id: "):].strip()
        else:
            lines.append(line)
    return found


def finding_lines(output: str):
    return [line for line in output.splitlines() if line.startswith("legacy.")]


def assert_reports(output: str, prefixes):
    lines = finding_lines(output)
    for prefix in prefixes:
        assert any(line.startswith(prefix) for line in lines), (prefix, lines)


def test_try_repo_check_fails_and_fix_applies_safe_fixes(hook_repo, project, env):
    (project / "legacy.ipynb").write_text(NOTEBOOK, encoding="utf-8")
    git("add", "legacy.ipynb", cwd=project, env=env)
    # Without a hook id, try-repo runs every hook of the manifest, in id order:
    # torch04 on the legacy files, then torch04-fix.
    proc = pre_commit("try-repo", str(hook_repo), "--files", "legacy.py", "legacy.ipynb",
                      "--verbose", cwd=project, env=env)
    assert proc.returncode == 1
    result = hooks(proc.stdout)
    assert set(result) == {"torch04", "torch04-fix"}

    check = result["torch04"]
    assert check.status == "Failed"
    assert "- exit code: 1" in check.output
    assert_reports(check.output, SAFE_FINDINGS + OTHER_FINDINGS + [NOTEBOOK_FINDING])

    fix = result["torch04-fix"]
    assert fix.status == "Failed"
    assert "- files were modified by this hook" in fix.output
    # what remains needs --unsafe-fixes or a hand edit, and is still reported
    assert_reports(fix.output, OTHER_FINDINGS_FIXED)
    assert not any("[*]" in line for line in finding_lines(fix.output))
    assert (project / "legacy.py").read_text(encoding="utf-8") == LEGACY_SAFE_FIXED
    notebook = json.loads((project / "legacy.ipynb").read_text(encoding="utf-8"))
    assert notebook["cells"][1]["source"] == ["import torch\n", "\n", "x = torch.ones(2)"]


def test_pinned_hooks_fix_once_then_report_only_what_is_left(hook_repo, project, env):
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo, env=env, check=True,
                         capture_output=True, text=True).stdout.strip()
    config = textwrap.dedent(
        f"""\
        repos:
          - repo: {hook_repo.as_uri()}
            rev: {rev}
            hooks:
              - id: torch04-fix
              - id: torch04
        """
    )
    (project / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    git("add", ".pre-commit-config.yaml", cwd=project, env=env)

    first = pre_commit("run", "--files", "legacy.py", "--verbose", cwd=project, env=env)
    assert first.returncode == 1
    result = hooks(first.stdout)
    assert "- files were modified by this hook" in result["torch04-fix"].output
    assert (project / "legacy.py").read_text(encoding="utf-8") == LEGACY_SAFE_FIXED
    assert result["torch04"].status == "Failed"
    assert_reports(result["torch04"].output, OTHER_FINDINGS_FIXED)
    assert not any("[*]" in line for line in finding_lines(result["torch04"].output))

    second = pre_commit("run", "--files", "legacy.py", "--verbose", cwd=project, env=env)
    assert second.returncode == 1  # the unsafe and manual items are still there
    result = hooks(second.stdout)
    assert "files were modified" not in result["torch04-fix"].output
    assert (project / "legacy.py").read_text(encoding="utf-8") == LEGACY_SAFE_FIXED

    (project / "legacy.py").write_text("import torch\n\nx = torch.ones(2)\n", encoding="utf-8")
    clean = pre_commit("run", "--files", "legacy.py", "--verbose", cwd=project, env=env)
    assert clean.returncode == 0
    assert {h.status for h in hooks(clean.stdout).values()} == {"Passed"}


def test_flake8_hook_with_the_plugin_as_additional_dependency(hook_repo, project, env):
    # The README's flake8 hook, with `repo: local` standing in for
    # https://github.com/PyCQA/flake8 (not reachable from the test machine) and
    # the project's path for the released `flake8-torch04` package: pre-commit
    # builds a fresh environment with flake8 and the additional dependencies.
    config = textwrap.dedent(
        f"""\
        repos:
          - repo: local
            hooks:
              - id: flake8
                name: flake8
                entry: flake8
                language: python
                types: [python]
                require_serial: true
                additional_dependencies: [flake8, "{hook_repo}"]
                args: [--extend-select=TV]
        """
    )
    (project / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    git("add", ".pre-commit-config.yaml", cwd=project, env=env)

    proc = pre_commit("run", "flake8", "--files", "legacy.py", "--verbose", cwd=project,
                      env=env)
    assert proc.returncode == 1
    result = hooks(proc.stdout)["flake8"]
    assert result.status == "Failed"
    # flake8's format: the same positions as torch04's, without fix marks
    assert_reports(result.output, [p.replace(" [*]", "") for p in SAFE_FINDINGS])
    assert_reports(result.output, OTHER_FINDINGS)
    assert (project / "legacy.py").read_text(encoding="utf-8") == LEGACY


def test_hook_and_flake8_agree_on_a_tree_with_setup_cfg(hook_repo, project, env):
    # The project's [flake8] section configures the torch04 hook too: the hook,
    # flake8 with the plugin and `torch04 check .` report the same findings.
    # (`vendor/*` rather than `vendor`: flake8 matches a file it is given, as
    # pre-commit gives every file, by its own name and path, not its directories.)
    (project / "setup.cfg").write_text(textwrap.dedent(
        """\
        [flake8]
        extend-ignore = E203,TV002
        extend-exclude = vendor/*
        per-file-ignores =
            tests/*.py: TV001,TV005
        """), encoding="utf-8")
    (project / "tests").mkdir()
    (project / "tests" / "test_legacy.py").write_text(LEGACY, encoding="utf-8")
    (project / "vendor").mkdir()
    (project / "vendor" / "legacy_vendor.py").write_text(LEGACY, encoding="utf-8")
    git("add", "-A", cwd=project, env=env)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo, env=env, check=True,
                         capture_output=True, text=True).stdout.strip()
    (project / ".pre-commit-config.yaml").write_text(textwrap.dedent(
        f"""\
        repos:
          - repo: {hook_repo.as_uri()}
            rev: {rev}
            hooks:
              - id: torch04
        """), encoding="utf-8")
    git("add", ".pre-commit-config.yaml", cwd=project, env=env)
    proc = pre_commit("run", "torch04", "--all-files", "--verbose", cwd=project, env=env)
    assert proc.returncode == 1
    hook = hooks(proc.stdout)["torch04"]
    ours = sorted(line.split(" ")[0] + line.split(" ")[1]
                  for line in hook.output.splitlines() if re.match(r"[\w/]+\.py:\d", line))
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "TV", "--format",
                             "%(path)s:%(row)d:%(col)d:%(code)s", "."],
                            cwd=project, env=env, capture_output=True, text=True)
    theirs = sorted(line[2:] if line.startswith("./") else line
                    for line in flake8.stdout.splitlines())
    assert ours == theirs
    command = subprocess.run([sys.executable, "-m", "flake8_torch04", "check", "."],
                             cwd=project, env=env, capture_output=True, text=True)
    assert sorted(line.split(" ")[0] + line.split(" ")[1] for line in
                  command.stdout.splitlines()[:-1]) == ["./" + line for line in ours]
    assert {line.split(":")[0] for line in ours} == {"legacy.py"}
    assert {line.split(":")[3] for line in ours} == {"TV001", "TV005"}
