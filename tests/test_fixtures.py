"""Each fixture in tests/fixtures/ is checked for the rule its name starts with.

Expected findings are written inline as ``# TVnnn: col`` comments (0-based
character column) on the line of the finding; several are separated by commas.
Every other line of the fixture must produce no finding for that rule.
"""
import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from flake8_torch04.analysis import era
from flake8_torch04.analysis.registry import all_rules
from flake8_torch04.analysis.rescue import rescue
from flake8_torch04.analysis.run import check, check_source

FIXTURES = Path(__file__).parent / "fixtures"
MARKER = re.compile(r"(TV\d{3}):\s*(\d+)")


@pytest.fixture(autouse=True)
def each_fixture_is_its_own_project(monkeypatch):
    """The fixtures are separate files, not one project: the evidence that a
    project is 0.3 code (``analysis/era.py``) is read from the fixture alone
    (tests/test_era.py tests it on project directories)."""
    monkeypatch.setattr(era, "project_is_legacy", lambda filename: False)


def expected_findings(source, code):
    expected = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            for found_code, col in MARKER.findall(tok.string):
                if found_code == code:
                    expected.add((tok.start[0], int(col)))
    return expected


def parsed_text(source):
    """The source, or for a file that only parses once its ``async=`` keywords
    are renamed (TV101), the rescued text and its :class:`Rescue`."""
    try:
        ast.parse(source)
    except SyntaxError:
        rescued = rescue(source, ast.parse)
        assert rescued is not None, "the fixture does not parse, even rescued"
        return rescued.text, rescued
    return source, None


def findings_of(source, path, code):
    text, rescued = parsed_text(source)
    findings = check_source(text, str(path), codes=[code])
    if rescued is None:
        return findings
    own = rescued.findings() if code == "TV101" else []
    return own + [rescued.original(f) for f in findings]


def fixture_files():
    return sorted(p for p in FIXTURES.glob("TV*.py"))


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_fixture(path):
    code = path.name[:5]
    assert code in all_rules(), f"{path.name} names no registered rule"
    source = path.read_text(encoding="utf-8")
    expected = expected_findings(source, code)
    found = {(f.line, f.col) for f in findings_of(source, path, code)}
    missing = sorted(expected - found)
    unexpected = sorted(found - expected)
    assert not missing and not unexpected, f"missing {missing}, unexpected {unexpected}"


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_markers_lose_nothing(path):
    """The marker gate only saves time: without it, a rule finds exactly the same."""
    code = path.name[:5]
    source, _ = parsed_text(path.read_text(encoding="utf-8"))
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    gated = check(tree, lines, str(path), codes=[code])
    ungated = check(tree, lines, str(path), codes=[code], prefilter=False)
    assert gated == ungated


def test_every_rule_has_a_fixture_with_positives_and_negatives():
    for code in all_rules():
        paths = [p for p in fixture_files() if p.name.startswith(code)]
        assert paths, f"no fixture for {code}"
        sources = [p.read_text(encoding="utf-8") for p in paths]
        positives = sum(len(expected_findings(s, code)) for s in sources)
        lines = sum(len(s.splitlines()) for s in sources)
        assert positives >= 3, f"{code}: fewer than three positive cases"
        assert lines > 2 * positives, f"{code}: fixtures have too few negative lines"


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_line_endings_and_non_ascii_change_nothing(path):
    """Rules that find lines by their text take a shortcut only for ASCII text
    with ``\\n`` line ends: with ``\\r\\n`` ends, or a non-ASCII comment, a
    fixture gives the same findings."""
    code = path.name[:5]
    source, _ = parsed_text(path.read_text(encoding="utf-8"))

    def found(text):
        return [(f.line, f.col, f.message) for f in check_source(text, str(path), codes=[code])]

    expected = found(source)
    assert found(source.replace("\n", "\r\n")) == expected
    if source.isascii():
        assert found(source.rstrip("\n") + "\n# é\n") == expected
