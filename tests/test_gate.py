"""The marker gate's text searches: fast, and exactly what their regular expressions say.

The gate only saves time (test_fixtures checks that it loses no finding);
these tests pin the searches themselves, which take shortcuts the regex
engine cannot (a leading ``\\b`` tested by hand, imports found from ``torch``).
"""
import ast
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from flake8_torch04.analysis import markers
from flake8_torch04.analysis.markers import (
    CORE_MARKERS, Words, _whole_words, class_aliases, import_aliases, match_offsets, searcher,
    text_imports_torch,
)
from flake8_torch04.analysis.registry import all_rules, gates
from flake8_torch04.analysis.run import check_source

#: text made of the pieces markers look for, so matches and near-misses are common
PIECES = st.sampled_from([
    "Variable", "xVariable", "Variable_", ".Variable", "type", "dtype", ".type", "type(",
    "append", "_append", "append_", " ", "\n", "\t", "(", "[", "0", "#", "+", ".", "data",
    "from", "import", "torch", "as", "V", "é", "ß1", "\\", ",", ")", "\r\n", "]", ":", "0x",
    "e", "0.5", "__class__", "typee", "hasattr", ":", "=", "\\\n", ". ", "ata",
])
TEXTS = st.lists(PIECES, max_size=40).map("".join)


def every_pattern():
    patterns = {pattern for r in all_rules().values() for pattern, _ in r.markers}
    extra = {r"\bVariable\b", r"\bV\b", r"\bas\b", r"\.[\s\\]*ata\b", r"a\+b", "a[b0]c"}
    return sorted(patterns | extra | set(CORE_MARKERS))


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def testmatch_offsets_match_the_regex(text):
    for pattern in every_pattern():
        expected = [m.start() for m in re.finditer(pattern, text)]
        assert match_offsets(text, pattern) == expected, pattern


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_imports_torch_matches_the_regex(text):
    expected = bool(re.search(r"^[^\S\n]*(?:import|from)[^\S\n]+torch\b", text, re.M))
    assert text_imports_torch(text) == expected


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_aliases_match_the_regex(text):
    line_start = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import\b(\([^)]*\)|.*)", re.M)
    expected = {}
    for match in line_start.finditer(text):
        for name, alias in re.findall(r"(\w+)\s+as\s+([A-Za-z_]\w*)", match.group(2)):
            expected.setdefault(alias, set()).add(f"{match.group(1)}.{name}")
    assert import_aliases(text) == expected


@pytest.mark.parametrize("index", [
    "0", " 0 ", "(0)", "( 0 )", "00", "0x0", "0X00", "0b0", "0o0", "0_0", "\n0\n", "0  # c\n",
    "  # c\n 0", "\\\n0", "( 0 )  # c\n", "((0))",
])
def test_every_spelling_of_index_zero_matches_the_tv003_marker(index):
    source = f"x[{index}]\n"
    subscript = ast.parse(source).body[0].value
    assert isinstance(subscript.slice, ast.Constant) and subscript.slice.value == 0
    index_marker = next(p for p, types in all_rules()["TV003"].markers if ast.Subscript in types)
    assert match_offsets(source, index_marker) == [1]


@pytest.mark.parametrize("index", ["0.5", "0:2", "0, 1", "i"])
def test_other_indexes_do_not_match_the_tv003_marker(index):
    index_marker = next(p for p, types in all_rules()["TV003"].markers if ast.Subscript in types)
    assert match_offsets(f"x[{index}]\n", index_marker) == []


def test_aliases_after_a_decoy_on_the_line_above():
    text = "x = 1  # from a import (\nfrom torch.autograd import Variable as V\n)\n"
    assert import_aliases(text) == {"V": {"torch.autograd.Variable"}}


def _dispatched(code, source):
    """The classes of the nodes the walker hands rule ``code`` on ``source``."""
    from flake8_torch04.analysis import registry

    seen = []
    rule = all_rules()[code]
    original = rule.check

    def spy(ctx, node):
        seen.append((type(node).__name__, node.lineno))
        return original(ctx, node)

    registry.RULES[code] = rule._replace(check=spy)
    try:
        findings = check_source(source, codes=[code])
    finally:
        registry.RULES[code] = rule
    return seen, findings


def test_an_alias_is_announced_for_the_rules_of_what_it_stands_for():
    """``V`` of ``from torch.autograd import Variable as V`` is ``Variable`` to
    TV001 wherever it is used; ``_d`` of a protobuf import is nothing to it (a
    generated ``_pb2`` module uses such an alias on thousands of lines)."""
    source = (
        "import torch\n"
        "from torch.autograd import Variable as V\n"
        "from google.protobuf import descriptor as _d\n"
        "x = V(torch.zeros(1))\n"
        "y = _d.FieldDescriptor(name='a', index=0)\n"
    )
    seen, findings = _dispatched("TV001", source)
    assert [(f.code, f.line) for f in findings] == [("TV001", 4)]
    assert ("Call", 4) in seen
    assert not [line for _, line in seen if line == 5]


