"""The shipped examples and ``torch04 rule`` agree with what the tool does.

``examples/legacy_train_fixed.py`` is what ``torch04 check --fix --unsafe-fixes``
makes of ``examples/legacy_train.py``; when a rule's fix changes, regenerate it:

    torch04 check --fix --unsafe-fixes - < examples/legacy_train.py > examples/legacy_train_fixed.py
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_torch04 import ruledocs
from flake8_torch04.analysis.registry import all_rules

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
REGENERATE = ("torch04 check --fix --unsafe-fixes - < examples/legacy_train.py "
              "> examples/legacy_train_fixed.py")


def torch04(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "flake8_torch04", *args], cwd=cwd,
                          capture_output=True, text=True, encoding="utf-8", timeout=120)


def test_fixed_example_is_what_the_fixer_makes(tmp_path):
    legacy = tmp_path / "legacy_train.py"
    shutil.copy(EXAMPLES / "legacy_train.py", legacy)
    proc = torch04("check", "--fix", "--unsafe-fixes", str(legacy))
    assert proc.returncode == 1, proc.stderr  # the findings that need a hand edit remain
    expected = (EXAMPLES / "legacy_train_fixed.py").read_text(encoding="utf-8")
    assert legacy.read_text(encoding="utf-8") == expected, f"regenerate: {REGENERATE}"


def test_fixed_example_leaves_only_hand_edits(tmp_path):
    fixed = tmp_path / "legacy_train_fixed.py"
    shutil.copy(EXAMPLES / "legacy_train_fixed.py", fixed)
    before = fixed.read_bytes()
    proc = torch04("check", "--fix", "--unsafe-fixes", "--output-format", "json", str(fixed))
    assert fixed.read_bytes() == before  # nothing left for the fixer: a fixpoint
    assert proc.returncode == 1
    remaining = json.loads(proc.stdout)
    assert remaining, "the example should keep something to fix by hand"
    assert all(record["fix"] is None for record in remaining)


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rule_prints_the_rule_page(code):
    from cli_runner import in_process

    page = (EXAMPLES.parent / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
    assert page == ruledocs.page(all_rules()[code])
    assert all_rules()[code].doc in page
    for command in ("rule", "explain"):  # (explain: the old name, kept)
        status, out, err = in_process(command, code.lower())
        assert (status, out, err) == (0, page, "")


def test_rule_all_prints_every_page_and_a_closed_pipe_ends_quietly():
    from cli_runner import in_process

    status, out, _ = in_process("rule", "--all")
    assert status == 0 and all(f"# {code} (" in out for code in all_rules())
    for args in (("rule", "--all"), ("explain",), ("check", "--output-format", "full",
                                                   str(EXAMPLES / "legacy_train.py"))):
        proc = subprocess.Popen([sys.executable, "-m", "flake8_torch04", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.readline()  # `| head -1`
        proc.stdout.close()
        err = proc.stderr.read().decode()
        status = proc.wait(timeout=60)
        assert err == "" and status in (0, 1), (args, status, err)
