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


def test_a_checked_files_tree_is_freed_when_the_check_returns():
    """No cycle made by the rules keeps the tree alive: freed by reference
    counting, a file's tree never reaches the cyclic collector (which would
    scan it again and again while later files are checked)."""
    import gc
    import weakref

    from flake8_torch04.analysis.run import check
    from flake8_torch04.source.text import lines_of

    enabled = gc.isenabled()
    gc.disable()  # (a collection would hide a cycle: only reference counting frees here)
    try:
        tree = ast.parse(FLOWING)
        # (``Load``, ``Add`` and the like are shared singletons: only nodes with a position)
        nodes = [weakref.ref(node) for node in ast.walk(tree) if hasattr(node, "lineno")]
        assert len(nodes) > 60
        findings = check(tree, lines_of(FLOWING), "train.py")
        assert {f.code for f in findings} >= {"TV001", "TV002", "TV003", "TV123"}
        del tree
        alive = sum(ref() is not None for ref in nodes)
    finally:
        if enabled:
            gc.enable()
    assert alive == 0


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