def test_an_alias_of_a_module_is_announced_for_the_markers_it_holds():
    """``from torch.nn import functional as F`` holds no marker of TV123, ``from
    torch.nn.functional import softmax as sm`` does: ``sm(x)`` is checked."""
    source = (
        "import torch\n"
        "from torch.nn.functional import softmax as sm\n"
        "y = sm(torch.zeros(2, 2))\n"
    )
    seen, findings = _dispatched("TV123", source)
    assert [(f.code, f.line) for f in findings] == [("TV123", 3)]


def test_a_class_of_the_file_is_announced_for_the_markers_its_bases_hold():
    """``class Flat(nn.Softmax)`` (and ``class Deep(Flat)``) spell ``Softmax``:
    ``Deep()`` on a line of its own is checked by TV123."""
    source = (
        "import torch.nn as nn\n"
        "class Flat(nn.Softmax):\n    pass\n"
        "class Deep(Flat):\n    pass\n"
        "s = Deep()\n"
    )
    assert class_aliases(source) == {"Flat": {"nn.Softmax"}, "Deep": {"Flat", "nn.Softmax"}}
    seen, findings = _dispatched("TV123", source)
    assert [(f.code, f.line) for f in findings] == [("TV123", 6)]


def test_class_aliases_after_a_decoy():
    text = "x = 'class A(B)'\n  class C(nn.Softmax, object): pass\nclassify(x)\n"
    assert class_aliases(text) == {"C": {"nn.Softmax, object"}}


def test_a_statement_announced_only_by_plus_is_not_walked():
    """``total = total + x`` holds TV003's ``+`` marker, which announces only the
    assignment: the calls inside it are not dispatched to TV003."""
    seen = []
    rule = all_rules()["TV003"]
    original = rule.check

    def spy(ctx, node):
        seen.append(type(node).__name__)
        return original(ctx, node)

    from flake8_torch04.analysis import registry

    registry.RULES["TV003"] = rule._replace(check=spy)
    try:
        check_source("import torch\nfor x in xs:\n    total = total + f(g(x))\n", codes=["TV003"])
    finally:
        registry.RULES["TV003"] = rule
    assert seen == ["Assign"]


def test_markers_announce_only_node_types_the_rule_visits():
    for r in all_rules().values():
        for _, types in r.markers:
            assert set(types) <= set(r.node_types)
            assert types, r.code
    assert any(
        not issubclass(t, ast.stmt) for r in all_rules().values() for _, ts in r.markers for t in ts
    )


