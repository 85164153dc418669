"""``torch04 check`` output formats and workflow flags, through the real command:
--output-format concise/full/json/json-lines/github/gitlab/sarif/junit, --color and
NO_COLOR, --statistics, --show-fixes, --exit-zero, --add-noqa, --diff with git apply,
the progress bar and --jobs."""
import io
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_cli import LEGACY, torch04

from flake8_torch04 import cli
from flake8_torch04.config import noqa as config_noqa

DATA = Path(__file__).resolve().parent / "data"
LONG = textwrap.dedent(
    """\
    import numpy as np
    import torch
    from torch.autograd import Variable

    x = Variable(torch.from_numpy(x_np[np.newaxis, :, first_index:last_index]).float())
    y = Variable(torch.from_numpy(y_np[np.newaxis, :, first_index:last_index]), volatile=True)
    """
)


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "legacy.py").write_text(LEGACY)
    (tmp_path / "pkg" / "clean.py").write_text("import torch\n")
    return tmp_path


# ---------------------------------------------------------------------------
# concise, full, colour


def test_concise_is_the_default_and_text_its_old_name(tree):
    _, default, _ = torch04("check", "pkg", cwd=tree)
    _, concise, _ = torch04("check", "--output-format", "concise", "pkg", cwd=tree)
    _, text, _ = torch04("check", "--output-format", "text", "pkg", cwd=tree)
    assert default == concise == text
    assert default.splitlines()[0].startswith("pkg/legacy.py:4:5: TV001 [*] `Variable(")
    assert "\x1b[" not in default  # not a terminal: no colour


def test_full_groups_by_file_with_source_caret_fix_and_applicability(tree):
    status, out, _ = torch04("check", "--output-format", "full", "pkg", cwd=tree)
    assert status == 1
    assert out.count("pkg/legacy.py:\n") == 1  # one header for the file
    assert "pkg/clean.py" not in out
    assert "\n".join([
        "  4:5: TV001 [*] `Variable(torch.ones(2))` is a no-op wrapper since PyTorch 0.4; "
        "use `torch.ones(2)`",
        "      |",
        "    4 | x = Variable(torch.ones(2))",
        "      |     ^^^^^^^^^^^^^^^^^^^^^^^",
        "      = safe fix, applied by --fix",
        "        - x = Variable(torch.ones(2))",
        "        + x = torch.ones(2)",
    ]) in out
    assert "= unsafe fix, applied by --fix --unsafe-fixes" in out
    assert "= no automatic fix: edit by hand as the message says" in out
    _, out, _ = torch04("check", "--output-format", "full", "--unsafe-fixes", "pkg", cwd=tree)
    assert "= unsafe fix, applied by --fix --unsafe-fixes" in out


def test_colour_only_when_asked_or_on_a_terminal_without_no_color(tree, monkeypatch):
    _, out, _ = torch04("check", "--color", "always", "pkg", cwd=tree)
    assert "\x1b[1;31mTV001\x1b[0m" in out
    _, out, _ = torch04("check", "--color", "always", "--output-format", "json", "pkg",
                        cwd=tree)
    assert "\x1b[" not in out

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    def run(*args):
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = Terminal(), io.StringIO()
        old = os.getcwd()
        os.chdir(tree)
        try:
            cli.main(["check", *args, "pkg"])
            return sys.stdout.getvalue()
        finally:
            os.chdir(old)
            sys.stdout, sys.stderr = saved

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert "\x1b[" in run()
    assert "\x1b[" in run("--output-format", "full")
    assert "\x1b[" not in run("--color", "never")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run()
    assert "\x1b[" in run("--color", "always")  # the command line beats NO_COLOR


def test_colour_on_a_real_terminal(tree):
    pty = pytest.importorskip("pty")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm"
    script = f"import sys; from flake8_torch04 import cli; sys.exit(cli.main({['check', 'pkg']!r}))"

    def run(env):
        leader, follower = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-c", script], cwd=tree, env=env,
                                stdout=follower, stderr=subprocess.DEVNULL)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=60)
        os.close(leader)
        return b"".join(chunks).decode()

    assert "\x1b[1;31mTV001" in run(env)
    assert "\x1b[" not in run({**env, "NO_COLOR": "1"})


# ---------------------------------------------------------------------------
# machine formats


