"""Inputs that used to take quadratic time (issue 19, "Hangs").

No test times anything: each counts the work (scope walks, regex searches)
and asserts it does not grow with the number of findings.  The seconds are
in ``bench/benchmark.py``.
"""
import ast
import re

from flake8_torch04.analysis.run import check_source
from flake8_torch04.config import noqa as config_noqa
from flake8_torch04.config.noqa import Noqa
from flake8_torch04.rules import type_comparison


def _count_calls(monkeypatch, module, name):
    """The calls of ``module.name`` from now on: a list of their arguments."""
    calls = []
    original = getattr(module, name)

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def _count_scope_walks(monkeypatch):
    return _count_calls(monkeypatch, type_comparison, "body_nodes")


def test_many_type_assertions_in_one_function_walk_it_once(monkeypatch):
    calls = _count_scope_walks(monkeypatch)
    source = (
        "import torch\nimport unittest\n\n\nclass T(unittest.TestCase):\n"
        "    def test(self):\n        x = torch.zeros(1)\n"
        + "        self.assertEqual(type(x), torch.FloatTensor)\n" * 300
    )
    findings = check_source(source, "t.py", ["TV005"])
    assert len(findings) == 300
    assert len(calls) <= 3  # once per scope, not once per assertion


def test_a_long_or_chain_of_type_tests_walks_the_scope_once(monkeypatch):
    calls = _count_scope_walks(monkeypatch)
    chain = " or ".join(["type(x) == torch.FloatTensor"] * 2001)
    source = f"import torch\n\n\ndef f(x):\n    return {chain}\n"
    findings = check_source(source, "t.py", ["TV005"])
    assert len(findings) == 2001
    assert len(calls) <= 3


def test_a_long_line_with_many_findings_is_searched_for_noqa_once(monkeypatch):
    searches = []
    pattern = config_noqa.NOQA_INLINE

    class Counting:
        def search(self, text):
            searches.append(len(text))
            return pattern.search(text)

    monkeypatch.setattr(config_noqa, "NOQA_INLINE", Counting())
    line = "x = [" + ", ".join(["Variable(a)"] * 5000) + "]  # noqa: TV002\n"
    noqa = Noqa(["from torch.autograd import Variable\n", line])
    assert not any(noqa.suppresses(2, "TV001") for _ in range(5000))
    assert noqa.suppresses(2, "TV002")
    assert len(searches) == 1


def test_a_long_line_without_noqa_is_not_searched(monkeypatch):
    searches = []

    class Counting:
        def search(self, text):
            searches.append(len(text))
            return None

    monkeypatch.setattr(config_noqa, "NOQA_INLINE", Counting())
    noqa = Noqa(["x = [" + "Variable(a), " * 5000 + "]\n"])
    assert not any(noqa.suppresses(1, "TV001") for _ in range(5000))
    assert searches == []


def test_noqa_reading_is_unchanged():
    lines = ["a  # noqa\n", "b  # noqa: TV001,TV0\n", "c  # noqa: tv001\n", "d\n",
             "e  # NOQA:TV002\n"]
    noqa = Noqa(lines)
    assert noqa.suppresses(1, "TV005")
    assert noqa.suppresses(2, "TV001") and noqa.suppresses(2, "TV006")
    assert not noqa.suppresses(3, "TV001")
    assert not noqa.suppresses(4, "TV001")
    assert noqa.suppresses(5, "TV002") and not noqa.suppresses(5, "TV001")
    assert re.search("noqa", lines[0])


#: a file whose check builds data-flow facts (TV003's accumulator, TV107's
#: loss target, TV002's training function) and resolves names
FLOWING = '''\
import torch
import torch.nn.functional as F
from torch.autograd import Variable

def train(model, loader, opt):
    total = 0
    for x, y in loader:
        out = model(Variable(x))
        target = torch.LongTensor([1, 2])
        loss = F.nll_loss(out, target[0])
        loss.backward()
        total += loss.data[0]
    return total

def evaluate(model, x):
    v = Variable(x, volatile=True)
    return model(v).data[0]


class Net(torch.nn.Module):
    def __init__(self, n):
        super(Net, self).__init__()
        self.fc = torch.nn.Linear(n, n)
        self.softmax = torch.nn.LogSoftmax()

    def forward(self, a, b):
        joined = torch.cat((a, b), 1)
        return self.softmax(self.fc(joined))

    def init_hidden(self, n):
        return Variable(torch.zeros(1, n))
'''


