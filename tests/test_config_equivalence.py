"""One configuration everywhere: flake8 (the reference for ``[flake8]``), ``torch04
check``, the pre-commit hook's command, the language server and the pylint plugin
report the same (file, line, code) set on trees configured each way.

pre-commit builds its hook environment from the package index (tests/test_precommit.py
runs it for real, slowly); here the hook's ``entry`` from ``.pre-commit-hooks.yaml`` is
run as pre-commit runs it: from the repository's root, with every file named.
"""
import io
import os
import re
import shlex
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cli_runner import in_process

from flake8_torch04.analysis.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent
CODE = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable

    x = Variable(torch.ones(2))
    y = Variable(x, volatile=True)
    if type(x) == torch.FloatTensor:
        print(x)
    """
)  # TV001 4, 5; TV002 5; TV005 6
FILES = ["a.py", "pkg/b.py", "pkg/tests/test_b.py", "pkg/sub/c.py", "vendor/v.py",
         "conftest.py"]

FLAKE8 = """\
[flake8]
max-line-length = 100
extend-ignore = E203,W503,TV002
exclude = .git,__pycache__,vendor
extend-exclude = pkg/sub/gen*
per-file-ignores =
    pkg/tests/*.py: TV001
    conftest.py:TV005
"""
TREES = {
    "setup.cfg": {"setup.cfg": FLAKE8},
    "tox.ini": {"tox.ini": FLAKE8},
    ".flake8": {".flake8": FLAKE8, "setup.cfg": "[metadata]\nname = x\n"},
    "flake8-select": {"setup.cfg": "[flake8]\nselect = E,TV00\nextend-select = TV005\n"
                                   "ignore = TV001\nper-file-ignores = a.py:TV0\n"},
    "tool": {"pyproject.toml": textwrap.dedent("""\
        [tool.torch04]
        extend-ignore = ["TV002"]
        extend-exclude = ["vendor"]
        per-file-ignores = {"pkg/tests/*" = ["TV001"], "!pkg/**" = ["TV005"]}
        """)},
    "nested": {"pyproject.toml": '[tool.torch04]\nignore = ["TV005"]\n',
               "pkg/pyproject.toml": '[tool.black]\n',  # no table: the root's governs
               "pkg/sub/pyproject.toml": '[tool.torch04]\nignore = ["TV001"]\n'},
    "nested-under-flake8": {"setup.cfg": FLAKE8,
                            "pkg/sub/pyproject.toml": '[tool.torch04]\nignore = ["TV001"]\n'},
}
#: the directories a [tool.torch04] table governs, by tree ("": all); the rest of each
#: tree is governed by [flake8] (or nothing), where flake8 is the reference
TOOL_DIRS = {"tool": "", "nested": "", "nested-under-flake8": "pkg/sub/"}


def build(tmp_path, name):
    for path in FILES + ["pkg/sub/gen_x.py"]:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(CODE)
    for path, text in TREES[name].items():
        (tmp_path / path).write_text(text)
    return tmp_path


def rel(root, path, cwd):
    return os.path.relpath(os.path.join(cwd, path), root).replace(os.sep, "/")


def flake8(root, cwd, *args):
    proc = subprocess.run([sys.executable, "-m", "flake8", "--format",
                           "%(path)s:%(row)d:%(code)s", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return {(rel(root, p, cwd), int(r), c) for p, r, c in
            (line.rsplit(":", 2) for line in proc.stdout.splitlines()) if c.startswith("TV")}


def torch04(root, cwd, *args):
    import json

    status, out, err = in_process("check", "--output-format", "json", *args, cwd=cwd)
    assert status in (0, 1), err
    return {(rel(root, r["filename"], cwd), r["line"], r["code"]) for r in json.loads(out)}


def hook(root, files):
    manifest = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    entry = re.search(r"^- id: torch04\n(?:  .*\n)*?  entry: (.+)$", manifest, re.M).group(1)
    args = shlex.split(entry)
    assert args[:2] == ["torch04", "check"]
    return torch04(root, root, *args[2:], *files)


def server(root, files):
    import gc

    from flake8_torch04.server import worker

    old = os.getcwd()
    os.chdir(root)  # (an editor starts the server in the workspace's root)
    try:
        found = set()
        for name in files:
            path = str(root / name)
            uri = Path(path).as_uri()
            result = worker.run_analysis(uri, None, (root / name).read_text(), path, "utf-16")
            found |= {(name, d.line, d.code) for d in result.by_uri.get(uri, ())}
        return found
    finally:
        gc.unfreeze()
        os.chdir(old)


def pylint(root, files):
    pytest.importorskip("pylint")
    from pylint.lint import Run
    from pylint.reporters import CollectingReporter

    from flake8_torch04.pylint import message_id

    by_id = {message_id(code): code for code in all_rules()}
    symbols = ",".join(rule.name for rule in all_rules().values())
    reporter = CollectingReporter()
    old = os.getcwd()
    os.chdir(root)
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            Run(["--load-plugins=flake8_torch04.pylint", "--disable=all",
                 f"--enable={symbols}", "--persistent=n", "--rcfile=/dev/null", *files],
                reporter=reporter, exit=False)
    finally:
        os.chdir(old)
    return {(os.path.relpath(m.abspath, root).replace(os.sep, "/"), m.line, by_id[m.msg_id])
            for m in reporter.messages}


@pytest.mark.parametrize("name", sorted(TREES))
def test_every_front_end_reports_the_same_findings(tmp_path, name):
    root = build(tmp_path, name)
    here = torch04(root, root, ".")
    below = torch04(root, root / "pkg", ".")
    tool = TOOL_DIRS.get(name)

    def by_flake8(found):
        return {f for f in found if tool is None or not f[0].startswith(tool)}

    # flake8 is the reference for what [flake8] governs, from the root and from a
    # subdirectory (where it reads per-file-ignores relative to the current directory)
    assert by_flake8(here) == by_flake8(flake8(root, root, "."))
    assert by_flake8(below) == by_flake8(flake8(root, root / "pkg", "."))
    # what [tool.torch04] governs does not depend on where the run starts
    assert {f for f in below if f not in by_flake8(below)} == \
        {f for f in here if f not in by_flake8(here) and f[0].startswith("pkg/")}
    named = sorted(FILES + ["pkg/sub/gen_x.py"])
    reference = hook(root, named)
    assert by_flake8(reference) == by_flake8(flake8(root, root, *named))
    assert server(root, named) == reference
    assert pylint(root, named) == reference
    assert here and reference  # (something to compare)


def test_the_trees_exercise_each_setting(tmp_path):
    """The configurations above do change what is reported (the test is not vacuous)."""
    root = build(tmp_path, "setup.cfg")
    found = torch04(root, root, ".")
    codes = {(f[0], f[2]) for f in found}
    assert not any(f[0].startswith("vendor/") or "gen_x" in f[0] for f in found)
    assert ("pkg/tests/test_b.py", "TV001") not in codes and ("a.py", "TV001") in codes
    assert ("conftest.py", "TV005") not in codes and ("a.py", "TV005") in codes
    assert not any(code == "TV002" for _, code in codes)
    # from pkg/, flake8 reads `pkg/tests/*.py` as pkg/pkg/tests/*.py: TV001 comes back
    below = torch04(root, root / "pkg", ".")
    assert ("pkg/tests/test_b.py", 4, "TV001") in below
    nested = torch04(build(tmp_path / "n", "nested"), tmp_path / "n", ".")
    assert ("pkg/sub/c.py", 4, "TV001") not in nested and ("pkg/sub/c.py", 6, "TV005") in nested
    assert ("pkg/b.py", 4, "TV001") in nested and ("pkg/b.py", 6, "TV005") not in nested


def test_show_settings_says_where_each_setting_came_from(tmp_path):
    root = build(tmp_path, "nested")
    status, out, err = in_process("check", "--show-settings", "--target-version", "0.3",
                                  "pkg/sub/c.py", cwd=root)
    assert status == 0, err
    assert "configuration = 'pkg/sub/pyproject.toml'  # [tool.torch04]" in out
    assert "ignore += 'TV001'" in out
    assert "target-version = '0.3'  # --target-version" in out
    assert "codes = 'TV002,TV003" in out  # TV001 ignored there, TV005 not
    status, out, _ = in_process("check", "--show-settings", "setup.cfg",
                                cwd=build(tmp_path / "f", "setup.cfg"))
    assert "[flake8] per-file-ignores" in out and "[flake8] extend-ignore" in out


def test_target_version_reaches_the_rules_from_every_front_end(tmp_path):
    """``target-version = "0.3"`` makes TV124 keep 0.3's ``align_corners=True``; a
    file with no 0.3 idiom of its own gets it from the setting alone, through the
    CLI, the language server and the pylint plugin alike (each sets what
    ``analysis/era.py`` reads for the file it checks)."""
    from flake8_torch04.analysis import era

    source = ('import torch.nn.functional as F\n\n\ndef up(x):\n'
              '    return F.upsample(x, size=(4, 4), mode="bilinear")\n')
    for sub, version in (("old", "0.3"), ("new", "0.4")):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "pyproject.toml").write_text(
            f'[tool.torch04]\ntarget-version = "{version}"\n', encoding="utf-8")
        (tmp_path / sub / "up.py").write_text(source, encoding="utf-8")
    kept = "interpolate(..., align_corners=True)"
    try:
        for sub, keeps in (("old", True), ("new", False), ("old", True)):
            status, out, err = in_process("check", "--output-format", "concise", "up.py",
                                          cwd=tmp_path / sub)
            assert (kept in out) is keeps, out
            from flake8_torch04.server import worker

            path = str(tmp_path / sub / "up.py")
            era.configured_target = "0.4" if keeps else "0.3"  # (the other run's, left over)
            result = worker.run_analysis(Path(path).as_uri(), 1, source, path, "utf-16")
            (diag,) = result.by_uri[Path(path).as_uri()]
            assert (kept in diag.message) is keeps, diag.message
        pytest.importorskip("pylint")
        from pylint.lint import Run
        from pylint.reporters import CollectingReporter

        reporter = CollectingReporter()
        old = os.getcwd()
        os.chdir(tmp_path)
        era.configured_target = None
        try:
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                Run(["--load-plugins=flake8_torch04.pylint", "--disable=all",
                     "--enable=upsample", "--persistent=n", "--rcfile=/dev/null",
                     "old/up.py", "new/up.py"], reporter=reporter, exit=False)
        finally:
            os.chdir(old)
        said = {Path(m.path).parent.name: m.msg for m in reporter.messages}
        assert kept in said["old"] and kept not in said["new"], said
    finally:
        era.configured_target = None
