"""Rule documentation: every rule documents itself, and the README agrees."""
from pathlib import Path

import pytest

from flake8_torch04 import _docs
from flake8_torch04._core import all_rules

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rule_docstring_has_every_section(code):
    rule = all_rules()[code]
    assert _docs.missing_sections(rule) == []
    assert _docs.fix_summary(rule) in ("safe", "unsafe", "safe and unsafe", "none")


def test_codes_are_unique_and_well_formed():
    codes = list(all_rules())
    assert len(codes) == len(set(codes))
    assert all(code.startswith("TV0") and len(code) == 5 for code in codes)


def test_readme_is_generated_from_docstrings():
    text = README.read_text(encoding="utf-8")
    assert _docs.render(text) == text, "run: python -m flake8_torch04._docs"


def test_readme_opens_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    block = text.split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    assert "flake8 --select=TV examples/" in commands[0]
    assert "'.[test]'" in commands[1] and "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip\" install -q -e '.[test]'" in ci
    assert "-m pytest" in ci
    assert '"$status" -eq 5' in ci
