"""Adding ``# noqa`` comments where flake8 honours them (``--add-noqa`` and the server)."""
from flake8_torch04.analysis.findings import Finding
from flake8_torch04.config.noqa import Noqa
from flake8_torch04.fix.addnoqa import add_noqa

SOURCE = "".join([
    'x = 1\n',
    'y = """a\n',
    'b"""\n',
    'z = 3  # noqa: E501\n',
    'w = 4  # noqa\n',
    'v = (1 +\n',
    '     2)\n',
    'u = a + \\\n',
    '  b\n',
    't = 5  # noqa:TV001\n',
])


def test_comments_go_where_flake8_reads_them_and_merge_with_existing_ones():
    wanted = {1: ["TV001"], 2: ["TV003"], 4: ["TV001"], 5: ["TV002"], 6: ["TV004"],
              8: ["TV005"], 10: ["TV001", "TV002"]}
    findings = [Finding(code, line, 0, "m") for line, codes in wanted.items() for code in codes]
    out, added = add_noqa(SOURCE, findings)
    lines = out.splitlines(True)
    noqa = Noqa(lines)
    for line, codes in wanted.items():
        for code in codes:
            assert noqa.suppresses(line, code), (line, code, lines)
    assert not noqa.suppresses(1, "TV002")
    assert lines[2] == 'b"""  # noqa: TV003\n'  # after the closing quotes
    assert lines[8] == '  b  # noqa: TV005\n'  # after the continuation
    assert lines[4] == 'w = 4  # noqa\n'  # a bare noqa covers it already
    assert add_noqa(out, findings)[0] == out  # a second time adds nothing