def test_a_comment_after_a_bracket_does_not_hang_the_gate():
    """Session 1's TV003 marker ``\\[(?:[\\s(\\\\]|#[^\\n]*)*0`` backtracked
    exponentially on ``[`` followed by a comment of ``#`` characters (torch's own
    common_methods_invocations.py hung flake8).  With 80 of them the old marker
    would not finish in the age of the universe; the limit below is only a hang
    detector, 1000 times what the check takes."""
    import subprocess
    import sys

    comment = "  # " + "#" * 80 + "\n"
    source = "import torch\nx = [" + comment + "    1]\ny = loss.data[" + comment + "    0]\n"
    code = (
        "import sys; from flake8_torch04.analysis.run import check_source; "
        "print(len(check_source(sys.stdin.read())))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=source, capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"  # loss.data[0] across the comment is still found


def test_records_behave_like_named_tuples():
    import copy
    import pickle

    from flake8_torch04.analysis.findings import Finding, Fix
    from flake8_torch04.source.text import Edit

    edit = Edit((1, 2), (1, 4), "x")
    fix = Fix((edit,), "safe")
    finding = Finding("TV001", 3, 4, "msg", fix)
    assert finding == ("TV001", 3, 4, "msg", fix, 0, 0)
    assert (finding.line, finding.end_col, fix.imports) == (3, 0, ())
    assert Finding(code="TV001", line=3, col=4, message="msg", fix=fix) == finding
    assert finding._replace(line=9).line == 9 and finding.line == 3
    assert repr(edit) == "Edit(start=(1, 2), end=(1, 4), text='x')"
    assert str(finding) == "3:5: TV001 msg"
    assert pickle.loads(pickle.dumps(finding)) == finding
    assert copy.deepcopy(finding) == finding
    start, end, text = edit
    assert sorted([Edit((2, 0), (2, 1), ""), edit]) == [edit, Edit((2, 0), (2, 1), "")]
    assert Finding._fields == ("code", "line", "col", "message", "fix", "end_line", "end_col")
    with pytest.raises(TypeError):
        Finding("TV001", 3)
    with pytest.raises(TypeError):
        Finding("TV001", 3, 4, "msg", nope=1)


def test_every_rule_module_is_imported_and_registers_one_rule():
    from pathlib import Path

    import flake8_torch04.rules as package

    modules = sorted(p.stem for p in Path(package.__file__).parent.glob("*.py")
                     if p.stem != "__init__")
    registered = sorted(r.check.__module__.rsplit(".", 1)[1] for r in all_rules().values())
    assert registered == modules
    # and the rule table names, for each code, the module that registers it
    assert all(r.check.__module__ == f"{package.__name__}.{gates()[code].module}"
               for code, r in all_rules().items())


@pytest.mark.parametrize("source, loaded, flow", [
    ("import os\nx = os.sep\n", [], False),  # no marker: no rule module is imported
    ("total += 1\n", ["scalar_extraction"], True),
    # TV001 walks nodes (``analysis.nodes``) but needs no data flow
    ("x = Variable(y, volatile=True)\n", ["variable_wrap", "volatile"], False),
    ("x.volatile = True\n", ["volatile"], False),  # and TV002 needs no data flow
])
def test_only_the_rules_whose_markers_match_are_loaded(source, loaded, flow):
    """An editor runs flake8 on one file per process: a rule module is imported
    only when one of its markers matches the file (``rules.TABLE``), and the data
    flow (``analysis.flow``) only when a loaded rule asks for it."""
    modules, flow_loaded = loaded_by(source)
    assert modules == loaded
    assert flow_loaded == flow


def loaded_by(source):
    """The rule modules a fresh process loads to check ``source``, and whether
    it loads the data flow."""
    script = (
        "import sys\n"
        "from flake8_torch04.analysis.run import check_source\n"
        f"check_source({source!r})\n"
        "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules"
        " if m.startswith('flake8_torch04.rules.')"
        " and not m.startswith('flake8_torch04.rules.shared')))\n"
        "print('flake8_torch04.analysis.flow' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return ast.literal_eval(out[0]), out[1] == "True"


#: pieces around the words of markers (whole, inside longer words, after a
#: dot, beside non-ASCII letters and blanks)
WORD_PIECES = st.sampled_from([
    "load", "loads", "_load", "load_", ".", " ", "\n", "(", "eig", "weight", "in", "print",
    "normal", "normal_", "train", "_", "data", "labels", "test", "byte", "Byte", "Tensor",
    "uint8", "é", "\u00a0", "\u3000", "type", "Loss", "CRIT", "dump", "dumps", "add", "sub_",
    "Variable", "torch", "[", "0", "]", "+", "\\", "\t", "ß", "1",
])
WORD_TEXTS = st.lists(WORD_PIECES, max_size=30).map("".join)


def all_patterns():
    """Every marker and precondition pattern of the table, and the core markers."""
    found = set(CORE_MARKERS)
    for gate in gates().values():
        found.update(pattern for pattern, _ in gate.markers)
        found.update(gate.requires)
    return sorted(found)


@settings(max_examples=400, deadline=None)
@given(text=WORD_TEXTS)
def test_the_words_of_a_text_never_rule_out_a_match(text):
    """``Words`` lets the gate skip a pattern's search: only where it cannot match."""
    words = Words(text)
    for pattern in all_patterns():
        if searcher(pattern).absent(words):
            assert re.search(pattern, text) is None, pattern
        assert match_offsets(text, pattern, words) == match_offsets(text, pattern), pattern


@settings(max_examples=200, deadline=None)
@given(text=WORD_TEXTS, at_once=st.integers(1, 12))
def test_words_split_in_pieces_are_the_words_split_at_once(text, at_once):
    """A long text's words are split a piece at a time (a list of every word of a
    300 kB generated module is 2 MB): the same words, whatever the pieces."""
    from unittest import mock

    whole = Words(text).distinct
    with mock.patch.object(markers, "_WORDS_AT_ONCE", at_once):
        assert Words(text).distinct == whole


@pytest.mark.parametrize("pattern, words", [
    (r"\bload\b", {"load"}),
    (r"\.[\s\\]*data\b", {"data"}),
    (r"(?<![\w.])type[\s\\]*\(", {"type"}),
    (r"\b(?:get|pop|dumps?)\b", {"get", "pop", "dump", "dumps"}),
    (r"\b(?:add|sub)_?\b", {"add", "add_", "sub", "sub_"}),
    (r"\b(?:train|test)_(?:data|labels)\b", {"train_data", "train_labels", "test_data",
                                             "test_labels"}),
    ("Variable", None),  # also inside a longer word
    (r"\bappend", None),  # (no end)
    (r"\[", None),
    (r"\b(?:a|b)+\b", None),
])
def test_whole_words_of_a_pattern(pattern, words):
    expected = None if words is None else {w.encode() for w in words}
    assert _whole_words(pattern) == expected


@pytest.mark.parametrize("source, loaded", [
    # TV129's `[` and TV107's `[` lead nowhere without their preconditions
    ("x = y[0]\nz = w[i]\n", ["scalar_extraction"]),
    ("import torch\nx = y[i]\n", ["tensor_element"]),
    ("import torch\nm = x.byte()\ny = x[m]\n", ["byte_masks", "tensor_element"]),
])
def test_a_rule_whose_precondition_fails_is_not_loaded(source, loaded):
    assert loaded_by(source)[0] == loaded


def test_preconditions_are_what_the_rules_test_first():
    """A precondition in the table must be implied by the rule's own first test
    (else the gate would hide findings): TV129 requires its byte text, TV107 torch."""
    from flake8_torch04.rules import byte_masks

    assert set(gates()["TV129"].requires) == {
        *byte_masks._BYTE_TEXT.pattern.split("|"), byte_masks._MASKING}
    assert gates()["TV107"].requires == (r"\btorch\b",)
    # every text that imports torch holds the word
    for text in ("import torch\n", "from torch.autograd import Variable\n",
                 "import torch.nn as nn\n"):
        assert text_imports_torch(text) and re.search(r"\btorch\b", text)


@pytest.mark.parametrize("source", [
    "from torch.autograd import Variable\nx = ('é' + str(Variable(y)), 'ß')\n",
    "from torch.autograd import Variable\n# é\nx = f('日本', g(Variable(y)), 'é')\n",
    "from torch.autograd import Variable\nx = {'é': h(0), 'k': [Variable(y), 'ü']}\n",
    "import torch\nv = torch.autograd.Variable(x, volatile=True)  # é\n"
    "s = '日' + str(loss.data[0])\n",
])
def test_the_walk_finds_what_the_markers_announce_in_non_ascii_text(source):
    """A node's columns count UTF-8 bytes: the gate's match positions must too."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    from flake8_torch04.analysis.run import check

    gated = check(tree, lines)
    assert gated and gated == check(tree, lines, prefilter=False)


@pytest.mark.parametrize("text", ["x = foo(1)\n", "x = 'é' + foo(1)\n", "y = bar\u00a0(2)\n"])
def test_a_pattern_of_whole_words_without_a_leading_word_is_searched_in_any_text(text):
    """``(?<![\\w.])(?:foo|bar)\\b`` is whole words but has no literal start: it
    must still be searched where the words cannot rule it out (non-ASCII text)."""
    from flake8_torch04.analysis.gate import _Plan
    from flake8_torch04.analysis.registry import Gate

    pattern = r"(?<![\w.])(?:foo|bar)\b"
    plan = _Plan([Gate("TV999", "none", (ast.Call,), ((pattern, (ast.Call,)),))])
    found = plan.search(text, Words(text))
    assert list(found.values()) == [[m.start() for m in re.finditer(pattern, text)]]


#: how a pattern may start that the regex engine cannot look for by a literal
#: prefix: it then tries every position of every file (TV137's first marker,
#: led by ``(?<![\w.])1``, cost 4% of a whole check)
_SLOW_STARTS = ("(?<", "(?=", "(?!", "\\b", "^", ".", "[")


def _scanned_by_the_regex_engine(pattern):
    search = markers.searcher(pattern)
    return search.regex is not None and search.words is None


@pytest.mark.parametrize("code", sorted(gates()))
def test_no_marker_makes_the_regex_engine_try_every_position(code):
    gate = gates()[code]
    for pattern in [p for p, _ in gate.markers] + list(gate.requires):
        if _scanned_by_the_regex_engine(pattern):
            leading = markers.searcher(pattern).regex.pattern
            assert not leading.startswith(_SLOW_STARTS), (code, pattern)


def test_a_marker_led_by_a_look_behind_before_a_digit_is_caught():
    pattern = r"(?<![\w.])1(?:\.0*)?[\s\\]*-(?![-=])"
    assert _scanned_by_the_regex_engine(pattern)
    assert markers.searcher(pattern).regex.pattern.startswith(_SLOW_STARTS)


def test_tv150_markers_name_every_method_it_flags():
    """TV150's marker for calls lists the in-place methods by name (the gate reads
    it before the rule's module is loaded): it must match each of them."""
    import re

    from flake8_torch04 import rules
    from flake8_torch04.rules.expanded_write import _METHODS

    calls = [m[0] for m in rules.TABLE["TV150"][2] if ast.Call in m[1:]]
    assert calls and all(
        any(re.search(p, f"m.{name}(x)") for p in calls) for name in _METHODS)
