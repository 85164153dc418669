"""TV101: files that do not parse because of ``async=``, through the real ``torch04`` command.

The keywords are found in the tokens, reported at their own positions, and
the file with them renamed is checked by every other selected rule, whose
findings are placed in the original file; ``--fix`` writes the renames and
the other fixes in one run.
"""
import ast
import json
import textwrap

import pytest
from test_cli import torch04

from flake8_torch04.analysis.rescue import NEW, Rescue, async_keywords, rescue

LEGACY = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable

    x = torch.ones(2)
    y = Variable(x.cuda(async=True)).to('cpu', async=True); z = Variable(y)
    y.backward(torch.ones(2), retain_variables=True)
    """
)
FIXED = textwrap.dedent(
    """\
    import torch

    x = torch.ones(2)
    y = x.cuda(non_blocking=True).to('cpu', non_blocking=True); z = y.detach()
    y.backward(torch.ones(2), retain_graph=True)
    """
)


@pytest.fixture
def legacy(tmp_path):
    (tmp_path / "legacy.py").write_text(LEGACY)
    return tmp_path


def test_check_reports_async_and_the_rest_of_the_file_in_original_columns(legacy):
    status, out, _ = torch04("check", "legacy.py", cwd=legacy)
    assert status == 1
    found = [line.split(" ", 2)[:2] for line in out.splitlines()[:-1]]
    assert found == [
        ["legacy.py:5:5:", "TV001"],
        ["legacy.py:5:21:", "TV101"],
        ["legacy.py:5:44:", "TV101"],
        ["legacy.py:5:61:", "TV001"],
        ["legacy.py:6:27:", "TV102"],
    ]
    line = LEGACY.splitlines()[4]
    assert line[20:25] == "async" and line[43:48] == "async" and line[60:68] == "Variable"


def test_json_positions_and_edits_are_the_original_files(legacy):
    status, out, _ = torch04("check", "--output-format", "json", "legacy.py", cwd=legacy)
    records = json.loads(out)
    last = [r for r in records if r["code"] == "TV001"][-1]
    assert (last["line"], last["column"], last["end_column"]) == (5, 61, 72)
    assert last["fix"]["edits"] == [
        {"line": 5, "column": 61, "end_line": 5, "end_column": 72,
         "content": "y.detach()"}]
    first_async = [r for r in records if r["code"] == "TV101"][0]
    assert first_async["fix"]["edits"] == [
        {"line": 5, "column": 21, "end_line": 5, "end_column": 26, "content": "non_blocking"}]


def test_fix_writes_non_blocking_and_the_other_fixes_in_one_go(legacy):
    status, out, err = torch04("check", "--fix", "legacy.py", cwd=legacy)
    assert (legacy / "legacy.py").read_text() == FIXED
    assert "TV101: 2" in out
    assert status == 0, out + err
    status, out, _ = torch04("check", "--fix", "legacy.py", cwd=legacy)
    assert (legacy / "legacy.py").read_text() == FIXED
    assert status == 0


def test_fix_select_tv101_renames_only(legacy):
    status, out, _ = torch04("check", "--fix", "--select", "TV101", "legacy.py", cwd=legacy)
    assert (legacy / "legacy.py").read_text() == LEGACY.replace("async=", "non_blocking=")
    assert status == 0


def test_diff_shows_the_renames(legacy):
    status, out, _ = torch04("check", "--diff", "legacy.py", cwd=legacy)
    assert "+y = x.cuda(non_blocking=True).to('cpu', non_blocking=True); z = y.detach()" in out
    assert (legacy / "legacy.py").read_text() == LEGACY


def test_without_tv101_the_file_cannot_be_parsed_as_before(legacy):
    status, out, err = torch04("check", "--select", "TV001,TV102", "legacy.py", cwd=legacy)
    assert ("legacy.py: cannot parse: invalid syntax (line 5); it has `async=` keywords: "
            "select TV101 to check it") in err
    assert "TV001" not in out


def test_a_file_that_still_does_not_parse_is_reported_as_before(tmp_path):
    (tmp_path / "bad.py").write_text("import torch\nx.cuda(async=True)\nprint 'hello'\n")
    (tmp_path / "param.py").write_text("def copy(x, async=False):\n    return x\n")
    status, out, err = torch04("check", ".", cwd=tmp_path)
    errors = sorted(err.splitlines())
    assert errors[0] == "./bad.py: cannot parse: invalid syntax (line 2)"  # as without TV101
    assert errors[1] == "./param.py: cannot parse: invalid syntax (line 1)"
    status, out, err = torch04("check", "--fix", ".", cwd=tmp_path)
    assert (tmp_path / "bad.py").read_text().count("async=") == 1


def test_noqa_keeps_the_keyword_and_the_other_findings_are_reported(tmp_path):
    source = ("import torch\nx = t.cuda(async=True)  # noqa: TV101\n"
              "y.backward(retain_variables=True)\n")
    (tmp_path / "a.py").write_text(source)
    status, out, _ = torch04("check", "--fix", "a.py", cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == source
    assert "a.py:3:12: TV102" in out
    assert not [line for line in out.splitlines() if ": TV101 " in line]


@pytest.mark.parametrize("source, sites", [
    ("f(async=True)\n", [(1, 2)]),
    ("f(x, async = True)\n", [(1, 5)]),
    ("f(\n    x,\n    async=True,\n)\n", [(3, 4)]),
    ("@dec(async=1)\ndef g(): pass\n", [(1, 5)]),
    ("a[0](async=1)(async=2)\n", [(1, 5), (1, 14)]),
    ("'{}'.format(async=1)\n", [(1, 12)]),
    ("def f(async=True): pass\n", []),  # a parameter: renaming it changes the callers
    ("class A(async=1): pass\n", []),
    ("f(async == 1)\n", []),
    ("x = [async, b]\n", []),
    ("f((async=1))\n", []),
    ("if (async=1): pass\n", []),
    ("f(lambda async=1: 0)\n", []),
    ("f(x, async_=1)\n", []),
    ("'f(async=1)'  # f(async=1)\n", []),
    ("f(async=1\n", []),  # the tokenizer fails at the end: nothing to rescue
])
def test_async_keywords(source, sites):
    assert async_keywords(source) == sites


def test_columns_map_back_past_each_renamed_keyword():
    text = "f(async=1, g(async=2), x)\n"
    found = Rescue(text, async_keywords(text))
    assert found.text == "f(non_blocking=1, g(non_blocking=2), x)\n"
    new = found.text
    assert found.original_col(1, new.index("g(")) == text.index("g(")
    assert found.original_col(1, new.index("x)")) == text.index("x)")
    assert found.original_col(1, 0) == 0
    assert found.original_col(1, 2) == 2  # the keyword itself
    assert found.original_col(1, 2 + len(NEW)) == 2 + len("async")  # its end
    assert found.original_col(2, 9) == 9  # another line


def test_rescue_needs_a_text_that_parses_once_renamed():
    assert rescue("x.cuda(async=True)\n", ast.parse).text == "x.cuda(non_blocking=True)\n"
    assert rescue("x.cuda(async=True)\nprint 'a'\n", ast.parse) is None
    assert rescue("x = 1\n", ast.parse) is None


def test_crlf_line_endings_are_kept(tmp_path):
    (tmp_path / "a.py").write_bytes(b"import torch\r\nx = t.cuda(async=True)\r\n")
    torch04("check", "--fix", "a.py", cwd=tmp_path)
    assert (tmp_path / "a.py").read_bytes() == b"import torch\r\nx = t.cuda(non_blocking=True)\r\n"


def test_flake8_sees_only_e999_until_torch04_renames_the_keywords(legacy):
    import subprocess
    import sys

    def flake8():
        proc = subprocess.run([sys.executable, "-m", "flake8", "--select=E999,TV", "legacy.py"],
                              cwd=legacy, capture_output=True, text=True, timeout=120)
        return [line.split(" ", 2)[1] for line in proc.stdout.splitlines()]

    assert flake8() == ["E999"]
    torch04("check", "--fix", "--select", "TV101", "legacy.py", cwd=legacy)
    assert flake8() == ["TV001", "TV001", "TV102"]  # TV1xx codes are on in flake8 too


@pytest.mark.parametrize("source, rescued", [
    ("def gpu(x):\n    return x.cuda(async=True)\n", True),  # a helper: torch's method
    ("def copy(dst, src):\n    dst.copy_(src, async=True)\n", True),
    ("import torch\nx = to_var(t, async=True)\n", True),  # a torch file: the project's own
    ("from torch.autograd import Variable\nv = Variable(t).cuda(async=True)\n", True),
    ("client.zk2zk(async=True)\n", False),  # another library's async: not non_blocking
    ("import zmq\nx.cuda(async=True)\nsock.send(msg, async=True)\n", False),
])
def test_only_torchs_async_keywords_are_rescued(source, rescued):
    assert (rescue(source, ast.parse) is not None) == rescued
