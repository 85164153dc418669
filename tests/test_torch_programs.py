"""Legacy programs run under PyTorch 2.13 before and after ``torch04 check --fix``.

Each program in tests/programs/ says in its header comments what it needs and
what happens before the fix:

- ``# needs: TV001 TV003``: the rules whose fixes it relies on (skipped until
  they are registered);
- ``# flags: --unsafe-fixes``: extra options for ``torch04 check --fix``;
- ``# before-error: ...``: the old program fails with this (text in stderr);
- ``# before-warning: ...``: the old program runs and warns this;
- ``# after-stdout: ...``: what the fixed program prints, when the fix changes
  behaviour on purpose; otherwise it must print what the old program printed.

After the fix the program must run, with none of the errors and warnings
above, and re-fixing it must change nothing.  The programs run under
``$TORCH04_TORCH_PYTHON`` (default: this interpreter), which must have
``torch==2.13.0``; otherwise the tests are skipped.
"""
import ast
import functools
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_torch04 import cli
from flake8_torch04._core import all_rules

PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*.py"))
TORCH_VERSION = "2.13.0"
#: texts of PyTorch's own deprecation messages for the patterns the rules fix
DEPRECATIONS = ("volatile was removed", "is now deprecated", "invalid index of a 0-dim tensor",
                "module name can't contain")


@functools.lru_cache(maxsize=None)
def torch_python():
    python = os.environ.get("TORCH04_TORCH_PYTHON", sys.executable)
    if python == sys.executable:
        torch = pytest.importorskip("torch")
        version = torch.__version__
    else:
        proc = subprocess.run([python, "-c", "import torch; print(torch.__version__)"],
                              capture_output=True, text=True)
        if proc.returncode:
            pytest.skip(f"{python} cannot import torch")
        version = proc.stdout.strip()
    if version.split("+")[0] != TORCH_VERSION:
        pytest.skip(f"torch {version} is not {TORCH_VERSION}")
    return python


def header(path):
    """``{key: [values]}`` from the program's ``# key: value`` comments."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"# ([\w-]+): (.*)", line)
        if match:
            found.setdefault(match.group(1), []).append(match.group(2))
    return found


def execute(python, path):
    env = dict(os.environ, PYTHONWARNINGS="default")
    return subprocess.run([python, str(path)], capture_output=True, text=True, env=env,
                          cwd=path.parent, timeout=300)


def fix(path, flags):
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        status = cli.main(["check", "--fix", *flags, str(path)])
    finally:
        sys.stdout, sys.stderr = saved
    assert "internal error" not in err.getvalue(), err.getvalue()
    return status


def test_every_program_declares_what_it_needs():
    assert PROGRAMS
    for path in PROGRAMS:
        meta = header(path)
        assert meta.get("needs"), path.name
        assert meta.get("before-error") or meta.get("before-warning") or meta.get(
            "after-stdout"), path.name


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_program_runs_after_the_fix(program, tmp_path):
    meta = header(program)
    missing = [c for code in meta["needs"] for c in code.split() if c not in all_rules()]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    python = torch_python()

    copy = tmp_path / program.name
    copy.write_text(program.read_text(encoding="utf-8"), encoding="utf-8")
    before = execute(python, copy)
    expected_failures = meta.get("before-error", []) + meta.get("before-warning", [])
    for text in meta.get("before-error", []):
        assert before.returncode != 0 and text in before.stderr, before.stderr
    for text in meta.get("before-warning", []):
        assert before.returncode == 0 and text in before.stderr, before.stderr

    flags = [f for line in meta.get("flags", []) for f in line.split()]
    fix(copy, flags)
    fixed = copy.read_text(encoding="utf-8")
    assert fixed != program.read_text(encoding="utf-8")
    ast.parse(fixed)
    fix(copy, flags)
    assert copy.read_text(encoding="utf-8") == fixed, "a second run changed the file"

    after = execute(python, copy)
    assert after.returncode == 0, f"{fixed}\n{after.stderr}"
    for text in expected_failures + list(DEPRECATIONS):
        assert text not in after.stderr, f"{fixed}\n{after.stderr}"
    if "after-stdout" in meta:
        assert after.stdout.splitlines() == meta["after-stdout"]
        assert before.stdout.splitlines() != meta["after-stdout"]
    else:
        assert before.returncode != 0 or after.stdout == before.stdout
        assert after.stdout.strip()