def test_json_lines(tree):
    status, out, err = torch04("check", "--output-format", "json-lines", "pkg", cwd=tree)
    _, whole, _ = torch04("check", "--output-format", "json", "pkg", cwd=tree)
    assert status == 1
    assert [json.loads(line) for line in out.splitlines()] == json.loads(whole)
    assert "Found 4 findings" in err


def test_github_paths_are_relative_without_dot_slash(tree):
    _, out, _ = torch04("check", "--output-format", "github", ".", cwd=tree)
    assert out.splitlines()[0].startswith("::warning file=pkg/legacy.py,line=4,col=5,")
    _, out, _ = torch04("check", "--output-format", "github", str(tree / "pkg"), cwd=tree)
    assert out.splitlines()[0].startswith("::warning file=pkg/legacy.py,")


def test_gitlab_code_quality(tree):
    status, out, err = torch04("check", "--output-format", "gitlab", ".", cwd=tree)
    assert status == 1
    records = json.loads(out)
    assert len(records) == 4
    first = records[0]
    assert set(first) == {"description", "check_name", "fingerprint", "severity", "location"}
    assert first["check_name"] == "TV001"
    assert first["location"] == {"path": "pkg/legacy.py", "lines": {"begin": 4, "end": 4}}
    assert first["description"].startswith("TV001 `Variable(torch.ones(2))`")
    assert len({r["fingerprint"] for r in records}) == 4
    # the fingerprint follows the code, not its line number
    path = tree / "pkg" / "legacy.py"
    path.write_text("# a new first line\n" + LEGACY)
    _, moved, _ = torch04("check", "--output-format", "gitlab", ".", cwd=tree)
    assert [r["fingerprint"] for r in json.loads(moved)] == [r["fingerprint"] for r in records]


#: TV002's fix decorates ``evaluate()``: its edit starts 17 lines above the finding
FAR_FIX = (
    "import torch\nfrom torch.autograd import Variable\n\n\ndef evaluate(model, data):\n"
    "    total = 0\n" + "".join(f"    total += {i}\n" for i in range(15))
    + "    x = Variable(data, volatile=True)\n    return model(x)\n"
)


def test_a_fix_far_above_its_finding_still_shows_the_flagged_line(tmp_path):
    """The snippet of a finding whose fix starts more than ``SNIPPET_LINES`` above
    it is the finding's own line: it was the fix's first twelve lines, without the
    flagged line (``full`` showed no caret; ``gitlab`` raised IndexError)."""
    (tmp_path / "eval.py").write_text(FAR_FIX)
    status, out, err = torch04("check", "--output-format", "gitlab", "eval.py", cwd=tmp_path)
    assert status == 1, err
    assert [r["check_name"] for r in json.loads(out)] == ["TV001", "TV002"]
    status, out, err = torch04("check", "--output-format", "full", "eval.py", cwd=tmp_path)
    tv002 = out[out.index("TV002"):]
    assert "22 |     x = Variable(data, volatile=True)" in tv002
    assert re.search(r"\|\s{24}\^{13}\n", tv002), tv002  # the caret under volatile=True
    assert "total += 0" not in tv002


def test_sarif_validates_against_the_sarif_2_1_0_schema(tree):
    jsonschema = pytest.importorskip("jsonschema")
    (tree / "bad.py").write_text("x = (\n")
    status, out, _ = torch04("check", "--output-format", "sarif", "--unsafe-fixes", ".",
                             cwd=tree)
    assert status == 1
    log = json.loads(out)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(log, schema)
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "torch04"
    assert [r["id"] for r in run["tool"]["driver"]["rules"]][:2] == ["TV001", "TV002"]
    result = run["results"][0]
    assert result["ruleId"] == "TV001"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pkg/legacy.py"
    assert location["region"] == {"startLine": 4, "startColumn": 5, "endLine": 4,
                                  "endColumn": 28}
    assert result["fixes"][0]["artifactChanges"][0]["replacements"][0][
        "insertedContent"] == {"text": "torch.ones(2)"}
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["level"] == "error"
    assert notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.py"
    # a broken log fails the schema (the test can fail)
    del result["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, schema)


def test_junit(tree):
    (tree / "bad.py").write_text("x = (\n")
    status, out, _ = torch04("check", "--output-format", "junit", ".", cwd=tree)
    assert status == 1
    root = ET.fromstring(out.split("\n", 1)[1])
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "4", "1")
    suites = {s.get("name"): s for s in root}
    assert set(suites) == {"bad.py", "pkg/clean.py", "pkg/legacy.py"}
    cases = suites["pkg/legacy.py"].findall("testcase")
    assert [c.get("name") for c in cases] == ["torch04.TV001", "torch04.TV001",
                                              "torch04.TV002", "torch04.TV002"]
    assert cases[0].find("failure").text.startswith("pkg/legacy.py:4:5: TV001 `Variable(")
    assert suites["pkg/clean.py"].find("testcase").find("failure") is None
    assert suites["bad.py"].find("testcase/error") is not None


