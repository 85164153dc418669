"""Adding ``# noqa`` comments where flake8 honours them (the server's "Disable TVnnn")."""
from flake8_torch04._noqa import Noqa, add_noqa

SOURCE = [
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
]


def test_comments_go_where_flake8_reads_them_and_merge_with_existing_ones():
    wanted = {1: ["TV001"], 2: ["TV003"], 4: ["TV001"], 5: ["TV002"], 6: ["TV004"],
              8: ["TV005"], 10: ["TV001", "TV002"]}
    out = add_noqa(SOURCE, wanted)
    assert out == [
        'x = 1  # noqa: TV001\n',
        'y = """a\n',
        'b"""  # noqa: TV003\n',
        'z = 3  # noqa: E501, TV001\n',
        'w = 4  # noqa\n',
        'v = (1 +  # noqa: TV004\n',
        '     2)\n',
        'u = a + \\\n',
        '  b  # noqa: TV005\n',
        't = 5  # noqa: TV001, TV002\n',
    ]
    noqa = Noqa(out)
    for line, codes in wanted.items():
        for code in codes:
            assert noqa.suppresses(line, code), (line, code)
    assert not noqa.suppresses(1, "TV002")


def test_adding_twice_changes_nothing():
    once = add_noqa(SOURCE, {1: ["TV001"], 2: ["TV003"]})
    assert add_noqa(once, {1: ["TV001"], 2: ["TV003"]}) == once
