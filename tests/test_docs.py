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


def test_rule_pages_and_the_readme_table_are_generated_from_docstrings():
    """docs/rules/TVnnn.md, one a rule (and no page of a rule that is gone), and the
    README's rule table, are what the docstrings make."""
    assert ruledocs.stale(README.parent) == {}, "run: python -m flake8_torch04.ruledocs"
    pages = {p.stem for p in (README.parent / "docs" / "rules").glob("TV*.md")}
    assert pages == set(all_rules())


def test_a_stale_or_missing_page_is_found(tmp_path):
    (tmp_path / "README.md").write_text((README).read_text(encoding="utf-8"))
    ruledocs.main([str(tmp_path)])
    assert ruledocs.stale(tmp_path) == {}
    (tmp_path / "docs" / "rules" / "TV003.md").write_text("old\n")
    (tmp_path / "docs" / "rules" / "TV001.md").unlink()
    (tmp_path / "docs" / "rules" / "TV999.md").write_text("gone\n")
    assert set(ruledocs.stale(tmp_path)) == {"docs/rules/TV003.md", "docs/rules/TV001.md",
                                             "docs/rules/TV999.md"}


def test_rule_urls_come_from_the_metadata_or_the_environment(monkeypatch):
    monkeypatch.delenv("TORCH04_DOCS_URL", raising=False)
    url = ruledocs.rule_url("TV003")
    assert url.startswith("https://") and url.endswith("/blob/main/docs/rules/TV003.md")
    config = configparser.ConfigParser()
    config.read(README.parent / "setup.cfg", encoding="utf-8")
    assert url.startswith(config["metadata"]["url"])
    # whatever the install: no metadata gives the project's repository, never nothing
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "metadata", missing)
    ruledocs.project_home.cache_clear()
    try:
        assert ruledocs.rule_url("TV001") == f"{ruledocs.HOME}/blob/main/docs/rules/TV001.md"
    finally:
        ruledocs.project_home.cache_clear()
    # (TORCH04_DOCS_URL and Project-URL labels: tests/test_server.py)


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


def test_every_output_that_can_carry_a_link_carries_the_rule_page(monkeypatch):
    import json

    from cli_runner import in_process

    from flake8_torch04.server.protocol import rule_url

    monkeypatch.delenv("TORCH04_DOCS_URL", raising=False)
    example = str(README.parent / "examples" / "legacy_train.py")
    url = ruledocs.rule_url("TV003")
    _, out, _ = in_process("check", "--output-format", "json", example)
    records = json.loads(out)
    assert records and all(r["url"] == ruledocs.rule_url(r["code"]) for r in records)
    _, out, _ = in_process("check", "--output-format", "sarif", example)
    rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert {r["id"]: r["helpUri"] for r in rules}["TV003"] == url
    _, out, _ = in_process("check", "--output-format", "full", example)
    assert f"= docs: {url}\n" in out
    assert rule_url("TV003") == url  # (the server's codeDescription: tests/test_server.py)