@pytest.mark.parametrize("fmt", ["json", "json-lines", "gitlab", "sarif", "junit"])
def test_machine_formats_keep_stdout_parseable(tree, fmt):
    _, out, err = torch04("check", "--output-format", fmt, ".", cwd=tree)
    assert "Found 4 findings" in err
    assert "Found 4 findings" not in out and "findings in" not in out


# ---------------------------------------------------------------------------
# messages keep the whole suggestion


def test_suggestion_is_never_cut(tmp_path):
    (tmp_path / "long.py").write_text(LONG)
    _, out, _ = torch04("check", "--output-format", "json", "long.py", cwd=tmp_path)
    wraps = [r for r in json.loads(out) if r["code"] == "TV001"]
    assert [r["message"] for r in wraps] == [
        "`Variable(torch.from_numpy(x_np[np.new...` is a no-op wrapper since PyTorch 0.4; "
        "use `torch.from_numpy(x_np[np.newaxis, :, first_index:last_index]).float()`",
        "`Variable(torch.from_numpy(y_np[np.new...` is a no-op wrapper since PyTorch 0.4; "
        "use `torch.from_numpy(y_np[np.newaxis, :, first_index:last_index])` (see TV002 "
        "for `volatile`)",
    ]
    assert wraps[1]["fix"] is None  # the message is the only place that says it


def test_no_fixture_finding_cuts_its_suggestion():
    from flake8_torch04.analysis.run import check_source

    fixtures = Path(__file__).resolve().parent / "fixtures"
    seen = 0
    for path in sorted(fixtures.glob("TV*.py")):
        try:
            findings = check_source(path.read_text(encoding="utf-8"), str(path))
        except SyntaxError:  # (TV101's fixture: tests/test_rescue.py)
            continue
        for finding in findings:
            for suggestion in re.findall(r"(?:use|key the dict on|test) `([^`]*)`",
                                         finding.message):
                seen += 1
                assert not suggestion.endswith("..."), (path.name, finding)
    assert seen > 50


# ---------------------------------------------------------------------------
# --statistics, --show-fixes, --exit-zero


def test_statistics(tree):
    status, out, _ = torch04("check", "--statistics", "pkg", cwd=tree)
    assert status == 1
    assert out.splitlines()[:2] == ["2\tTV001\t[-] variable-wrap", "2\tTV002\t[ ] volatile"]
    _, out, err = torch04("check", "--statistics", "--output-format", "json", "pkg", cwd=tree)
    assert json.loads(out) == [
        {"code": "TV001", "name": "variable-wrap", "count": 2, "fixable": 1},
        {"code": "TV002", "name": "volatile", "count": 2, "fixable": 0},
    ]


def test_show_fixes(tree):
    status, out, _ = torch04("check", "--fix", "--unsafe-fixes", "--show-fixes", "pkg",
                             cwd=tree)
    assert "Fixed 2 findings:\n- pkg/legacy.py:\n    1 \u00d7 TV001 (variable-wrap)\n" \
           "    1 \u00d7 TV002 (volatile)\n" in out
    _, out, err = torch04("check", "--diff", "--show-fixes", "pkg", cwd=tree)
    assert "No fixes would be applied." in err  # (all applied above)


def test_show_fixes_with_diff(tree):
    _, out, err = torch04("check", "--diff", "--show-fixes", "pkg", cwd=tree)
    assert "Would fix 1 finding:\n- pkg/legacy.py:\n    1 \u00d7 TV001 (variable-wrap)\n" in err
    assert out.startswith("--- a/pkg/legacy.py\n")


