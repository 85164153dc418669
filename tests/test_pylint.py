"""The pylint plugin reports what flake8 reports, through real pylint and real flake8."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pylint")

from flake8_torch04.analysis.registry import all_rules  # noqa: E402
from flake8_torch04.pylint import message_id  # noqa: E402
from flake8_torch04.config.select import DEFAULT_IGNORE  # noqa: E402

ROOT = Path(__file__).parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SYMBOLS = ",".join(rule.name for rule in all_rules().values())


def pylint(*args, cwd=ROOT):
    proc = subprocess.run(
        [sys.executable, "-m", "pylint", "--load-plugins=flake8_torch04.pylint",
         "--disable=all", f"--enable={SYMBOLS}", "--output-format=json", "--persistent=n",
         "--rcfile=/dev/null", *args],
        capture_output=True, text=True, cwd=cwd,
    )
    assert proc.returncode != 32, proc.stderr  # 32: pylint's usage error
    return {(Path(m["path"]).name, m["line"], m["column"] + 1, m["message"], m["symbol"])
            for m in json.loads(proc.stdout or "[]")
            if m["symbol"] != "syntax-error" or any("syntax-error" in a for a in args)}


def flake8(*args, cwd=ROOT):
    proc = subprocess.run(
        # (``--select=TV`` selects the codes off by default too, as in flake8: the
        # comparison is with pylint's default selection, without them)
        [sys.executable, "-m", "flake8", "--isolated", "--select=TV",
         f"--extend-ignore={','.join(DEFAULT_IGNORE)}",
         "--format=%(path)s\t%(row)d\t%(col)d\t%(code)s %(text)s", *args],
        capture_output=True, text=True, cwd=cwd,
    )
    assert proc.returncode in (0, 1), proc.stderr
    found = set()
    for line in proc.stdout.splitlines():
        path, row, col, message = line.split("\t")
        found.add((Path(path).name, int(row), int(col), message))
    return found


def test_message_ids_follow_pylint_s_scheme():
    ids = {code: message_id(code) for code in all_rules()}
    assert ids["TV001"] == "W9001" and ids["TV006"] == "W9006"
    assert len(set(ids.values())) == len(ids)
    for code, msgid in ids.items():
        assert msgid[0] in "EW" and msgid[1:] == "9" + code[2:]


def test_pylint_reports_what_flake8_reports_on_every_fixture():
    files = sorted(str(p.relative_to(ROOT)) for p in FIXTURES.glob("TV*.py"))
    theirs = flake8(*files)
    ours = pylint(*files)
    assert theirs, "flake8 found nothing: the comparison would prove nothing"
    assert {(p, line, col, msg) for p, line, col, msg, _ in ours} == theirs
    # each message carries its rule's symbol
    names = {rule.code: rule.name for rule in all_rules().values()}
    for _, _, _, message, symbol in ours:
        assert symbol == names[message[:5]]


def test_pylint_reports_what_flake8_reports_on_the_legacy_example():
    theirs = flake8("examples/legacy_train.py")
    assert len(theirs) > 10
    assert {(p, line, col, msg) for p, line, col, msg, _ in pylint("examples/legacy_train.py")} \
        == theirs


LEGACY = textwrap.dedent("""\
    import torch
    from torch.autograd import Variable

    x = Variable(torch.ones(2))
    y = Variable(torch.ones(2))  # pylint: disable=variable-wrap
    z = Variable(torch.ones(2))  # noqa: TV001
    loss = (x * y * z).sum()
    print(loss.data[0])
""")


def test_pylint_s_switches_and_noqa_are_honoured(tmp_path):
    (tmp_path / "legacy.py").write_text(LEGACY)
    found = {(line, symbol) for _, line, _, _, symbol in pylint("legacy.py", cwd=tmp_path)}
    assert found == {(4, "variable-wrap"), (8, "scalar-extraction")}
    found = {(line, symbol) for _, line, _, _, symbol
             in pylint("legacy.py", "--disable=scalar-extraction", cwd=tmp_path)}
    assert found == {(4, "variable-wrap")}


def test_a_file_python_cannot_parse_is_left_to_pylint(tmp_path):
    (tmp_path / "broken.py").write_text("x = Variable(\n")
    assert {symbol for *_, symbol in pylint("broken.py", "--enable=syntax-error",
                                            cwd=tmp_path)} == {"syntax-error"}
