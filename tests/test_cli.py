"""``torch04`` end to end on temporary trees: exit codes, formats, round-trips, noqa."""
import argparse
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_runner import in_process
from hypothesis import given, settings, strategies as st

from flake8_torch04 import cli, pipeline, ruledocs
from flake8_torch04.cli import discover as cli_discover, output as cli_output
from flake8_torch04.config import excludes as config_excludes, select as config_select
from flake8_torch04.source import document

LEGACY = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable

    x = Variable(torch.ones(2))
    y = Variable(x, volatile=True)
    if y.volatile:
        print(x)
    """
)
FIXED_SAFE = LEGACY.replace("Variable(torch.ones(2))", "torch.ones(2)")
CLEAN = "import torch\n\nx = torch.ones(2)\n"


#: (exit status, stdout, stderr) of the command run in this process
torch04 = in_process


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "legacy.py").write_text(LEGACY)
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN)
    (tmp_path / "notes.txt").write_text("x = Variable(t)\n")
    return tmp_path


# ---------------------------------------------------------------------------
# exit status


def test_clean_tree_exits_0(tmp_path):
    (tmp_path / "clean.py").write_text(CLEAN)
    status, out, _ = torch04("check", ".", cwd=tmp_path)
    assert status == 0
    assert out == "Found 0 findings in 1 file.\n"


def test_findings_exit_1_with_flake8_style_lines(tree):
    status, out, _ = torch04("check", "pkg", cwd=tree)
    assert status == 1
    lines = out.splitlines()
    assert lines[:4] == [
        "pkg/legacy.py:4:5: TV001 [*] `Variable(torch.ones(2))` is a no-op wrapper since "
        "PyTorch 0.4; use `torch.ones(2)`",
        "pkg/legacy.py:5:5: TV001 `Variable(x, volatile=True)` is a no-op wrapper since "
        "PyTorch 0.4; use `x` (see TV002 for `volatile`)",
        "pkg/legacy.py:5:17: TV002 `volatile=True` has no effect since PyTorch 0.4 (autograd "
        "records the graph); run the code that uses `y` (line 6) under `with torch.no_grad():`",
        "pkg/legacy.py:6:4: TV002 `y.volatile` is always False since PyTorch 0.4; use "
        "`not torch.is_grad_enabled()`",
    ]
    assert lines[4] == ("Found 4 findings in 1 of 2 files (TV001: 2, TV002: 2); 1 fixable "
                        "with --fix, 1 more with --unsafe-fixes.")


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--no-such-option"],
        ["check", "--select", "TV0001"],
        ["check", "--ignore", "tv-1"],
        ["check", "missing.py"],
        ["check", "-", "-"],
        ["check", "--output-format", "xml"],
        ["explain", "TV999"],
        [],
    ],
)
def test_usage_errors_exit_2(tmp_path, args):
    status, _, err = torch04(*args, cwd=tmp_path)
    assert status == 2
    assert err


def test_internal_error_exits_2_and_other_files_are_still_checked(tree, monkeypatch):
    real = pipeline.check_document

    def broken(doc, options):
        if doc.name.endswith("clean.py"):
            raise RuntimeError("boom")
        return real(doc, options)

    monkeypatch.setattr(pipeline, "check_document", broken)
    status, out, err = torch04("check", "pkg", cwd=tree)
    assert status == 2
    assert "pkg/clean.py: internal error: RuntimeError: boom" in err
    assert "pkg/legacy.py:4:5: TV001" in out


def test_a_module_of_ours_that_does_not_compile_is_an_internal_error(tree, monkeypatch):
    """Not the checked file's syntax error: a rule module imported on first use that
    does not compile (a broken installation) says so, and exits 2."""
    from flake8_torch04.fix import analysis

    def broken(*args, **kwargs):
        raise SyntaxError("unexpected indent", ("rules/x.py", 1, 5, "    def f():\n"))

    monkeypatch.setattr(analysis, "check", broken)
    status, _, err = torch04("check", "pkg/legacy.py", cwd=tree)
    assert status == 2
    assert "internal error: RuntimeError: a module of flake8-torch04 does not compile" in err
    assert "cannot parse" not in err


def test_help_and_version_exit_0(capsys):
    assert cli.main(["--version"]) == 0
    assert cli.main(["check", "--help"]) == 0
    assert "--unsafe-fixes" in capsys.readouterr().out


# ---------------------------------------------------------------------------
# fixing


def test_fix_writes_safe_fixes_and_a_second_run_changes_nothing(tree):
    path = tree / "pkg" / "legacy.py"
    status, out, _ = torch04("check", "--fix", "pkg", cwd=tree)
    assert path.read_text() == FIXED_SAFE
    assert status == 1  # TV002 findings remain
    assert "Fixed 1 finding in 1 file (TV001: 1)." in out
    assert "Found 3 remaining findings in 1 of 2 files (TV001: 1, TV002: 2)" in out
    assert "pkg/legacy.py:4:5" not in out
    before = path.stat().st_mtime_ns
    status, out, _ = torch04("check", "--fix", "pkg", cwd=tree)
    assert "Fixed 0 findings in 0 files." in out
    assert path.stat().st_mtime_ns == before


def test_unsafe_fixes(tree):
    status, _, _ = torch04("check", "--fix", "--unsafe-fixes", "pkg", cwd=tree)
    text = (tree / "pkg" / "legacy.py").read_text()
    assert "if not torch.is_grad_enabled():" in text
    assert "x = torch.ones(2)" in text
    assert status == 1  # volatile=True has no automatic fix


def test_fix_exits_0_when_everything_was_fixed(tmp_path):
    (tmp_path / "a.py").write_text("from torch.autograd import Variable\nx = Variable(t)\n")
    status, out, _ = torch04("check", "--fix", "a.py", cwd=tmp_path)
    assert status == 0
    assert (tmp_path / "a.py").read_text() == "x = t\n"
    assert "Found 0 remaining findings in 1 file." in out


def test_diff_writes_nothing(tree):
    status, out, err = torch04("check", "--diff", "pkg", cwd=tree)
    assert (tree / "pkg" / "legacy.py").read_text() == LEGACY
    assert status == 1
    assert out.splitlines() == [
        "--- a/pkg/legacy.py",
        "+++ b/pkg/legacy.py",
        "@@ -1,7 +1,7 @@",
        " import torch",
        " from torch.autograd import Variable",
        " ",
        "-x = Variable(torch.ones(2))",
        "+x = torch.ones(2)",
        " y = Variable(x, volatile=True)",
        " if y.volatile:",
        "     print(x)",
    ]
    assert "Would fix 1 finding in 1 file (TV001: 1)." in err


def test_diff_of_clean_code_exits_0(tmp_path):
    (tmp_path / "a.py").write_text(CLEAN)
    assert torch04("check", "--diff", "a.py", cwd=tmp_path)[:2] == (0, "")


@pytest.mark.parametrize(
    "name, data",
    [
        ("crlf.py", b"import torch\r\nfrom torch.autograd import Variable\r\n"
                    b"x = Variable(t)\r\ny = x\r\n"),
        ("cr.py", b"from torch.autograd import Variable\rx = Variable(t)\ry = x.volatile\r"),
        ("bom.py", b"\xef\xbb\xbfimport torch\nfrom torch.autograd import Variable\n"
                   b"s = '\xc3\xa9'; x = Variable(t)\n"),
        ("latin1.py", b"# -*- coding: latin-1 -*-\nfrom torch.autograd import Variable\n"
                      b"s = '\xe9'; x = Variable(t)\ny = x.volatile\n"),
        ("no_newline.py", b"from torch.autograd import Variable\ny = x.volatile\n"
                          b"x = Variable(t)"),
        ("mixed.py", b"from torch.autograd import Variable\r\ny = x.volatile\n"
                     b"x = Variable(t)\r\n"),
    ],
)
def test_round_trips(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    os.chmod(path, 0o751)
    status, _, err = torch04("check", "--fix", "--unsafe-fixes", name, cwd=tmp_path)
    assert err == ""
    new = path.read_bytes()
    assert new != data
    assert b"Variable(" not in new
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert new.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")
    assert new.endswith((b"\n", b"\r")) == data.endswith((b"\n", b"\r"))
    if name == "crlf.py":
        assert new == b"import torch\r\nx = t\r\ny = x\r\n"
    if name == "cr.py":
        assert new == b"import torch\rx = t\ry = not torch.is_grad_enabled()\r"
    if name == "latin1.py":
        assert b"s = '\xe9'; x = t\n" in new
    if name == "mixed.py":
        assert new == (b"import torch\r\ny = not torch.is_grad_enabled()\n"
                       b"x = t\r\n")
    if name == "no_newline.py":
        assert new.endswith(b"x = t")
    before = path.read_bytes()
    torch04("check", "--fix", "--unsafe-fixes", name, cwd=tmp_path)
    assert path.read_bytes() == before


def test_symlink_target_is_written(tmp_path):
    target = tmp_path / "real.py"
    target.write_text("from torch.autograd import Variable\nx = Variable(t)\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    torch04("check", "--fix", "link.py", cwd=tmp_path)
    assert link.is_symlink()
    assert target.read_text() == "x = t\n"


def test_unparsable_file_is_reported_and_untouched(tmp_path):
    # (``async`` as a parameter: TV101 rescues only keyword arguments, see test_rescue)
    bad = "from torch.autograd import Variable\nx = Variable(t)\ndef f(t, async=True): pass\n"
    (tmp_path / "bad.py").write_text(bad)
    (tmp_path / "good.py").write_text("from torch.autograd import Variable\nx = Variable(t)\n")
    (tmp_path / "py2.py").write_text("print 'hello'\n")
    (tmp_path / "binary.py").write_bytes(b"x = '\xff\xfe'\n")
    status, out, err = torch04("check", "--fix", ".", cwd=tmp_path)
    assert status == 1
    assert (tmp_path / "bad.py").read_text() == bad
    assert (tmp_path / "good.py").read_text() == "x = t\n"
    errors = err.splitlines()
    assert errors[0] == "./bad.py: cannot parse: invalid syntax (line 3)"
    assert errors[1].startswith("./binary.py: cannot decode: 'utf-8' codec can't decode")
    assert errors[2].startswith("./py2.py: cannot parse: Missing parentheses in call to 'print'")
    assert errors[2].endswith("(line 1)")
    assert "3 files could not be checked (left untouched)." in out


def test_a_bom_with_another_cookie_is_reported_as_python_reports_it(tmp_path):
    """Issue 32: Python says "encoding problem: latin-1 with BOM", not a UTF-8 error."""
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nx = 1\n")
    status, out, err = torch04("check", "bom.py", cwd=tmp_path)
    assert status == 1
    assert "bom.py: cannot decode: encoding problem: latin-1 with BOM" in err


def test_null_bytes_are_a_parse_error(tmp_path):
    (tmp_path / "nul.py").write_bytes(b"x = 1\x00\n")
    status, _, err = torch04("check", "nul.py", cwd=tmp_path)
    assert status == 1
    assert err.startswith("nul.py: cannot parse:")


# ---------------------------------------------------------------------------
# output formats


def test_json_output(tree):
    status, out, err = torch04("check", "--output-format", "json", "pkg/legacy.py", cwd=tree)
    records = json.loads(out)
    assert status == 1
    assert [(r["code"], r["line"], r["column"]) for r in records] == [
        ("TV001", 4, 5), ("TV001", 5, 5), ("TV002", 5, 17), ("TV002", 6, 4),
    ]
    first = records[0]
    assert first == {
        "filename": "pkg/legacy.py", "cell": None, "line": 4, "column": 5,
        "end_line": 4, "end_column": 28, "code": "TV001",
        "message": "`Variable(torch.ones(2))` is a no-op wrapper since PyTorch 0.4; use "
                   "`torch.ones(2)`",
        "fix": {"applicability": "safe", "applicable": True, "imports": [],
                "edits": [{"line": 4, "column": 5, "end_line": 4, "end_column": 28,
                           "content": "torch.ones(2)"}]},
        "url": ruledocs.rule_url("TV001"),
    }
    assert records[1]["fix"] is None
    assert records[3]["fix"]["applicability"] == "unsafe"
    assert records[3]["fix"]["applicable"] is False
    assert records[3]["fix"]["imports"] == ["torch"]
    assert "Found 4 findings" in err


def test_github_output_escapes(tmp_path):
    name = "odd,na:me%.py"
    (tmp_path / name).write_text("from torch.autograd import Variable\nx = Variable(t)\n")
    status, out, _ = torch04("check", "--output-format", "github", name, cwd=tmp_path)
    assert status == 1
    assert out.splitlines()[0] == (
        "::warning file=odd%2Cna%3Ame%25.py,line=2,col=5,endLine=2,endColumn=16,"
        "title=TV001::TV001 `Variable(t)` is a no-op wrapper since PyTorch 0.4; use `t`"
    )


def test_github_output_reports_unparsable_files_as_errors(tmp_path):
    (tmp_path / "bad.py").write_text("x = (\n")
    _, out, _ = torch04("check", "--output-format", "github", "bad.py", cwd=tmp_path)
    assert out.splitlines()[0].startswith("::error file=bad.py::cannot parse: ")


def test_escaping():
    assert cli_output._escape_data("a%b\r\nc") == "a%25b%0D%0Ac"
    assert cli_output._escape_property("a:b,c%") == "a%3Ab%2Cc%25"


# ---------------------------------------------------------------------------
# standard input


def test_stdin(tmp_path):
    status, out, _ = torch04("check", "--stdin-filename", "editor.py", "-", cwd=tmp_path,
                             stdin=LEGACY)
    assert status == 1
    assert out.splitlines()[0].startswith("editor.py:4:5: TV001")


def test_stdin_fix_prints_the_fixed_source(tmp_path):
    status, out, err = torch04("check", "--fix", "-", cwd=tmp_path, stdin=LEGACY)
    assert out == FIXED_SAFE
    assert "stdin:5:5: TV001" in err
    assert status == 1


# ---------------------------------------------------------------------------
# --select / --ignore, as flake8 decides


@pytest.mark.parametrize(
    "select, ignore, expected",
    [
        (None, None, ["TV001", "TV002"]),
        (["TV001"], None, ["TV001"]),
        (["TV"], ["TV001"], ["TV002"]),
        (["TV00"], ["TV0"], ["TV001", "TV002"]),
        (["TV0"], ["TV00"], []),
        (["TV001"], ["TV001"], []),
        (None, ["TV"], []),
        (None, ["TV002"], ["TV001"]),
        (["E", "W"], None, []),
    ],
)
def test_selected_codes(select, ignore, expected):
    assert config_select.selected_codes(["TV001", "TV002"], select, ignore) == expected


@pytest.mark.parametrize("select", [None, ["TV"], ["TV0"], ["TV00"], ["TV001"], ["E"], ["TV15"]])
@pytest.mark.parametrize("ignore", [None, ["TV"], ["TV0"], ["TV00"], ["TV002"], ["E"]])
@pytest.mark.parametrize("extend", [None, ["TV002"], ["TV1"], ["TV157"]])
def test_selected_codes_agree_with_flake8(select, ignore, extend):
    # (TV157 is off by default: on flake8's default ignore list, as the plugin puts it)
    style_guide = pytest.importorskip("flake8.style_guide")
    options = argparse.Namespace(
        select=select, extend_select=extend,
        extended_default_select=list(config_select.DEFAULT_SELECT),
        ignore=ignore, extend_ignore=None,
        extended_default_ignore=list(config_select.DEFAULT_IGNORE),
    )
    engine = style_guide.DecisionEngine(options)
    codes = ["TV001", "TV002", "TV101", "TV157"]
    theirs = [c for c in codes if engine.decision_for(c) is style_guide.Decision.Selected]
    assert config_select.selected_codes(codes, select, ignore, extend or ()) == theirs


def test_codes_off_by_default_need_a_selector_that_names_them():
    codes = ["TV001", "TV157"]
    assert config_select.selected_codes(codes, None, None) == ["TV001"]
    assert config_select.selected_codes(codes, None, None, ["TV157"]) == codes
    assert config_select.selected_codes(codes, ["TV15"], None) == ["TV157"]


def test_select_on_the_command_line(tree):
    status, out, _ = torch04("check", "--select", "TV002", "--output-format", "json",
                             "pkg/legacy.py", cwd=tree)
    records = json.loads(out)
    assert {r["code"] for r in records} == {"TV002"}
    status, out, _ = torch04("check", "--select=TV", "--ignore=TV002,TV001", "pkg", cwd=tree)
    assert status == 0


# ---------------------------------------------------------------------------
# noqa, the same as flake8


NOQA_CASES = textwrap.dedent(
    '''\
    import torch
    from torch.autograd import Variable
    a = Variable(1)  # noqa
    b = Variable(2)  # noqa: TV001
    c = Variable(3, volatile=True)  # noqa: TV002
    d = Variable(4)  # NOQA:TV001
    e = Variable(5)  # noqa:tv001
    f = Variable(6)  #noqa
    g = Variable(7)  # noqa: TV
    h = Variable(8)  # noqa: TV0
    i = Variable(9)  # noqa:  TV002
    j = Variable(10)  # noqa: E501,TV002
    k = Variable(11)  # noqa: E501 TV001
    m = Variable(
        12,
        volatile=True,  # noqa: TV002
    )
    n = Variable("""
    text""")  # noqa
    o = Variable(x) + \\
        Variable(y)  # noqa: TV001
    p = Variable(13)  # no qa
    '''
)


def test_noqa_agrees_with_flake8(tmp_path):
    (tmp_path / "n.py").write_text(NOQA_CASES)
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=TV", "--format=%(row)d:%(col)d:%(code)s",
         "n.py"], cwd=tmp_path, capture_output=True, text=True,
    )
    assert proc.returncode == 1, proc.stderr
    theirs = proc.stdout.splitlines()
    _, out, _ = torch04("check", "--output-format", "json", "n.py", cwd=tmp_path)
    ours = [f"{r['line']}:{r['column']}:{r['code']}" for r in json.loads(out)]
    assert ours == theirs
    assert {line.split(":")[0] for line in ours} == {"5", "7", "8", "12", "14", "22"}


def test_noqa_lines_are_never_touched(tmp_path):
    source = NOQA_CASES
    (tmp_path / "n.py").write_text(source)
    torch04("check", "--fix", "--unsafe-fixes", "n.py", cwd=tmp_path)
    new = (tmp_path / "n.py").read_text().splitlines()
    old = source.splitlines()
    for before in old:
        if "# noqa" in before.lower() and "tv001" not in before and "noqa:  TV" not in before \
                and "E501,TV002" not in before:
            assert before in new
    assert "p = 13  # no qa" in new


# ---------------------------------------------------------------------------
# finding files


def test_directories_are_walked_for_py_and_ipynb_files_only(tree, monkeypatch):
    (tree / "pkg" / "sub").mkdir()
    (tree / "pkg" / "sub" / "deep.py").write_text(LEGACY)
    (tree / "pkg" / "data.json").write_text("{}")
    monkeypatch.chdir(tree)
    assert list(cli_discover.discover(["."], config_excludes.Excludes([]))) == [
        "./pkg/clean.py", "./pkg/legacy.py", "./pkg/sub/deep.py",
    ]


@pytest.mark.parametrize(
    "patterns, expected",
    [
        ([], ["a.py", "build/b.py", "src/build/c.py", "src/gen/d.py", "src/x.py"]),
        (["build"], ["a.py", "src/gen/d.py", "src/x.py"]),
        (["/build"], ["a.py", "src/build/c.py", "src/gen/d.py", "src/x.py"]),
        (["src/gen/"], ["a.py", "build/b.py", "src/build/c.py", "src/x.py"]),
        (["*.py", "!x.py"], ["src/x.py"]),
        (["src/**/*.py"], ["a.py", "build/b.py"]),
        (["**/build/*.py"], ["a.py", "src/gen/d.py", "src/x.py"]),
        (["[ab].py"], ["src/build/c.py", "src/gen/d.py", "src/x.py"]),
        (["[!a].py"], ["a.py"]),
        (["?.py"], []),
        (["a.py/"], ["a.py", "build/b.py", "src/build/c.py", "src/gen/d.py", "src/x.py"]),
    ],
)
def test_gitignore_style_excludes(tmp_path, patterns, expected):
    for rel in ["a.py", "build/b.py", "src/build/c.py", "src/gen/d.py", "src/x.py"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CLEAN)
    found = cli_discover.discover([str(tmp_path)], config_excludes.Excludes(patterns))
    assert sorted(Path(p).relative_to(tmp_path).as_posix() for p in found) == expected


_GLOB_PIECES = st.sampled_from(
    ["a", "b", "*", "**", "?", "/", "[ab]", "[!a]", ".", "x.py", "build", "**/", "!", "#"])
_REL_PATHS = st.lists(st.sampled_from(["a", "b", "ab", "x.py", "build", ".", "*"]),
                      min_size=1, max_size=3).map("/".join)


@given(st.lists(st.lists(_GLOB_PIECES, min_size=1, max_size=3).map("".join), max_size=4),
       _REL_PATHS, st.booleans())
@settings(max_examples=300, deadline=None)
def test_excludes_decide_as_their_patterns_in_order(patterns, relpath, is_dir):
    """Without a ``!`` pattern the patterns are matched as one regex: the same answer
    as taking them one by one, the last that matches deciding."""
    excludes = config_excludes.Excludes(patterns)
    expected = False
    for regex, negate, dir_only in excludes.rules:
        if (is_dir or not dir_only) and regex.match(relpath):
            expected = not negate
    assert excludes.excluded(relpath, is_dir) == expected


_BRACKET_PIECES = st.sampled_from(
    ["a", "b", "z", "-", "]", "[", "!", "^", "\\", "/", "*", "[:digit:]", "[:alpha:]", "1", "."])
_NAMES = ["a", "b", "z", "-", "]", "1", "ab", "a1", "!", "^", ".", "\\", "x.py"]


@given(st.lists(_BRACKET_PIECES, min_size=1, max_size=8).map("".join))
@settings(max_examples=500, deadline=None)
def test_brackets_read_as_git_reads_them(pattern):
    """Any pattern gives a regex (``[z-a]``, an empty range, broke ``re``: a traceback
    for ``--exclude '[z-a]'``); where pathspec (git's rules, without POSIX classes)
    reads one name's pattern, both agree on every name."""
    import warnings

    import pathspec

    excludes = config_excludes.Excludes([pattern])
    ours = [name for name in _NAMES if excludes.excluded(name, False)]
    if "/" in pattern or "[:" in pattern or pattern.lstrip("!").startswith("#"):
        return  # (anchored, classes pathspec does not know, comments)
    if "\\" in pattern:
        return  # (pathspec reads ``[\\]`` as ``[\\\\]``; git itself decides these below)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spec = pathspec.GitIgnoreSpec.from_lines([pattern])
    except Exception:
        return
    assert ours == [name for name in _NAMES if spec.match_file(name)], pattern


_GIT_REPO = []  # a scratch repository, made at the first use
_GIT_NAMES = [name for name in _NAMES if name != "."]  # (git reads ``.`` as the root)


def _git_ignored(pattern):
    """The names of ``_GIT_NAMES`` that git itself ignores under ``pattern``."""
    if not _GIT_REPO:
        import tempfile

        repo = tempfile.mkdtemp(prefix="torch04-git-")
        subprocess.run(["git", "init", "-q", repo], check=True)
        _GIT_REPO.append(repo)
    repo = _GIT_REPO[0]
    with open(os.path.join(repo, ".gitignore"), "w", encoding="utf-8", newline="\n") as f:
        f.write(pattern + "\n")
    done = subprocess.run(
        ["git", "-c", "core.excludesFile=", "check-ignore", "--no-index", "--stdin", "-z"],
        cwd=repo, input="\0".join(_GIT_NAMES) + "\0", capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return set(done.stdout.split("\0")) - {""}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@given(st.lists(_BRACKET_PIECES.filter(lambda p: p != "/"), min_size=1, max_size=6)
       .map("".join).filter(lambda p: "\\" in p))
@settings(max_examples=60, deadline=None)
def test_backslashes_read_as_git_reads_them(pattern):
    """With a backslash (which pathspec reads its own way) git itself is the
    oracle: ``[\\]`` matches nothing, the ``]`` being escaped and the bracket
    never closed; ``[\\\\]`` matches a backslash; ``\\[a]`` the name ``[a]``."""
    if pattern.lstrip("!").startswith("#") or "[:" in pattern:
        return
    excludes = config_excludes.Excludes([pattern])
    ours = {name for name in _GIT_NAMES if excludes.excluded(name, False)}
    assert ours == _git_ignored(pattern), pattern


def test_default_excludes_and_explicit_files(tmp_path):
    for rel in [".venv/lib/x.py", "__pycache__/y.py", "build/z.py", "keep.py"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(LEGACY)
    _, out, _ = torch04("check", "--output-format", "json", ".", cwd=tmp_path)
    assert {r["filename"] for r in json.loads(out)} == {"./keep.py"}
    _, out, _ = torch04("check", "--output-format", "json", "--extend-exclude", "keep.py",
                        "build/z.py", ".", cwd=tmp_path)
    assert {r["filename"] for r in json.loads(out)} == {"build/z.py"}
    _, out, _ = torch04("check", "--output-format", "json", "--exclude", "keep.py", ".",
                        cwd=tmp_path)
    assert {r["filename"] for r in json.loads(out)} == {
        "./.venv/lib/x.py", "./__pycache__/y.py", "./build/z.py"}


# ---------------------------------------------------------------------------
# explain, and the command as installed


def test_explain(capsys):
    from flake8_torch04 import ruledocs
    from flake8_torch04.analysis.registry import all_rules

    assert cli.main(["explain", "tv001"]) == 0
    assert capsys.readouterr().out == ruledocs.explain(all_rules()["TV001"])
    assert cli.main(["explain"]) == 0
    listing = capsys.readouterr().out
    assert listing.splitlines()[0].startswith("TV001  variable-wrap: ")


@pytest.mark.parametrize("command", [["-m", "flake8_torch04"], ["-c", "import sys; from "
                                     "flake8_torch04.cli import main; sys.exit(main())"]])
def test_command_in_a_subprocess(tmp_path, command):
    (tmp_path / "legacy.py").write_text(LEGACY)
    proc = subprocess.run([sys.executable, *command, "check", "legacy.py"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stdout.startswith("legacy.py:4:5: TV001")
    proc = subprocess.run([sys.executable, *command, "explain", "TV002"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("# TV002 (volatile)")


def test_the_command_ends_at_once_only_when_nothing_waits_for_python(tmp_path):
    """``cli._exit_now``: the output is whole and the status kept, and a function
    registered with ``atexit`` (coverage's, say) still runs: then Python exits as usual."""
    (tmp_path / "legacy.py").write_text(LEGACY * 50)
    proc = subprocess.run([sys.executable, "-m", "flake8_torch04", "check", "legacy.py",
                           "--output-format", "json"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert proc.returncode == 1 and len(json.loads(proc.stdout)) >= 50
    assert proc.stderr.startswith("Found ")
    code = ("import atexit, sys\nfrom flake8_torch04.cli import main\n"
            "atexit.register(lambda: print('atexit ran'))\nsys.exit(main())")
    proc = subprocess.run([sys.executable, "-c", code, "check", "legacy.py"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stdout.startswith("legacy.py:4:5: TV001") and proc.stdout.endswith("atexit ran\n")


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("torch04")
    if not script.exists():
        pytest.skip("torch04 console script not installed in this environment")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("torch04 ")


def test_fix_that_would_break_the_code_is_reported_and_not_written(tmp_path, monkeypatch):
    from flake8_torch04.analysis.findings import SAFE, Finding, Fix
    from flake8_torch04.source.text import Edit

    def breaking(tree, lines, filename, codes, **kwargs):
        if not lines or not lines[0].startswith("x"):
            return []
        return [Finding("TV001", 1, 0, "made up", Fix((Edit((1, 0), (1, 1), "(x"),), SAFE))]

    from flake8_torch04.fix import analysis as fix_analysis

    monkeypatch.setattr(fix_analysis, "check", breaking)
    (tmp_path / "a.py").write_text("x = 1\n")
    status, out, err = torch04("check", "--fix", "a.py", cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
    assert err.startswith("a.py: line 1, col 1: TV001 fix not applied: the fix would make "
                          "invalid code: ")
    assert "1 fix not applied (see above)." in out
    assert status == 1


def test_unsafe_fixes_without_fix_only_count(tree):
    status, out, _ = torch04("check", "--unsafe-fixes", "pkg/legacy.py", cwd=tree)
    assert (tree / "pkg" / "legacy.py").read_text() == LEGACY
    assert "pkg/legacy.py:6:4: TV002 [*] `y.volatile`" in out
    assert out.splitlines()[-1].endswith("; 2 fixable with --fix --unsafe-fixes.")


def test_one_file_under_several_names_is_checked_once(tmp_path):
    (tmp_path / "pkg").mkdir()
    target = tmp_path / "pkg" / "train.py"
    target.write_text("from torch.autograd import Variable\nx = Variable(y)\n")
    (tmp_path / "alias.py").symlink_to(target)
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing.py")
    code, out, _ = torch04("check", "pkg/train.py", "./pkg/train.py", "alias.py", ".",
                           "--output-format", "json", cwd=tmp_path)
    records = json.loads(out)
    assert code == 1
    assert [r["filename"] for r in records] == ["pkg/train.py"]


_HEADS = st.lists(
    st.sampled_from([
        b"# -*- coding: latin-1 -*-", b"# coding=utf-8", b"#!/usr/bin/env python",
        b"# vim: set fileencoding=cp1252 :", b"coding", b"x = 1", b"", b"  ", b"\xef\xbb\xbf",
        b"# \xe9", b"s = '\xc3\xa9'", b"# coding: bogus-codec", b"\r",
        b"# -*- coding: utf-8 -*-", b"# coding: UTF_8-unix", b"# coding: utf8", b"\x0c#",
        b"\t# coding:utf-8-sig", b"x = 1  # coding: latin-1", b"# coding: utf-8\r",
    ]),
    max_size=4,
)


@given(_HEADS)
@settings(max_examples=300, deadline=None)
def test_source_encoding_agrees_with_tokenize(lines):
    """The fast path (UTF-8 without ``coding`` in the first two lines, no BOM) says
    what ``tokenize.detect_encoding`` says, and defers to it otherwise; where
    ``detect_encoding`` rejects the first lines as UTF-8, decoding fails as well
    (and ``_decode_error`` reports the same UTF-8 error either way)."""
    import tokenize

    data = b"\n".join(lines) + b"\nx = 1\n"
    try:
        expected = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:  # undecodable: so it is for the fast path too (same message)
        try:
            encoding = document.source_encoding(data)
        except SyntaxError:
            return
        with pytest.raises(UnicodeDecodeError):
            data.decode(encoding)
        return
    assert document.source_encoding(data) == expected


def test_cli_restores_the_gc_threshold():
    import gc

    before = gc.get_threshold()
    torch04("check", "--quiet", "-", stdin=CLEAN)
    assert gc.get_threshold() == before


# ---------------------------------------------------------------------------
# a fix that removes a project's last 0.3 idiom says what later checks will do

#: (a TV148 finding the fixer leaves to a person: a column over two lines, in brackets)
ERA_LEGACY = (
    "import torch\n"
    "from torch.autograd import Variable\n\n"
    "target = Variable(torch.zeros(3))\n"
    "col = torch.randn(3, 1)\n"
    "target[:] = (col * 2 +\n"
    "             col)\n"
    "print(target.sum().data[0])\n"
)


def test_a_fix_that_removes_the_last_03_idiom_says_so(tmp_path):
    (tmp_path / "train.py").write_text(ERA_LEGACY)
    status, out, err = torch04("check", "--fix", "--unsafe-fixes", "--isolated", ".",
                               cwd=tmp_path)
    assert "from torch.autograd import Variable" not in (tmp_path / "train.py").read_text()
    assert "no PyTorch 0.3 idiom is left in the project at ." in err
    assert "target-version = \"0.3\"" in err
    # a later check takes it for modern code: the 0.3 rules are silent, unless told
    (tmp_path / "again.py").write_text("import torch\nx = torch.ones(2)\n")
    status, out, err = torch04("check", "--fix", "--isolated", ".", cwd=tmp_path)
    assert "no PyTorch 0.3 idiom" not in err  # (nothing was 0.3 code any more)


@pytest.mark.parametrize("extra, args", [
    ({"keep.py": "from torch.autograd import Variable\n"}, ()),  # (evidence is left)
    ({}, ("--target-version", "0.3")),  # (the setting decides)
])
def test_no_era_note_where_the_project_stays_03_code(tmp_path, extra, args):
    (tmp_path / "train.py").write_text(ERA_LEGACY)
    for name, text in extra.items():
        (tmp_path / name).write_text(text)
    status, out, err = torch04("check", "--fix", "--unsafe-fixes", "--isolated",
                               "--select", "TV001,TV003", *args, "train.py", cwd=tmp_path)
    assert "Variable" not in (tmp_path / "train.py").read_text()
    assert "no PyTorch 0.3 idiom" not in err


# ---------------------------------------------------------------------------
# a second pass over the fixed files: what they read of the fixed project

TWO_PASS_DIST = (
    "import torch\n"
    "from torch.autograd import Variable\n\n\n"
    "class Normal(object):\n"
    "    def __init__(self, mu=0):\n"
    "        self.mu = Variable(torch.Tensor([mu]))\n\n"
    "    def __repr__(self):\n"
    "        return 'Normal(%.3f)' % self.mu.data[0]\n"
)
#: (``async=``: the module cannot be parsed until TV101 fixes it, so the callers of
#: ``Normal`` are not all in view on the first pass, and ``mu`` is unknown there)
TWO_PASS_MAIN = (
    "import torch\nimport dist\n\n"
    "prior = dist.Normal()\n"
    "x = torch.zeros(2).cuda(async=True)\n"
    "print(prior)\n"
)


def test_a_fix_run_fixes_what_the_fixed_modules_of_the_project_call_for(tmp_path):
    """tcvae (sweep 29): once another module's fixes are written, a finding appears
    that the first pass could not see; the same run fixes it, and what it reports
    as remaining is what a later check finds."""
    (tmp_path / "dist.py").write_text(TWO_PASS_DIST)
    (tmp_path / "main.py").write_text(TWO_PASS_MAIN)
    status, out, err = torch04("check", "--fix", "--unsafe-fixes", "--isolated", ".",
                               cwd=tmp_path)
    assert "TV144: 1" in out and "Found 0 remaining" in out, out
    assert "self.mu.data[0].item()" in (tmp_path / "dist.py").read_text()
    status, out, err = torch04("check", "--isolated", ".", cwd=tmp_path)
    assert status == 0 and "Found 0 findings" in out, out