def _alive_after(run):
    """How many of the objects ``run()`` returns weak references to are still
    alive once it has returned, with the collector off (a collection would hide
    a cycle: only reference counting frees them here)."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        refs = run()
        return sum(ref() is not None for ref in refs)
    finally:
        if enabled:
            gc.enable()


def test_a_checked_files_tree_is_freed_when_the_check_returns():
    """No cycle made by the rules keeps the tree alive: freed by reference
    counting, a file's tree never reaches the cyclic collector (which would
    scan it again and again while later files are checked)."""
    import weakref

    from flake8_torch04.analysis.run import check
    from flake8_torch04.source.text import lines_of

    def run():
        tree = ast.parse(FLOWING)
        # (``Load``, ``Add`` and the like are shared singletons: only nodes with a position)
        nodes = [weakref.ref(node) for node in ast.walk(tree) if hasattr(node, "lineno")]
        assert len(nodes) > 60
        findings = check(tree, lines_of(FLOWING), "train.py")
        assert {f.code for f in findings} >= {"TV001", "TV002", "TV003", "TV123"}
        return nodes

    assert _alive_after(run) == 0


def test_check_leaves_the_collector_as_it_found_it():
    import gc

    from flake8_torch04.analysis.run import check
    from flake8_torch04.source.text import lines_of

    seen = []
    original = gc.disable

    for state in (True, False):
        (gc.enable if state else gc.disable)()
        try:
            check(ast.parse(FLOWING), lines_of(FLOWING))
            seen.append(gc.isenabled())
        finally:
            gc.enable()
    assert seen == [True, False]
    assert gc.disable is original


def _count_renames(monkeypatch):
    from flake8_torch04.rules import module_names

    return _count_calls(monkeypatch, module_names, "_renamed")


def test_tv006_matches_each_string_of_the_file_once_per_spelling(monkeypatch):
    # every finding used to match every string key of the file: 1,500 findings
    # in a 27k-line file made 450,000 matches
    calls = _count_renames(monkeypatch)
    unit = (
        "import torch.nn as nn\n\n\nclass Block(nn.Module):\n"
        "    def __init__(self, i):\n"
        "        super().__init__()\n"
        "        self.add_module('conv.1', nn.Conv2d(1, 1, 1))\n"
        "        self.add_module('conv.%d' % i, nn.Conv2d(1, 1, 1))\n"
        "        self.cfg = {'lr': 1, 'momentum': 2}\n"
        "        if self.cfg['lr'] == 'a.b':\n"
        "            pass\n"
    )
    counts = []
    for copies in (20, 80):
        calls.clear()
        findings = check_source(unit * copies, "t.py", ["TV006"])
        assert len(findings) == 2 * copies
        assert all(f.fix is not None for f in findings)
        counts.append(len(calls))
    assert counts[1] <= 2 * counts[0] + 10  # about the same for 4x the findings


# -- a file of many functions (issue 31): nothing asked per finding walks the module


def _many_functions(count):
    """One import block, then ``count`` small functions, each with a TV004 finding
    whose fix spells ``torch.no_grad`` and a TV005 one whose fix spells ``torch``."""
    unit = (
        "\n\ndef step_{i}(params, lr, x):\n"
        "    for p in params:\n"
        "        p.data.add_(-lr, p.grad.data)\n"
        "    return type(x) == th.FloatTensor\n"
    )
    return "import torch as th\nimport torch.nn as nn\n" + "".join(
        unit.format(i=i) for i in range(count))


def test_spelling_a_module_looks_up_the_imports_not_every_name_of_the_module(monkeypatch):
    """How ``torch`` is spelled (``th``) was found by looking up every name the
    module binds, once per finding: a whole-module pass per finding."""
    from flake8_torch04.analysis import resolve as _resolve

    lookups = {}
    for count in (50, 100):
        calls = _count_calls(monkeypatch, _resolve, "lookup")
        findings = check_source(_many_functions(count), "t.py", ["TV004", "TV005"])
        assert len(findings) == 2 * count
        assert all("th.no_grad" in f.fix.edits[0].text for f in findings
                   if f.code == "TV004")
        assert all(f.fix.edits[0].text.endswith("th.FloatTensor)") for f in findings
                   if f.code == "TV005")
        lookups[count] = len(calls)
        monkeypatch.undo()
    assert lookups[100] <= 2 * lookups[50] + 10  # linear: a few lookups per finding


def test_the_fixer_s_trees_go_with_their_round():
    """pyflakes' checker holds the tree it read in a reference cycle: with the
    collector off while a file is checked, each round's tree stayed to the end
    (a 50,000-line file's fix peaked at three trees)."""
    import weakref

    from flake8_torch04.fix.analysis import Analysis
    from flake8_torch04.fix.fixer import fix_text

    source = _many_functions(5)
    original = ast.parse

    def run():
        trees = []

        def parse(*args, **kwargs):
            tree = original(*args, **kwargs)
            if isinstance(tree, ast.Module) and len(tree.body) > 5:
                # (a Module has no weak reference; its import and a function's
                # argument are held by pyflakes' bindings)
                trees.append(weakref.ref(tree.body[0]))
                trees.append(weakref.ref(tree.body[-1].args.args[0]))
            return tree

        ast.parse = parse
        try:
            result = fix_text(source, lambda text: Analysis(text, ["TV004", "TV005", "TV126"]),
                              unsafe=True)
        finally:
            ast.parse = original
        assert result.text != source and len(trees) >= 4
        return trees

    assert _alive_after(run) == 0


class _CountingPattern:
    """A compiled pattern that counts its searches."""

    def __init__(self, pattern):
        self.pattern, self.calls = pattern, 0

    def finditer(self, *args):
        self.calls += 1
        return self.pattern.finditer(*args)


def _script(count, unit):
    """A module-level script of ``count`` units, each naming its own values."""
    head = ("import torch\nimport torch.nn.functional as F\n"
            "from torch.autograd import Variable\nfrom torch.utils.data import DataLoader\n\n")
    return head + "".join(unit.format(i=i) for i in range(count))


def test_many_loaders_are_looked_for_in_one_walk(monkeypatch):
    """TV110 searched the file for each loader's name (a pass per finding)."""
    from flake8_torch04.rules import iterator_next

    calls = _count_calls(monkeypatch, iterator_next, "lines_matching")
    walks = _count_calls(monkeypatch, iterator_next, "every_node")
    source = _script(60, "it_{i} = iter(loader_{i})\nbatch_{i} = it_{i}.next()\n"
                         "loader_{i} = DataLoader(data_{i})\n")
    findings = check_source(source, "t.py", ["TV110"])
    assert len(findings) == 60
    assert len(calls) <= iterator_next._PRUNED_WORDS and len(walks) == 1


def test_many_mapping_names_are_looked_for_in_one_search(monkeypatch):
    """TV107 searched the file for ``NAME = [`` once per name like ``idx2word``,
    and walked the file for its imports each time."""
    from flake8_torch04.rules import tensor_element

    counting = _CountingPattern(tensor_element._BUILT)
    monkeypatch.setattr(tensor_element, "_BUILT", counting)
    imports = _count_calls(monkeypatch, tensor_element, "_imported_modules")
    source = _script(60, "idx2word_{i} = load_{i}()\nw_{i} = idx2word_{i}[t_{i}.max(0)[1][0]]\n"
                         "idx2word_{i}['a'] = 1\n")
    check_source(source, "t.py", ["TV107"])
    assert counting.calls == 1 and len(imports) <= 1


def test_module_level_wraps_read_the_module_s_assignments_once(monkeypatch):
    """TV001's ``x = loss(...)`` evidence was searched for in the module's text
    once per wrapped name."""
    from flake8_torch04.rules import variable_wrap

    counting = _CountingPattern(variable_wrap._LINE_ASSIGNED_CALL)
    monkeypatch.setattr(variable_wrap, "_LINE_ASSIGNED_CALL", counting)
    source = _script(60, "out_{i} = model(a_{i})\nv_{i} = Variable(out_{i})\n"
                         "w_{i} = Variable(x_{i})\n")
    findings = check_source(source, "t.py", ["TV001"])
    assert len(findings) == 120
    assert [f.fix.edits[0].text for f in findings[:4]] == [
        "out_0.detach()", "x_0", "out_1.detach()", "x_1"]
    assert counting.calls == 1


def test_many_loaded_models_are_followed_without_a_pass_per_name(monkeypatch):
    """TV106 looked for each module-level name loaded in every function of the
    file, and searched the file for it (4,000 loads took 1.2 GB: a memo entry
    per function and name)."""
    from flake8_torch04.rules import whole_object_load

    searches = _count_calls(monkeypatch, whole_object_load, "lines_matching")
    bodies = _count_calls(monkeypatch, whole_object_load, "body_parents")
    source = _script(60, "m_{i} = torch.load('m{i}.pkl')\n\n\ndef use_{i}(x):\n"
                         "    return m_{i}(x)\n")
    findings = check_source(source, "t.py", ["TV106"])
    assert len(findings) == 60 and all("(called)" in f.message for f in findings)
    assert len(searches) <= whole_object_load._PRUNED_WORDS
    assert len(bodies) <= 60 + 1 + 2 * whole_object_load._PRUNED_WORDS


def test_module_level_wraps_look_for_changes_in_one_search(monkeypatch):
    """Whether ``x = Variable(y)`` is then changed in place (``x.requires_grad =
    True``) was one regular expression per name over the module's text."""
    from flake8_torch04.rules import variable_wrap

    counting = _CountingPattern(variable_wrap._WORD_START)
    monkeypatch.setattr(variable_wrap, "_WORD_START", counting)
    source = _script(60, "inp_{i} = Variable(images_{i})\ninp_{i}.requires_grad = True\n"
                         "out_{i} = Variable(o_{i})\n")
    findings = check_source(source, "t.py", ["TV001"])
    assert [f.fix.edits[0].text for f in findings[:4]] == [
        "images_0.detach()", "o_0", "images_1.detach()", "o_1"]
    assert counting.calls == 1


def _volatile_function(calls: int) -> str:
    """One function with ``calls`` ``Variable(t, volatile=True)``: 2 findings
    each (TV001, TV002), and every TV002 carries the same fix (all the calls'
    edits and the decorator)."""
    return ("import torch\nfrom torch.autograd import Variable\n\n\ndef f(t):\n"
            + "".join(f"    x{i} = Variable(t, volatile=True)\n" for i in range(calls))
            + "    return t\n")


def test_the_server_looks_at_a_fix_shared_by_many_findings_once(monkeypatch):
    """The server's analysis asks, for each finding, whether its fix can be
    applied; the findings that share a fix were each walked over all its edits
    (quadratic: 10,000 findings, 21 s; `python bench/lsp_bench.py --findings`)."""
    from flake8_torch04.fix import analysis as fix_analysis
    from flake8_torch04.server import worker

    settings = worker.FileSettings(("TV001", "TV002"), True)
    counts = []
    for calls in (200, 400):
        touched = _count_calls(monkeypatch, fix_analysis, "touched_lines")
        snapshot = worker.analyse("file:///t.py", 1, _volatile_function(calls), "/t.py",
                                  settings)
        assert len(snapshot.findings) == 2 * calls
        assert snapshot.fixable
        counts.append(len(touched))
        monkeypatch.undo()
    # the one TV002 fix's edits (the calls' and the decorator), once
    assert counts == [200 + 1, 400 + 1]


def test_a_check_walks_a_fix_shared_by_many_findings_a_few_times(monkeypatch):
    """``torch04 check`` (and the server's "Fix all", the same function): the
    findings that share one fix were each walked over all its edits (whether it
    can be applied, where its edits are, the lines its snippet shows), quadratic
    in the findings.  The walks of the shared fix are counted at two sizes."""
    from flake8_torch04 import pipeline
    from flake8_torch04.analysis import findings as findings_module
    from flake8_torch04.fix import analysis as fix_analysis
    from flake8_torch04.source.document import Document

    walks = []

    class Edits(tuple):
        def __iter__(self):
            walks.append(1)
            return super().__iter__()

    checked = fix_analysis.check

    def check_counting(*args, **kwargs):  # the TV002 fix's edits count their walks
        found = checked(*args, **kwargs)
        shared = {}
        for i, finding in enumerate(found):
            fix = finding.fix
            if finding.code == "TV002" and fix is not None:
                fix = shared.setdefault(id(fix), findings_module.Fix(
                    Edits(fix.edits), fix.safety, fix.imports))
                found[i] = finding._replace(fix=fix)
        return found

    monkeypatch.setattr(fix_analysis, "check", check_counting)
    counts = []
    for calls in (200, 400):
        walks.clear()
        result = pipeline.check_document(
            Document(_volatile_function(calls).encode(), "t.py"),
            pipeline.Options(("TV001", "TV002"), unsafe=True))
        assert len(result.findings) == 2 * calls
        assert sum(len(loc.edits) for loc in result.findings) == calls * (calls + 1)
        counts.append(len(walks))
    assert counts[0] == counts[1] <= 4, counts


def test_the_fixer_places_a_fix_shared_by_many_findings_once_per_round(monkeypatch):
    """``--fix --unsafe-fixes`` (and the server's "Fix all" with unsafe fixes):
    choosing a round's fixes placed every edit of a shared fix once per finding
    that offers it, and the round's guard and build walked them so too:
    quadratic (625 / 1,250 / 2,500 calls: 1.7 / 3.8 / 14.5 s, now 0.9 / 1.1 /
    1.5 s).  The edits placed are counted at two sizes: they grow as the calls."""
    from flake8_torch04.fix import fixer
    from flake8_torch04.fix.analysis import Analysis

    placed = []
    original = fixer.edit_spans

    def counting(text, edits, positions=None):
        placed.append(len(edits))
        return original(text, edits, positions)

    monkeypatch.setattr(fixer, "edit_spans", counting)
    totals = []
    for calls in (200, 400):
        placed.clear()
        source = _volatile_function(calls)
        result = fixer.fix_text(source, lambda text: Analysis(text, ["TV001", "TV002"]), True)
        assert "volatile" not in result.text and "Variable(" not in result.text
        totals.append(sum(placed))
    assert totals[1] <= 2.5 * totals[0], totals


def test_assigned_attributes_reads_each_owner_from_its_dot():
    """The owner is read backwards from the dot, not tried at every character
    of every word (a 200,000-character name was quadratic); the pairs are the
    ones the whole-pattern search finds."""
    from flake8_torch04.analysis.lines import assigned_attributes

    whole = re.compile(r"(\w*)[ \t]*\.[ \t]*(\w+)[ \t]*(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)")
    text = ("args.lr = 0.1\nx[0].y += 2\nfoo .bar= 3\nself.x == 2\nq.w.e = 1\n"
            "abc\t.\tdef //= 2\n.x = 1\nf(a).b **= 2\nn.m <= 3\nopt.lr*=0.5\n")
    assert assigned_attributes(text) == whole.findall(text) == [
        ("args", "lr"), ("", "y"), ("foo", "bar"), ("w", "e"), ("abc", "def"),
        ("", "x"), ("", "b"), ("opt", "lr")]
    long_name = "w" * 200_000
    assert assigned_attributes(long_name + ".a = 1") == [(long_name, "a")]
    assert assigned_attributes(long_name) == []