def test_exit_zero(tree):
    assert torch04("check", "--exit-zero", "pkg", cwd=tree)[0] == 0
    assert torch04("check", "--exit-zero", "--diff", "pkg", cwd=tree)[0] == 0
    (tree / "bad.py").write_text("x = (\n")
    assert torch04("check", "--exit-zero", "bad.py", cwd=tree)[0] == 1
    assert torch04("check", "--exit-zero", "--select", "TV010", "pkg", cwd=tree)[0] == 2


# ---------------------------------------------------------------------------
# --diff and git apply


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("target", [".", "./pkg", "pkg/legacy.py", "ABS"])
def test_diff_is_accepted_by_git_apply(tree, target):
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    (tree / "pkg" / "crlf.py").write_bytes(
        b"from torch.autograd import Variable\r\nx = Variable(t)\r\n")
    (tree / "pkg" / "nonl.py").write_bytes(b"from torch.autograd import Variable\nx = Variable(t)")
    if target == "ABS":
        target = str(tree)
    status, diff, _ = torch04("check", "--diff", "--unsafe-fixes", target, cwd=tree)
    assert status == 1
    assert "a/./" not in diff and "b/./" not in diff
    patch = tree / "fix.patch"
    patch.write_bytes(diff.encode())
    proc = subprocess.run(["git", "apply", "-v", str(patch)], cwd=tree, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    # the patched tree is what --fix writes
    patched = (tree / "pkg" / "legacy.py").read_text()
    torch04("check", "--fix", "--unsafe-fixes", "pkg/legacy.py", cwd=tree)
    assert (tree / "pkg" / "legacy.py").read_text() == patched
    assert torch04("check", "--diff", "--unsafe-fixes", target, cwd=tree)[1] == ""


# ---------------------------------------------------------------------------
# --add-noqa


NOQA_CASES = [
    # (before, after)
    ("x = Variable(t)\n", "x = Variable(t)  # noqa: TV001\n"),
    ("x = Variable(t)  # keep it\n", "x = Variable(t)  # keep it  # noqa: TV001\n"),
    ("x = Variable(t)  # noqa: E501\n", "x = Variable(t)  # noqa: E501, TV001\n"),
    ("x = Variable(t)  # noqa:E501,W291 why\n", "x = Variable(t)  # noqa: E501, W291, TV001 why\n"),
    ("y = Variable(x, volatile=True)\n", "y = Variable(x, volatile=True)  # noqa: TV001, TV002\n"),
    # inside a multi-line string's statement: after the closing quotes
    ('s = """a\n%s""" % Variable(t)\n', 's = """a\n%s""" % Variable(t)  # noqa: TV001\n'),
    ('s = f"""{Variable(t)}\nmore\n"""\n', 's = f"""{Variable(t)}\nmore\n"""  # noqa: TV001\n'),
    # a backslash continuation: on the last line of the logical line
    ("z = Variable(t) + \\\n    1\n", "z = Variable(t) + \\\n    1  # noqa: TV001\n"),
    # inside brackets: on the finding's own line
    ("f(1,\n  Variable(t),\n  2)\n", "f(1,\n  Variable(t),  # noqa: TV001\n  2)\n"),
    # CRLF kept
    ("x = Variable(t)\r\n", "x = Variable(t)  # noqa: TV001\r\n"),
    # no newline at the end
    ("x = Variable(t)", "x = Variable(t)  # noqa: TV001"),
]


@pytest.mark.parametrize("body, expected", NOQA_CASES)
def test_add_noqa(tmp_path, body, expected):
    head = "from torch.autograd import Variable\n"
    if "\r\n" in body:
        head = head.replace("\n", "\r\n")
    path = tmp_path / "m.py"
    path.write_bytes((head + body).encode())
    status, out, err = torch04("check", "--add-noqa", "--select", "TV001,TV002", "m.py",
                               cwd=tmp_path)
    assert (status, err) == (0, "")
    assert out.startswith("Added ")
    assert path.read_bytes().decode() == head + expected
    # the comments silence every finding, for torch04 and (below) flake8
    assert torch04("check", "--select", "TV001,TV002", "m.py", cwd=tmp_path)[0] == 0
    assert torch04("check", "--add-noqa", "m.py", cwd=tmp_path)[1].startswith("Added 0 ")


def test_add_noqa_agrees_with_flake8(tmp_path):
    body = "".join(before for before, _ in NOQA_CASES if "\r" not in before
                   and not before.endswith(")")) + "x = 1\n"
    path = tmp_path / "m.py"
    path.write_text("from torch.autograd import Variable\n" + body)
    status, out, _ = torch04("check", "--add-noqa", "m.py", cwd=tmp_path)
    assert status == 0
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "TV", "m.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_add_noqa_baseline_then_rule_by_rule(tree):
    status, out, _ = torch04("check", "--add-noqa", "pkg", cwd=tree)
    assert out == "Added 4 noqa codes in 1 file (TV001: 2, TV002: 2).\n"
    assert torch04("check", "pkg", cwd=tree)[0] == 0
    text = (tree / "pkg" / "legacy.py").read_text()
    # to work on one rule, drop its codes from the comments and fix
    lines = [config_noqa.NOQA_INLINE.sub("# noqa: TV002", line) if "TV002" in line
             else line.split("  # noqa")[0] for line in text.splitlines()]
    (tree / "pkg" / "legacy.py").write_text("\n".join(lines) + "\n")
    status, out, _ = torch04("check", "pkg", cwd=tree)
    assert status == 1
    assert {line.split()[1] for line in out.splitlines()[:-1]} == {"TV001"}


def test_add_noqa_conflicts(tree):
    assert torch04("check", "--add-noqa", "--fix", "pkg", cwd=tree)[0] == 2
    assert torch04("check", "--add-noqa", "-", cwd=tree, stdin=LEGACY)[0] == 2


def test_add_noqa_in_a_notebook(tmp_path):
    notebook = {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                   "outputs": [], "source": ["%matplotlib inline\n",
                                             "from torch.autograd import Variable\n",
                                             "x = Variable(t)"]}],
        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5,
    }
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    status, out, _ = torch04("check", "--add-noqa", "n.ipynb", cwd=tmp_path)
    assert status == 0
    cell = json.loads(path.read_text())["cells"][0]
    assert cell["source"][-1] == "x = Variable(t)  # noqa: TV001"
    assert cell["source"][0] == "%matplotlib inline\n"


