"""Rule documentation: every rule documents itself, and the README agrees."""
import configparser
import shlex
from pathlib import Path

import pytest

from flake8_torch04 import ruledocs
from flake8_torch04.analysis.registry import all_rules

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rule_docstring_has_every_section(code):
    rule = all_rules()[code]
    assert ruledocs.missing_sections(rule) == []
    assert ruledocs.fix_summary(rule) in ("safe", "unsafe", "safe and unsafe", "none")


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_every_rule_says_what_its_pattern_does_on_current_torch(code):
    assert ruledocs.on_current_torch(code) in ("stops", "warns", "silent", "dead weight")


def test_codes_are_unique_and_well_formed():
    codes = list(all_rules())
    assert len(codes) == len(set(codes))
    assert all(code[:2] == "TV" and code[2:].isdigit() and len(code) == 5 for code in codes)


def test_readme_is_generated_from_docstrings():
    text = README.read_text(encoding="utf-8")
    assert ruledocs.render(text) == text, "run: python -m flake8_torch04.ruledocs"


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


def test_the_package_description_is_short_and_its_commands_work():
    """flake8 parses the metadata of every installed plugin each time it starts,
    in time that grows with the long description: the whole README (40 KB) cost
    every run about 4 million instructions, so the package describes itself in
    a few lines and points to the README."""
    root = README.parent
    config = configparser.ConfigParser()
    config.read(root / "setup.cfg", encoding="utf-8")
    source = config["metadata"]["long_description"]
    assert source.startswith("file:")
    name = source[len("file:"):].strip()
    text = (root / name).read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) < 4096
    assert "README.md" in text
    assert f"include {name}" in (root / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    from flake8_torch04.cli import build_parser

    block = text.split("```bash", 1)[1].split("```", 1)[0]
    commands = [shlex.split(line.split("#")[0]) for line in block.splitlines() if line.strip()]
    assert commands and all(c[0] in ("flake8", "torch04") for c in commands)
    for command in commands:
        if command[0] == "torch04":
            build_parser().parse_args(command[1:])  # exits (fails the test) on an unknown option