# ---------------------------------------------------------------------------
# --jobs and the progress bar


def _many(root, n=24):
    for i in range(n):
        sub = root / f"d{i % 3}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"m{i:02}.py").write_text(LEGACY if i % 2 else LEGACY + "y.volatile = 1\n")


@pytest.mark.parametrize("fmt", ["concise", "json"])
def test_jobs_give_the_same_output_in_the_same_order(tmp_path, fmt):
    _many(tmp_path)
    serial = torch04("check", "-j", "1", "--output-format", fmt, ".", cwd=tmp_path)
    parallel = torch04("check", "-j", "2", "--output-format", fmt, ".", cwd=tmp_path)
    default = torch04("check", "--output-format", fmt, ".", cwd=tmp_path)
    assert serial == parallel == default
    assert serial[0] == 1 and serial[1].count("TV00") >= 24 * 4


def test_jobs_fix_writes_every_file(tmp_path):
    _many(tmp_path)
    _many(tmp_path / "copy")
    torch04("check", "-j", "1", "--fix", "--unsafe-fixes", "copy", cwd=tmp_path)
    status, out, _ = torch04("check", "-j", "2", "--fix", "--unsafe-fixes", ".", "--extend-exclude",
                             "copy", cwd=tmp_path)
    assert "in 24 files" in out
    for path in (tmp_path / "copy").rglob("*.py"):
        assert path.read_text() == (tmp_path / path.relative_to(tmp_path / "copy")).read_text()


def test_jobs_must_be_positive(tmp_path):
    assert torch04("check", "-j", "0", ".", cwd=tmp_path)[0] == 2


def test_progress_bar_on_a_terminal_after_a_second(tmp_path, monkeypatch):
    _many(tmp_path, 4)
    ticks = iter(range(0, 1000))
    monkeypatch.setattr("time.monotonic", lambda: float(next(ticks)))

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    def run(*args, err_cls=Terminal):
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = io.StringIO(), err_cls()
        old = os.getcwd()
        os.chdir(tmp_path)
        try:
            cli.main(["check", "-j", "1", *args, "."])
            return sys.stderr.getvalue()
        finally:
            os.chdir(old)
            sys.stdout, sys.stderr = saved

    err = run()
    assert "\r[" in err and "4/4 files" in err
    assert err.endswith("\r\x1b[K")  # erased at the end
    assert run(err_cls=io.StringIO) == ""  # piped: none
    assert "\r[" not in run("-q")
    ticks = iter([0.0] * 1000)  # a fast run: none
    monkeypatch.setattr("time.monotonic", lambda: next(ticks))
    assert run() == ""


def test_remove_noqa_takes_up_one_rule_of_the_baseline(tree):
    path = tree / "pkg" / "legacy.py"
    torch04("check", "--add-noqa", "pkg", cwd=tree)
    baselined = path.read_text()
    status, out, _ = torch04("check", "--remove-noqa", "TV002", "pkg", cwd=tree)
    assert (status, out) == (0, "Removed 2 noqa codes in 1 file (TV002: 2).\n")
    assert path.read_text() == baselined.replace(", TV002", "").replace("  # noqa: TV002", "")
    status, out, _ = torch04("check", "pkg", cwd=tree)
    assert status == 1 and {line.split()[1] for line in out.splitlines()[:-1]} == {"TV002"}
    torch04("check", "--remove-noqa", "TV", "pkg", cwd=tree)
    assert path.read_text() == LEGACY
    assert torch04("check", "--remove-noqa", "TV010", "pkg", cwd=tree)[0] == 2
    assert torch04("check", "--remove-noqa", "TV001", "--fix", "pkg", cwd=tree)[0] == 2


# ---------------------------------------------------------------------------
# start-up: what an editor save and a plain run import


def _imported(code, cwd):
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


LAZY = {"json", "multiprocessing", "pathspec", "tomllib", "tomli", "configparser",
        "xml.etree.ElementTree", "hashlib", "flake8_torch04.config.settings",
        "flake8_torch04.cli.output", "flake8_torch04.fix.addnoqa"}


def test_the_plugin_imports_none_of_the_command_s_machinery(tmp_path):
    (tmp_path / "m.py").write_text(LEGACY)
    code = textwrap.dedent("""\
        import ast, sys
        from flake8_torch04.plugin import Plugin
        text = open("m.py").read()
        assert list(Plugin(ast.parse(text), text.splitlines(True), "m.py").run())
        print(" ".join(sys.modules))
        """)
    assert not _imported(code, tmp_path) & LAZY


def test_a_plain_run_imports_only_what_it_needs(tmp_path):
    (tmp_path / "m.py").write_text(LEGACY)
    code = textwrap.dedent("""\
        import sys
        from flake8_torch04 import cli
        out = sys.stdout
        sys.stdout = open("out.txt", "w")
        cli.main(["check", "-j", "4", "m.py"])
        sys.stdout.close()
        out.write(" ".join(sys.modules))
        """)
    imported = _imported(code, tmp_path)
    assert "flake8_torch04.config.settings" in imported
    assert not imported & {"json", "multiprocessing", "pathspec", "tomllib", "tomli",
                           "configparser", "xml.etree.ElementTree", "hashlib"}
    assert "m.py:4:5: TV001" in (tmp_path / "out.txt").read_text()


def test_jobs_fall_back_to_one_process_when_processes_cannot_start(tmp_path, monkeypatch):
    import multiprocessing

    _many(tmp_path)
    expected = torch04("check", "-j", "1", ".", cwd=tmp_path)

    def no_pool(*args, **kwargs):
        raise OSError("no semaphores here")

    monkeypatch.setattr(multiprocessing, "Pool", no_pool)
    assert torch04("check", "-j", "2", ".", cwd=tmp_path) == expected


def test_findings_have_their_source_lines_only_for_the_formats_that_show_them(tree):
    """``Options.snippets`` (on for ``full`` and ``gitlab``): without it a finding has no
    ``source`` and ``span_line`` 0, and nothing else differs."""
    from flake8_torch04.analysis.registry import gates
    from flake8_torch04.pipeline import Options, check_file

    path = str(tree / "pkg" / "legacy.py")
    with_lines = check_file(path, Options(tuple(gates())))
    without = check_file(path, Options(tuple(gates()), snippets=False))
    assert with_lines.findings and all(loc.source for loc in with_lines.findings)
    assert all(loc.source == () and loc.span_line == 0 for loc in without.findings)
    assert [loc._replace(source=(), span_line=0) for loc in with_lines.findings] == \
        without.findings
