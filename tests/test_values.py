"""The value facts (``analysis/values.py``): what an expression is where the code
makes it evident, and unknown everywhere else."""
import ast
import textwrap
from pathlib import Path

import pytest

from flake8_torch04.analysis.context import Context
from flake8_torch04.analysis.gate import WALK
from flake8_torch04.analysis.run import check_source
from flake8_torch04.analysis.values import NDARRAY, NUMBER, TENSOR, TUPLE, Values
from flake8_torch04.analysis.walker import Walker
from flake8_torch04.source.text import lines_of


def facts(source, filename="t.py"):
    """``{expression: (kind, rank, dtype)}`` for every ``show(expression)`` call."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    ctx = Context(tree, lines_of(source), filename, source)
    Walker(ctx, [WALK], None, None).run()  # (module-level imports bound, as in a rule)
    values = Values(ctx)
    parents = ctx.file_parents()

    def scope_of(node):
        parent = parents.get(id(node))
        while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.Module)):
            parent = parents.get(id(parent))
        return parent or tree

    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "show":
            value = values.of(node.args[0], scope_of(node))
            found[ast.unparse(node.args[0])] = (value.kind, value.rank, value.dtype)
    return found


def shown_values(source):
    """The tree, its :class:`Values` and the expressions given to ``show(...)`` (in
    ``ast.walk``'s order), for tests that read more than ``facts``' triples."""
    tree = ast.parse(source)
    ctx = Context(tree, lines_of(source), "t.py", source)
    Walker(ctx, [WALK], None, None).run()
    shown = [n.args[0] for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and n.func.id == "show"]
    return tree, Values(ctx), shown


HEAD = """\
import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd import Variable
"""


@pytest.mark.parametrize("body, expression, expected", [
    # constructors with sizes or data
    ("x = torch.zeros(3, 4)", "x", (TENSOR, 2, "float")),
    # ``topk`` keeps the rank (``k`` by keyword too); ``kthvalue(k)`` and ``norm(p)``
    # take their dimension second: a full reduction without it
    ("x = torch.topk(torch.zeros(6), k=3)[1]", "x", (TENSOR, 1, "int")),
    ("x = torch.zeros(4, 5).kthvalue(2)[0]", "x", (TENSOR, 1, "float")),
    ("x = torch.zeros(4, 5).norm(2)", "x", (TENSOR, 0, "float")),
    ("x = torch.norm(torch.zeros(4, 5), 2, 1)", "x", (TENSOR, 1, "float")),
    # numpy makers: the shape's rank, the dtype's family; a list of ints as an index
    ("x = np.empty([10, 1], dtype=np.uint8)", "x", (NDARRAY, 2, "uint8")),
    ("x = np.zeros((4, 3))", "x", (NDARRAY, 2, "float")),
    ("x = np.random.randn(3, 2)", "x", (NDARRAY, 2, "float")),
    ("x = np.random.randint(0, 5, size=(2, 3, 4))", "x", (NDARRAY, 3, "int")),
    ("x = np.zeros(5, dtype='int64')[[0, 2]]", "x", (NDARRAY, 1, "int")),
    ("x = torch.from_numpy(np.ones((2, 2), dtype=np.float32))", "x", (TENSOR, 2, "float")),
    ("import random\nx = np.zeros((9, 2))[random.sample(range(9), 4)]", "x",
     (NDARRAY, 2, "float")),
    # a numpy draw without a size is one number; with one, an array
    ("x = np.random.beta(1.0, 1.0)", "x", (NUMBER, None, "float")),
    ("x = np.random.randint(0, 5)", "x", (NUMBER, None, "int")),
    ("x = np.random.rand()", "x", (NUMBER, None, "float")),
    ("x = np.random.beta(1.0, 1.0, size=None)", "x", (NUMBER, None, "float")),
    ("x = np.random.beta(1.0, 1.0, 4)", "x", (NDARRAY, 1, None)),
    ("x = np.random.normal(0, 1, size=(2, 3))", "x", (NDARRAY, 2, None)),
    ("x = np.random.rand(3)", "x", (NDARRAY, 1, "float")),
    # an in-place method returns its tensor as it was, unless it reshapes it
    ("x = torch.LongTensor(4, 1).random_(0, 2)", "x", (TENSOR, 2, "int")),
    ("x = torch.zeros(4, 1).unsqueeze_(0)", "x", (TENSOR, None, None)),
    # indexing: each int drops a dimension, ``None`` adds one, ``...`` and slices keep
    ("x = torch.zeros(3, 4)[..., 0]", "x", (TENSOR, 1, "float")),
    ("x = torch.zeros(3, 4)[:, None]", "x", (TENSOR, 3, "float")),
    ("x = torch.zeros(2, 3, 4)[0, ..., None, 1:]", "x", (TENSOR, 3, "float")),
    ("x = torch.zeros((3, 4))", "x", (TENSOR, 2, "float")),
    ("n = len(items)\nx = torch.zeros(n)", "x", (TENSOR, 1, "float")),
    ("x = torch.FloatTensor([1])", "x", (TENSOR, 1, "float")),
    ("x = torch.LongTensor([[1, 2], [3, 4]])", "x", (TENSOR, 2, "int")),
    ("x = torch.tensor(1.)", "x", (TENSOR, 0, None)),
    ("x = torch.zeros(3, dtype=torch.long)", "x", (TENSOR, 1, "int")),
    # joining: cat keeps the elements' rank, stack adds one; elements that disagree
    ("x = torch.cat([torch.ones(4), torch.zeros(4)])", "x", (TENSOR, 1, "float")),
    ("x = torch.cat((torch.ones(2, 3), torch.zeros(2, 3)), 1)", "x", (TENSOR, 2, "float")),
    ("x = torch.stack([torch.ones(3).long(), torch.zeros(3).long()])", "x",
     (TENSOR, 2, "int")),
    ("x = torch.cat([torch.ones(4), torch.zeros(2, 2)])", "x", (TENSOR, None, "float")),
    ("x = torch.cat(parts)", "x", (TENSOR, None, None)),
    # pieces: split/chunk keep the rank, read through an index, unpacking, a slice, a loop
    ("x = torch.zeros(4, 6)\ny = torch.split(x, 3, 1)[0]", "y", (TENSOR, 2, "float")),
    ("x = torch.zeros(4, 6)\na, b = x.chunk(2, 1)", "b", (TENSOR, 2, "float")),
    ("x = torch.zeros(4, 6)\nps = x.split(3, 1)\ny = torch.stack(ps[:-1])", "y",
     (TENSOR, 3, "float")),
    ("x = torch.zeros(4, 6).long()\nfor p in torch.chunk(x, 2):\n    show(p)", "p",
     (TENSOR, 2, "int")),
    # legacy typed constructors of data held by a name: a list of numbers is 1-D
    ("ids = [ord(c) for c in text]\nx = torch.LongTensor(ids)", "x", (TENSOR, 1, "int")),
    ("ids = [1, 2]\nx = torch.LongTensor(ids)", "x", (TENSOR, 1, "int")),
    ("rows = [r for r in table]\nx = torch.FloatTensor(rows)", "x", (TENSOR, None, "float")),
    ("abc = 'abc'\nx = torch.LongTensor([abc.find(c) - 1 for c in t])", "x", (TENSOR, 1, "int")),
    ("x = torch.LongTensor([c.find('a') for c in words])", "x", (TENSOR, None, "int")),
    ("x = torch.LongTensor([d[c] for c in words])", "x", (TENSOR, None, "int")),
    ("x = torch.FloatTensor([-len(w) / 2 for w in words])", "x", (TENSOR, None, "float")),
    ("ids = [c for c in text]\nc = 1\nx = ids[0]", "x", (None, None, None)),
    # reductions, pairs, indexing
    ("x = torch.zeros(3, 4)\ny = x.sum()", "y", (TENSOR, 0, "float")),
    ("x = torch.zeros(3, 4)\ny = x.sum(1)", "y", (TENSOR, 1, "float")),
    ("x = torch.zeros(3, 4)\ny = x.sum(1, keepdim=True)", "y", (TENSOR, 2, "float")),
    ("x = torch.zeros(3, 4)\n_, p = x.max(1)", "p", (TENSOR, 1, "int")),
    ("x = torch.zeros(3, 4)\np = x.max(1)[1]", "p", (TENSOR, 1, "int")),
    ("x = torch.zeros(3, 4)\np = x.max(1)[1]\ne = p.data[0]", "e", (TENSOR, 0, "int")),
    ("_, p = torch.max(out.data, 1)\nc = p.eq(t).sum()", "c", (TENSOR, 0, "int")),
    ("x = torch.zeros(3, 4)\ny = x[0]", "y", (TENSOR, 1, "float")),
    ("x = torch.zeros(3, 4)\ny = x[:, 0]", "y", (TENSOR, 1, "float")),
    ("x = torch.zeros(3, 4)\ny = x.view(-1)", "y", (TENSOR, 1, "float")),
    ("x = torch.zeros(3)\ny = x.unsqueeze(0)", "y", (TENSOR, 2, "float")),
    ("x = torch.zeros(3)\ny = x.long()", "y", (TENSOR, 1, "int")),
    ("x = torch.zeros(3)\ny = x > 0", "y", (TENSOR, 1, "bool")),
    ("x = torch.zeros(3)\ny = x.item()", "y", (NUMBER, None, "float")),
    ("x = torch.zeros(3).long()\ny = x.sum().item() // 2", "y", (NUMBER, None, "int")),
    ("x = torch.zeros(3)\ny = x.numpy()", "y", (NDARRAY, 1, "float")),
    # loops
    ("for t in torch.LongTensor([1, 2]):\n    show(t)", "t", (TENSOR, 0, "int")),
    ("for i, t in enumerate(torch.zeros(2, 3)):\n    show(t)", "t", (TENSOR, 1, "float")),
    ("for a, b in zip(xs, torch.LongTensor([1])):\n    show(b)", "b", (TENSOR, 0, "int")),
    # a dict literal's entry, read by its key
    ("c = {'n': 4, 'lr': 0.1}\nx = torch.zeros(c['n'])", "x", (TENSOR, 1, "float")),
    ("c = {'n': 4, 'lr': 0.1}\nx = c['lr']", "x", (NUMBER, None, "float")),
])
def test_what_the_code_makes_evident(body, expression, expected):
    source = HEAD + "def f(xs, out, t, items):\n" + textwrap.indent(body, "    ") + \
        f"\n    show({expression})\n"
    assert facts(source)[expression] == expected


@pytest.mark.parametrize("body, expression", [
    ("x = model(y)", "x"),  # a call of something unresolved
    ("x = y.max(1)[1]", "x"),  # a method of an unknown value (numpy has max too)
    ("x = torch.zeros(n)", "x"),  # a parameter may hold a whole shape
    ("x = torch.zeros(3)\nif c:\n    x = torch.zeros(3, 4)", "x"),  # two ranks reach
    ("x = f(y)", "x"),  # a function of another module
    # a dict's entry where the file writes that key, or updates a dict from elsewhere
    ("c = {'n': 4}\nc['n'] = (4, 2)\nx = torch.zeros(c['n'])", "x"),
    ("c = {'n': 4}\nc.update(n=(4, 2))\nx = torch.zeros(c['n'])", "x"),
    ("c = {'n': 4}\nc.update(vars(y))\nx = torch.zeros(c['n'])", "x"),
    ("c = {'n': 4}\nc.update(**y)\nx = torch.zeros(c['n'])", "x"),
    ("c = {'n': 4}\nx = torch.zeros(c['m'])", "x"),  # a key it does not hold
    ("c = dict(n=4)\nx = torch.zeros(c['n'])", "x"),
])
def test_unknown_stays_unknown(body, expression):
    source = HEAD + "from helpers import f\n\n\ndef g(y, n, c, model):\n" + \
        textwrap.indent(body, "    ") + f"\n    show({expression})\n"
    kind, rank, _ = facts(source)[expression]
    assert rank is None


def test_two_definitions_that_disagree_on_the_rank_give_only_what_they_share():
    source = HEAD + (
        "def g(c):\n    x = torch.zeros(3)\n    if c:\n        x = torch.zeros(3, 4)\n"
        "    show(x)\n")
    assert facts(source)["x"] == (TENSOR, None, "float")


def test_a_function_of_the_file_returns_what_every_return_gives():
    source = HEAD + (
        "def loss_of(x):\n    return (x * x).mean() if False else torch.ones(2).sum()\n\n"
        "def helper():\n    return torch.ones(2).sum()\n\n"
        "def g():\n    show(helper())\n")
    assert facts(source)["helper()"] == (TENSOR, 0, "float")


def test_a_helper_that_only_wraps_its_argument_gives_the_arguments_rank():
    """``cuda_variable(torch.zeros(n))``, with a helper that returns ``Variable(t)`` or
    ``Variable(t.cuda())``: 1-D at this call, whatever other calls pass."""
    source = HEAD + (
        "def wrap(t, volatile=False):\n    if torch.cuda.is_available():\n"
        "        return Variable(t.cuda(), volatile=volatile)\n    return Variable(t)\n\n"
        "def changed(t):\n    t = t.view(-1)\n    return Variable(t)\n\n"
        "def other(t):\n    return Variable(t.sum(0))\n\n"
        "def g(items):\n    n = len(items)\n    show(wrap(torch.zeros(n)))\n"
        "    show(wrap(torch.zeros(2, n)))\n"
        "    show(wrap(x))\n    show(changed(torch.zeros(2, n)))\n"
        "    show(other(torch.zeros(2, n)))\n    other(torch.zeros(n, 2, n))\n"
        "    show(wrap(t=torch.zeros(2)))\n"
        "    show(to_gpu(True, torch.zeros(2, 3)))\n    show(to_gpu(True, var=torch.zeros(4)))\n"
        "\ndef to_gpu(gpu, var):\n    if gpu:\n        return var.cuda()\n    return var\n")
    found = facts(source)
    assert found["wrap(torch.zeros(n))"] == (TENSOR, 1, "float")
    assert found["wrap(torch.zeros(2, n))"] == (TENSOR, 2, "float")
    assert found["wrap(x)"] == (TENSOR, None, None)
    assert found["changed(torch.zeros(2, n))"][1] != 2  # (the parameter is rebound)
    # (a reduction: not a wrapper, read for what this call passes: ``t.sum(0)`` of 2-D)
    assert found["other(torch.zeros(2, n))"][1] == 1
    assert found["wrap(t=torch.zeros(2))"][1] == 1  # (by keyword too)
    # the parameter every return gives, whichever its position
    assert found["to_gpu(True, torch.zeros(2, 3))"][:2] == (TENSOR, 2)
    assert found["to_gpu(True, var=torch.zeros(4))"][:2] == (TENSOR, 1)


def test_a_function_with_a_bare_return_is_unknown():
    source = HEAD + (
        "def helper(c):\n    if c:\n        return\n    return torch.ones(2).sum()\n\n"
        "def g():\n    show(helper(1))\n")
    assert facts(source)["helper(1)"] == (None, None, None)


def test_self_attributes_across_methods():
    source = HEAD + (
        "class M:\n    def __init__(self):\n        self.w = torch.zeros(3, 4)\n"
        "    def g(self):\n        show(self.w)\n        show(self.w.t())\n")
    found = facts(source)
    assert found["self.w"] == (TENSOR, 2, "float")
    assert found["self.w.t()"] == (TENSOR, 2, "float")


def test_self_attribute_set_twice_differently_is_what_both_share():
    source = HEAD + (
        "class M:\n    def __init__(self):\n        self.w = torch.zeros(3, 4)\n"
        "    def reset(self):\n        self.w = torch.zeros(3)\n"
        "    def g(self):\n        show(self.w)\n")
    assert facts(source)["self.w"] == (TENSOR, None, "float")


def test_a_self_attribute_remade_from_itself_keeps_what_its_other_bindings_make():
    """``self.support = self.support.cuda()`` (0.3's way to move a tensor kept in
    ``self``) is what the first binding makes, moved; ``.long()`` changes the dtype;
    an attribute bound only from itself, or also from an unknown value, stays unknown."""
    source = HEAD + (
        "class M:\n    def __init__(self, args):\n"
        "        self.support = torch.linspace(0, 1, args.atoms)\n"
        "        self.ids = torch.zeros(3, 4)\n        self.odd = args.odd\n"
        "        if args.cuda:\n            self.support = self.support.cuda()\n"
        "            self.ids = self.ids.cuda().long()\n"
        "            self.odd = self.odd.cuda()\n            self.alone = self.alone.cuda()\n"
        "        self.fc = torch.nn.Linear(3, 4)\n        self.fc = self.fc.cuda()\n"
        "    def g(self):\n        show(self.support)\n        show(self.ids)\n"
        "        show(self.odd)\n        show(self.alone)\n        show(self.fc(x))\n")
    found = facts(source)
    assert found["self.fc(x)"][0] == TENSOR  # (a module moved is the module)
    assert found["self.support"] == (TENSOR, 1, "float")
    assert found["self.ids"] == (TENSOR, 2, None)  # (float, or int64 once moved)
    assert found["self.odd"][1] is None and found["self.alone"][1] is None


def test_a_plain_method_that_returns_its_argument_gives_this_calls_rank():
    """``idxs = dev.to_device(idxs)`` (end-to-end-negotiator's device helper, a
    method of a plain class): the argument's rank at this call, whatever other
    calls pass; ``np.array`` of a list of numbers is 1-D."""
    source = HEAD + (
        "class Dev(object):\n    def __init__(self, gpu):\n        self.gpu = gpu\n"
        "    def to_device(self, x):\n        return x.cuda() if self.gpu else x\n"
        "def choose(choices):\n    dev = Dev(False)\n"
        "    idxs = Variable(torch.from_numpy(np.array(choices)))\n"
        "    show(np.array(choices))\n    show(dev.to_device(idxs))\n"
        "    show(dev.to_device(torch.zeros(2, 3)))\n"
        "choose([0, 2, 4])\n")
    found = facts(source)
    assert found["np.array(choices)"][:2] == (NDARRAY, 1)
    assert found["dev.to_device(idxs)"][:2] == (TENSOR, 1)
    assert found["dev.to_device(torch.zeros(2, 3))"][:2] == (TENSOR, 2)


def test_a_shadowed_torch_is_not_torch():
    source = HEAD + "def g(torch):\n    x = torch.zeros(3)\n    show(x)\n"
    assert facts(source)["x"][0] is None


def test_tuples_of_max_with_dim():
    source = HEAD + "def g():\n    x = torch.zeros(2, 3)\n    show(x.max(1))\n"
    assert facts(source)["x.max(1)"][0] == TUPLE


def last_sizes(source):
    """``{expression: (kind, rank, last)}`` for every ``show(expression)`` call."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    ctx = Context(tree, lines_of(source), "t.py", source)
    Walker(ctx, [WALK], None, None).run()
    values = Values(ctx)
    parents = ctx.file_parents()
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "show":
            scope = parents.get(id(node))
            while not isinstance(scope, (ast.FunctionDef, ast.Module)):
                scope = parents.get(id(scope))
            value = values.of(node.args[0], scope)
            found[ast.unparse(node.args[0])] = (value.kind, value.rank, value.last)
    return found


MODULES = HEAD + """\
import torch.nn as nn


class Dis(nn.Module):
    def __init__(self):
        super(Dis, self).__init__()
        self.dis = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())

    def forward(self, x):
        return self.dis(x)


class Flat(nn.Module):
    def __init__(self):
        super(Flat, self).__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(x.view(x.size(0), -1))


class Cell(nn.Module):
    def __init__(self):
        super(Cell, self).__init__()
        self.cell = nn.LSTMCell(4, 4)
        self.out = nn.Linear(4, 2)

    def forward(self, x, state, scale=1):
        h, c = self.cell(x, state)
        if scale != 1:
            h = h * 2
        return self.out(h)


D = Dis()
if torch.cuda.is_available():
    D = D.cuda()
crit = nn.BCELoss()
head = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())


def g(y):
    x = torch.randn(5, 4)
    show(head(x))
    show(D(x))
    show(D(y))
    show(D(x, x))
    show(D(input=x))
    show(Cell()(y, (y, y)))
    show(Cell()(y, (y, y), 2))
    show(Cell()(y))
    show(Flat()(x))
    show(crit)
    show(nn.Linear(4, out_features=2)(x))
    show(Variable(torch.ones(5)).cuda())
    show(torch.FloatTensor(5).fill_(1))
    show(torch.ones(5).unsqueeze(1))
    show(torch.ones(5).unsqueeze(0))
    show(torch.zeros(3, 1).float() * 2)
    show(torch.zeros(3, 1).t())
    show(torch.zeros(6).view(-1, 1))
    show(torch.zeros(6).view(3, -1))
    show(torch.multinomial(torch.exp(head(x)), 1))
    show(torch.rand(3).multinomial(2))
    show(torch.rand(5, 3).multinomial())
    show(x.multinomial(num_samples=y))
"""


@pytest.mark.parametrize("expression, expected", [
    # a Sequential is what its layers make of the input: Linear(., 1) gives a last size 1
    ("head(x)", (TENSOR, 2, 1)),
    # a module class of the file: what its forward returns for what the call
    # passes (a 2-D ``x``); for an argument of unknown rank, what it returns anyway
    ("D(x)", (TENSOR, 2, 1)),
    ("D(y)", (TENSOR, None, 1)),
    ("D(x, x)", (None, None, None)),  # (more arguments than ``forward`` takes)
    ("D(input=x)", (None, None, None)),  # (a keyword: not read)
    # what forward returns whatever it is given, for any call that binds it
    ("Cell()(y, (y, y))", (TENSOR, 2, 2)),
    ("Cell()(y, (y, y), 2)", (TENSOR, 2, 2)),
    ("Cell()(y)", (None, None, None)),  # (too few arguments)
    ("Flat()(x)", (TENSOR, 2, 3)),
    # a module bound at the top of the module, read in a function
    ("crit", ("module", 0, None)),  # (a loss module: rank 0 is its output's)
    ("nn.Linear(4, out_features=2)(x)", (TENSOR, 2, 2)),
    ("Variable(torch.ones(5)).cuda()", (TENSOR, 1, 5)),
    ("torch.FloatTensor(5).fill_(1)", (TENSOR, 1, 5)),
    ("torch.ones(5).unsqueeze(1)", (TENSOR, 2, 1)),
    ("torch.ones(5).unsqueeze(0)", (TENSOR, 2, None)),
    ("torch.zeros(3, 1).float() * 2", (TENSOR, 2, 1)),
    ("torch.zeros(3, 1).t()", (TENSOR, 2, None)),
    ("torch.zeros(6).view(-1, 1)", (TENSOR, 2, 1)),
    ("torch.zeros(6).view(3, -1)", (TENSOR, 2, None)),
    # samples: a row of them for each row of probabilities (0.3's default: one)
    ("torch.multinomial(torch.exp(head(x)), 1)", (TENSOR, 2, 1)),
    ("torch.rand(3).multinomial(2)", (TENSOR, 1, 2)),
    ("torch.rand(5, 3).multinomial()", (TENSOR, 2, 1)),
    ("x.multinomial(num_samples=y)", (TENSOR, 2, None)),
])
def test_last_sizes_and_modules(expression, expected):
    assert last_sizes(MODULES)[expression] == expected


def test_a_global_bound_twice_differently_or_rebound_is_unknown():
    top = HEAD + "import torch.nn as nn\ncrit = nn.BCELoss()\nw = torch.zeros(3)\n"
    twice = last_sizes(top + "if c:\n    crit = nn.MSELoss()\n\n\ndef g():\n    show(crit)\n")
    assert twice["crit"] == ("module", 0, None)  # (a loss module, of no one class)
    assert last_sizes(top + "\n\ndef g():\n    show(w)\n")["w"] == (TENSOR, 1, 3)
    rebound = last_sizes(top + "\n\ndef f():\n    global w\n    w = 1\n\n\n"
                         "def g():\n    show(w)\n")
    assert rebound["w"] == (None, None, None)
    closure = last_sizes(top + "\n\ndef g(w):\n    def inner():\n        show(w)\n")
    assert closure["w"] == (None, None, None)


def _built(body):
    """``last_sizes`` of ``show(mlp(x))`` after ``body`` (a function's, on 2-D ``x``)."""
    source = HEAD + "import torch.nn as nn\n\n\ndef f(c, make, init, rows):\n" + \
        textwrap.indent(textwrap.dedent(body), "    ") + \
        "    x = torch.randn(4, 3)\n    show(mlp(x))\n"
    return last_sizes(source)["mlp(x)"]


@pytest.mark.parametrize("body, expected", [
    # added straight on: the layers in their order (a Linear's features: ``last``)
    ("mlp = nn.Sequential()\nmlp.add_module('L0', nn.Linear(3, 2))\n", (TENSOR, 2, 2)),
    ("mlp = nn.Sequential()\nmlp.add_module(name='L0', module=nn.Linear(3, 2))\n",
     (TENSOR, 2, 2)),
    ("mlp = nn.Sequential(nn.Linear(3, 4))\nmlp.add_module('out', nn.Linear(4, 1))\n",
     (TENSOR, 2, 1)),
    ("mlp = nn.Sequential()\nwith torch.no_grad():\n    mlp.add_module('L0', nn.Linear(3, 2))\n",
     (TENSOR, 2, 2)),
    # in a loop or a branch: rank-keeping layers keep the rank, features unknown...
    ("mlp = nn.Sequential()\nfor i in range(rows):\n"
     "    mlp.add_module('L%i' % i, nn.Linear(3, 3))\n    mlp.add_module('A%i' % i, nn.ReLU())\n",
     (TENSOR, 2, None)),
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 5))\n"
     "if c:\n    mlp.add_module('S', nn.Sigmoid())\nelse:\n    mlp.add_module('R', nn.ReLU())\n",
     (TENSOR, 2, 5)),
    ("mlp = nn.Sequential()\nfor i in range(rows):\n    mlp.add_module('A', nn.ReLU())\n"
     "mlp.add_module('out', nn.Linear(3, 1))\n", (TENSOR, 2, 1)),
    ("mlp = nn.Sequential()\nif c:\n    mlp.add_module('L', nn.Linear(3, 5))\n", (TENSOR, 2, None)),
    # ... names that may repeat replace a layer in its place: every layer is such
    ("mlp = nn.Sequential()\nmlp.add_module('a', nn.Linear(3, 2))\n"
     "mlp.add_module('a', nn.ReLU())\n", (TENSOR, 2, None)),
    ("mlp = nn.Sequential(nn.ReLU())\nmlp.add_module('0', nn.Linear(3, 2))\n", (TENSOR, 2, None)),
    # unknown: a module of unknown kind, a layer of another rank in a branch, the
    # module handed on or changed otherwise, ``add_module`` called otherwise
    ("mlp = nn.Sequential()\nmlp.add_module('L', make())\n", (None, None, None)),
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 2))\n"
     "if c:\n    mlp.add_module('C', nn.Conv1d(3, 3, 1))\n", (None, None, None)),
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 2))\ninit(mlp)\n",
     (None, None, None)),
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 2))\nother = mlp\n",
     (None, None, None)),
    ("mlp = nn.Sequential(nn.Linear(3, 2))\nmlp.add_module('L', nn.Linear(2, 2))\ndel mlp[0]\n",
     (None, None, None)),
    ("mlp = nn.Sequential(nn.Linear(3, 2))\nmlp.add_module('L', nn.Linear(2, 2))\n"
     "mlp[0] = nn.Conv1d(3, 3, 1)\n", (None, None, None)),
    ("mlp = nn.Sequential()\nmlp.add_module(*rows)\n", (None, None, None)),
    # given layers alone; changed or handed on where the file says ``add_module``
    # (a limit, for the cost: a file that never says it is not read for uses)
    ("mlp = nn.Sequential(nn.Linear(3, 2))\n", (TENSOR, 2, 2)),
    ("mlp = nn.Sequential(nn.Linear(3, 2))\ndel mlp[0]\n", (TENSOR, 2, 2)),
    ("mlp = nn.Sequential(nn.Linear(3, 2))\ninit(mlp)\n", (TENSOR, 2, 2)),
    ("mlp = nn.Sequential(nn.Linear(3, 2))\ndel mlp[0]\nm = nn.Sequential()\n"
     "m.add_module('L', nn.Linear(3, 2))\n", (None, None, None)),
    ("mlp = nn.Sequential(nn.Linear(3, 2))\ninit(mlp)\nm = nn.Sequential()\n"
     "m.add_module('L', nn.Linear(3, 2))\n", (None, None, None)),
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 2))\n"
     "mlp.extra = nn.Conv1d(3, 3, 1)\n", (None, None, None)),
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 2))\nmlp = c\n", (None, None, None)),
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 2))\n"
     "def g():\n    mlp.add_module('C', nn.Conv1d(3, 3, 1))\n", (None, None, None)),
    # reads that keep it: its parameters, ``cuda()`` as a statement, a layer, ``len``
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 2))\nmlp.cuda()\n"
     "opt = init(mlp.parameters())\nfirst = mlp[0]\nn = len(mlp)\nprint(mlp)\n", (TENSOR, 2, 2)),
    ("mlp = nn.Sequential()\nmlp.add_module('L', nn.Linear(3, 2))\nm = mlp.cuda()\n",
     (None, None, None)),
])
def test_a_sequential_has_the_layers_add_module_adds(body, expected):
    assert _built(body) == expected


SELF_BUILT = HEAD + """\
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, sizes):
        super(Encoder, self).__init__()
        self.MLP = nn.Sequential()
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            self.MLP.add_module(name="L%i" % i, module=nn.Linear(a, b))
            self.MLP.add_module(name="A%i" % i, module=nn.ReLU())
        self.means = nn.Linear(sizes[-1], 2)

    def forward(self, x):
        return self.means(self.MLP(x))


class Decoder(nn.Module):
    def __init__(self, sizes):
        super(Decoder, self).__init__()
        self.MLP = nn.Sequential()
        self.MLP.add_module("L", nn.Linear(2, 4))
        self.MLP.add_module("C", nn.Conv1d(4, 4, 1))

    def forward(self, z):
        return self.MLP(z)


class Later(nn.Module):
    def __init__(self):
        super(Later, self).__init__()
        self.MLP = nn.Sequential()
        self.MLP.add_module("L", nn.Linear(2, 4))

    def grow(self):
        self.MLP.add_module("C", nn.Conv1d(4, 4, 1))

    def forward(self, z):
        return self.MLP(z)


def g():
    x = torch.randn(5, 3)
    show(Encoder([3, 4])(x))
    show(Decoder([4])(x))
    show(Later()(x))
"""


def test_a_sequential_an_init_fills_has_its_layers_in_the_class():
    """``self.MLP = nn.Sequential()`` then ``self.MLP.add_module(...)`` in the
    ``__init__`` (a 0.3-era VAE's encoder): each class's own ``self.MLP``; one
    another method changes has no known layers."""
    found = last_sizes(SELF_BUILT)
    assert found["Encoder([3, 4])(x)"] == (TENSOR, 2, 2)
    assert found["Decoder([4])(x)"] == (TENSOR, 3, None)  # (Conv1d: its own rank)
    assert found["Later()(x)"] == (None, None, None)
    elsewhere = last_sizes(SELF_BUILT + "    Encoder([3]).MLP.add_module('C', g)\n")
    assert elsewhere["Encoder([3, 4])(x)"] == (TENSOR, None, 2)  # (``means`` of unknown rank)


def test_a_function_that_builds_a_sequential_returns_its_layers():
    built = HEAD + textwrap.dedent("""\
        import torch.nn as nn


        def build(n):
            model = nn.Sequential()
            model.add_module("linear_1", nn.Linear(n, 512))
            model.add_module("sigmoid_1", nn.Sigmoid())
            model.add_module("linear_2", nn.Linear(512, 10))
            return model


        def early(n):
            model = nn.Sequential()
            if n:
                return model
            model.add_module("linear_1", nn.Linear(n, 512))
            return model


        def g():
            x = torch.randn(5, 3)
            show(build(3)(x))
            show(early(3)(x))
    """)
    found = last_sizes(built)
    assert found["build(3)(x)"] == (TENSOR, 2, 10)
    assert found["early(3)(x)"] == (None, None, None)


def test_a_closure_reads_what_the_enclosing_function_binds():
    """A nested function (a ``loss_fn`` inside ``main``) sees the enclosing
    function's bindings, and the module's past them; a class body is skipped."""
    top = HEAD + "import torch.nn as nn\nw = torch.zeros(3)\n"
    found = last_sizes(top + textwrap.dedent("""


        def main():
            crit = nn.BCELoss()
            v = torch.zeros(2, 4)

            def loss_fn():
                show(crit)
                show(w)

            class Head(object):
                def forward(self):
                    show(v)
    """))
    assert found["crit"][0] == "module" and found["w"] == (TENSOR, 1, 3)
    assert found["v"] == (TENSOR, 2, 4)
    unknown = last_sizes(top + textwrap.dedent("""


        def main(items):
            for v in items:
                pass
            n = torch.zeros(2)

            def inner():
                nonlocal n
                n = 1
                show(v)

            def other():
                show(n)
    """))
    assert unknown["v"] == unknown["n"] == (None, None, None)


def test_a_call_that_passes_a_constant_reads_the_branches_it_decides():
    """``if average: RE = torch.mean(RE)``: the call with ``average=True`` gets the
    0-dim mean, the call leaving the default ``False`` the 1-D sums; a parameter
    the function rebinds, or an argument that is no constant, decides nothing."""
    found = last_sizes(HEAD + textwrap.dedent("""
        import torch.nn as nn


        def terms(x, average=False, mode='sum'):
            RE = torch.zeros(4, 3).sum(1)
            if average:
                RE = torch.mean(RE)
            if mode is None or mode != 'sum':
                return RE, RE.view(2, 2)
            return RE, x


        def rebound(x, average=True):
            RE = torch.zeros(4)
            if average:
                RE = RE.mean()
            average = False
            return RE


        class Model(nn.Module):
            def loss(self, flat=True):
                if not flat:
                    return torch.zeros(2, 3)
                return torch.zeros(6)

            def forward(self, flag):
                show(self.loss())
                show(self.loss(False))
                show(self.loss(flag))


        show(terms(1, average=True)[0])
        show(terms(1)[0])
        show(terms(1, True, 'mean')[1])
        show(terms(1, flag)[0])
        show(rebound(1))
    """))
    assert found["terms(1, average=True)[0]"] == (TENSOR, 0, None)
    assert found["terms(1)[0]"] == (TENSOR, 1, None)
    assert found["terms(1, True, 'mean')[1]"] == (TENSOR, 2, 2)
    assert found["self.loss()"] == (TENSOR, 1, 6)
    assert found["self.loss(False)"] == (TENSOR, 2, 3)
    assert found["self.loss(flag)"][1] is None
    assert found["terms(1, flag)[0]"][1] is None
    assert found["rebound(1)"][1] is None


def test_min_max_of_numbers_sibling_closures_and_sampled_pairs():
    """``min(1, i / 10)`` is a number (``max`` of a tensor is not known); a closure
    calls a function its enclosing one defines; two indices read an element of
    ``multinomial``'s samples, whatever rank its probabilities have."""
    found = facts(HEAD + textwrap.dedent("""
        def main(p, t, step):
            def weight(k):
                return torch.zeros(3).sum()

            def loss_fn(x):
                show(weight(x))
                return x

            for i in range(step):
                show(min(1, i / 10))
            show(max(t, 1))
            show(p.multinomial(1).data[0, 0])
            show(p.multinomial(1).data[0])
    """))
    assert found["weight(x)"] == (TENSOR, 0, "float")
    assert found["min(1, i / 10)"][0] == NUMBER
    assert found["max(t, 1)"][0] is None
    assert found["p.multinomial(1).data[0, 0]"][:2] == (TENSOR, 0)
    assert found["p.multinomial(1).data[0]"][1] is None


def test_command_line_options_of_a_type_are_numbers():
    """``args.x0`` where ``add_argument('--x0', type=int, default=...)`` made it, also
    in a function the namespace is passed to; an option with ``nargs``, an
    ``action``, no value when not given, two types, assigned or ``set_defaults``
    again, or read from a namespace made elsewhere is unknown."""
    found = facts(HEAD + textwrap.dedent("""
        import argparse

        def main(args, other):
            show(args.x0)
            show(args.k)
            show(args.warm_up)
            show(args.mixed)
            show(args.sizes)
            show(args.cuda)
            show(args.seed)
            show(args.depth)
            show(args.twice)
            show(args.lr)
            show(args.decay)
            show(args.lam)
            show(args.steps)
            show(args.power)
            show(other.x0)

        parser = argparse.ArgumentParser()
        parser.add_argument('-x0', '--x0', type=int, default=2500)
        parser.add_argument('--k', type=float, default='0.0025')
        parser.add_argument('--warm-up', type=int, required=True)
        parser.add_argument('--mixed', type=int, default=0.5)
        parser.add_argument('--sizes', type=int, nargs='+', default=[1])
        parser.add_argument('--cuda', action='store_true')
        parser.add_argument('--seed', type=int)
        parser.add_argument('depth', type=int)
        parser.add_argument('--twice', type=int, default=1)
        parser.add_argument('--twice', type=float, default=1.0)
        parser.add_argument('--lr', type=float, default=0.1)
        parser.add_argument('--decay', dest='decay', type=float, default=0.1)
        parser.set_defaults(decay=None)
        parser.add_argument('--lam', type=float, default=0.0005 * 784)
        parser.add_argument('--steps', type=int, default=2 * 10)
        parser.add_argument('--power', type=int, default=2 ** -1)
        args = parser.parse_args()
        args.lr = None
        main(args, argparse.Namespace(x0='a'))
    """))
    assert found["args.x0"] == (NUMBER, None, "int")
    assert found["args.k"] == (NUMBER, None, "float")
    assert found["args.warm_up"] == (NUMBER, None, "int")
    assert found["args.mixed"] == (NUMBER, None, None)
    assert found["args.depth"] == (NUMBER, None, "int")
    assert found["args.lam"] == (NUMBER, None, "float")  # (arithmetic of constants)
    assert found["args.steps"] == (NUMBER, None, "int")
    assert found["args.power"] == (None, None, None)  # (``**`` may make a float)
    for unknown in ("sizes", "cuda", "seed", "twice", "lr", "decay"):
        assert found[f"args.{unknown}"] == (None, None, None), unknown
    assert found["other.x0"] == (None, None, None)


def test_a_parser_built_elsewhere_or_shadowed_types_give_no_options():
    found = facts(HEAD + textwrap.dedent("""
        import argparse
        from opts import parser

        int = float
        local = argparse.ArgumentParser()
        local.add_argument('--n', type=int, default=1)
        args = parser.parse_args()
        show(args.n)
        own = local.parse_args()
        show(own.n)
    """))
    assert found["args.n"] == (None, None, None)
    assert found["own.n"] == (None, None, None)  # (``int`` is not the builtin here)
    written = facts(HEAD + textwrap.dedent("""
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument('--n', type=int, default=1)
        args = parser.parse_args()
        vars(args).update(n=None)
        show(args.n)
    """))
    assert written["args.n"] == (None, None, None)


def test_a_name_rebound_from_itself_in_a_loop_keeps_what_every_round_keeps():
    """``s = s + torch.dot(a, b)`` in a loop (a new value each round, broadcast):
    1-D from ``torch.zeros(1)``; ``n = n + 1`` an int; ``t = 2 * t`` a new tensor of
    the rank broadcasting gives; an amount of unknown rank leaves it unknown.  Outside
    a loop, ``h = h + x`` is exactly what its expression makes (2-D)."""
    found = facts(HEAD + textwrap.dedent("""
        def overlap(xs, ys, rows):
            s, n, t, u = Variable(torch.zeros(1)), 0, torch.zeros(3), torch.zeros(1)
            v = Variable(torch.zeros(1))
            for x, y in zip(xs, ys):
                s = s + torch.dot(x, y)
                v = v + (x * y).sum()
                n = n + 1
                t = 2 * t
                u = u + rows
            h = torch.zeros(3)
            h = h + torch.zeros(2, 3)
            show(s)
            show(v)
            show(torch.dot(torch.zeros(2, 3), torch.zeros(2, 3)))
            show(n)
            show(t)
            show(u)
            show(h)
    """))
    assert found["s"][:2] == (TENSOR, 1)
    assert found["v"][:2] == (TENSOR, 1)  # (a whole sum of unknown values is 0-dim)
    assert found["torch.dot(torch.zeros(2, 3), torch.zeros(2, 3))"][:2] == (TENSOR, 0)
    assert found["n"] == (NUMBER, None, "int")
    assert found["t"] == (TENSOR, 1, "float")
    assert found["u"][1] is None
    assert found["h"] == (TENSOR, 2, "float")


def test_augmented_assignments_keep_what_every_round_keeps():
    """``step = 0`` then ``step += 1`` in a loop stays an int; ``total += x.item()``
    a number; a tensor accumulated in place keeps its rank, whatever is added
    (a larger operand raises: an in-place result cannot grow); a number
    accumulated with a tensor, or from nothing known, is unknown."""
    found = facts(HEAD + textwrap.dedent("""
        def train(xs, unknown):
            step, total, acc, mixed, grown = 0, 0, torch.zeros(()), 0, torch.zeros(())
            outside += 1
            for x in xs:
                step += 1
                total += torch.ones(3).sum().item()
                acc += torch.ones(3).sum()
                mixed += torch.ones(3)
                grown += torch.ones(2)
                unknown += 1
            show(step)
            show(total)
            show(acc)
            show(mixed)
            show(grown)
            show(unknown)
            show(outside)
    """))
    assert found["step"] == (NUMBER, None, "int")
    assert found["total"] == (NUMBER, None, None)
    assert found["acc"] == (TENSOR, 0, "float")
    assert found["mixed"] == (None, None, None)
    assert found["grown"][:2] == (TENSOR, 0)
    assert found["unknown"] == (None, None, None)
    assert found["outside"] == (None, None, None)


def test_attributes_of_a_plain_class_instance_and_tensors_of_a_comprehension():
    """``b = Batch()`` then ``b.rewards``: what ``Batch``'s methods bind to
    ``self.rewards``; a comprehension's tensors keep what they are whatever its
    names are. Unknown where the file assigns the attribute through another name,
    or the name is bound to something else too."""
    found = facts(HEAD + textwrap.dedent("""
        class Batch(object):
            def finish(self, rows):
                self.rewards = torch.stack([torch.FloatTensor(r) for r in rows])
                self.count = len(rows)
                self.moved = torch.zeros(3)


        class Other(object):
            def __init__(self):
                self.rewards = torch.zeros(2, 2)


        def run(rows, flag, other):
            b = Batch()
            b.finish(rows)
            show(b.rewards)
            show(b.count)
            show(b.moved)
            show([torch.FloatTensor(r) for r in rows])
            c = Batch() if flag else Other()
            show(c.rewards)
            d = Batch()
            if flag:
                d = Other()
            show(d.rewards)


        def move(b):
            b.moved = None
    """))
    assert found["b.rewards"] == (TENSOR, None, "float")
    assert found["b.count"] == (NUMBER, None, "int")
    assert found["b.moved"] == (None, None, None)  # (``b.moved = None`` in ``move``)
    assert found["[torch.FloatTensor(r) for r in rows]"][0] == "list"
    assert found["c.rewards"] == (None, None, None)
    assert found["d.rewards"] == (None, None, None)


def test_an_instance_keeps_its_class_through_a_function_that_returns_it():
    """``b = collect(rows)`` of a function that returns a ``Batch()``, or ``b`` a
    parameter every caller gives one: ``b.rewards`` is what ``Batch``'s methods bind
    to ``self.rewards``.  Unknown where a return may be something else, the class has
    a ``__getattr__``, binds the name in its body, or a base binds it otherwise."""
    found = facts(HEAD + textwrap.dedent("""
        class Batch(object):
            def finish(self, rows):
                self.rewards = torch.stack([torch.FloatTensor(r) for r in rows])


        class Magic(object):
            def finish(self, rows):
                self.rewards = torch.zeros(3)

            def __getattr__(self, name):
                return 0


        class Preset(object):
            rewards = None

            def finish(self, rows):
                self.rewards = torch.zeros(3)


        class Base(object):
            def reset(self):
                self.rewards = []


        class Derived(Base):
            def finish(self, rows):
                self.rewards = torch.zeros(3)


        def collect(rows):
            b = Batch()
            b.finish(rows)
            return b


        def either(rows, flag):
            if flag:
                return collect(rows)
            return load(rows)


        def total(given):
            show(given.rewards)


        def run(rows, flag):
            b = collect(rows)
            show(b.rewards)
            total(collect(rows))
            total(Batch())
            e = either(rows, flag)
            show(e.rewards)
            m = Magic()
            show(m.rewards)
            p = Preset()
            show(p.rewards)
            d = Derived()
            show(d.rewards)
    """))
    assert found["b.rewards"] == (TENSOR, None, "float")
    assert found["given.rewards"] == (TENSOR, None, "float")
    assert found["e.rewards"] == (None, None, None)  # (``load``: unknown)
    assert found["m.rewards"] == (None, None, None)
    assert found["p.rewards"] == (None, None, None)
    assert found["d.rewards"] == (None, None, None)  # (``[]`` in ``Base``)


def test_an_instance_of_a_file_that_calls_setattr_is_unknown():
    """``setattr(b, name, ...)`` may bind any attribute: none is followed."""
    found = facts(HEAD + textwrap.dedent("""
        class Batch(object):
            def finish(self, rows):
                self.rewards = torch.zeros(2, 3)


        def run(rows, name):
            b = Batch()
            setattr(b, name, rows)
            show(b.rewards)
    """))
    assert found["b.rewards"] == (None, None, None)
    assert facts(HEAD + textwrap.dedent("""
        class Batch(object):
            def finish(self, rows):
                self.rewards = torch.zeros(2, 3)


        def run(rows, name):
            b = Batch()
            show(b.rewards)
    """))["b.rewards"] == (TENSOR, 2, "float")


# -- parameters: what every caller in view passes ---------------------------

CALLED = HEAD + """
def train(labels, scale=torch.ones(2), *, weights=None):
    show(labels)
    show(scale)
    show(weights)
"""


@pytest.mark.parametrize("calls, expected", [
    # every call site agrees: the parameter is what they pass
    ("train(torch.LongTensor([1, 2]))\ntrain(torch.zeros(3).long())",
     {"labels": (TENSOR, 1, "int"), "scale": (TENSOR, 1, "float")}),
    ("def main():\n    y = torch.zeros(4, 2)\n    train(y, weights=torch.ones(3))",
     {"labels": (TENSOR, 2, "float"), "weights": (TENSOR, 1, "float")}),
    ("train(labels=torch.zeros(2), scale=torch.zeros(2, 2))",
     {"labels": (TENSOR, 1, "float"), "scale": (TENSOR, 2, "float")}),
    # they disagree: only what they share
    ("train(torch.zeros(3))\ntrain(torch.zeros(3, 3))", {"labels": (TENSOR, None, "float")}),
    # not every caller in view, or not evident which argument reaches it
    ("train(*args)", {"labels": (None, None, None)}),
    ("train(**options)", {"labels": (None, None, None)}),
    ("train(torch.zeros(3))\nhooks = [train]", {"labels": (None, None, None)}),
    ("train(torch.zeros(3))\ntrain = wrap(train)", {"labels": (None, None, None)}),
    ("train(torch.zeros(3))\nfrom helpers import train", {"labels": (None, None, None)}),
    ("train(torch.zeros(3))\ndef other():\n    def train(x):\n        pass",
     {"labels": (None, None, None)}),
    ("x = [train(t) for t in torch.zeros(3, 3)]", {"labels": (None, None, None)}),
    ("", {"labels": (None, None, None), "scale": (None, None, None)}),
])
def test_a_parameter_is_what_every_caller_passes(calls, expected):
    found = facts(CALLED + calls + "\n", "")  # (standard input: no project around it)
    assert {k: found[k] for k in expected} == expected


def test_a_module_class_python_2_names_in_super_keeps_its_constructors_arguments():
    """``super(Block, self).__init__()`` (Python 2's ``super()``) is no call of the
    class: its ``__init__``'s parameters are still what every construction passes;
    a subclass (a base named otherwise) still leaves them unknown."""
    body = (
        "class Block(torch.nn.Module):\n"
        "    def __init__(self, channels, size=0):\n"
        "        super(Block, self).__init__()\n"
        "        show(channels)\n        show(size)\n\n"
        "Block(800, 16)\nBlock(20)\n")
    found = facts(HEAD + body, "")
    assert found["channels"] == found["size"] == (NUMBER, None, "int")
    found = facts(HEAD + body + "class Sub(Block):\n    pass\n", "")
    assert found["channels"] == found["size"] == (None, None, None)


def test_a_decorated_function_keeps_its_parameters_unknown():
    """A decorator may call the function otherwise; a method called on an evident
    instance (``M().f(...)``, the class read only to be called) is followed."""
    source = HEAD + (
        "class M:\n    def f(self, x):\n        show(x)\n\n"
        "@jit\ndef g(y):\n    show(y)\n\n"
        "M().f(torch.zeros(3))\ng(torch.zeros(3))\n")
    found = facts(source, "")
    assert found["y"] == (None, None, None)
    assert found["x"] == (TENSOR, 1, "float")
    passed = facts(source + "print(M)\n", "")  # (the class passed around: a subclass may call)
    assert passed["x"] == (None, None, None)


def test_a_function_another_module_names_keeps_its_parameters_unknown(tmp_path):
    """Another file of the project that spells the function's name may import and
    call it: its parameters are then unknown (a module that does not is no matter)."""
    from flake8_torch04.analysis.project import importers

    (tmp_path / "setup.py").write_text("", encoding="utf-8")
    module = HEAD + "def train(labels):\n    show(labels)\n\ntrain(torch.zeros(3))\n"
    (tmp_path / "model.py").write_text(module, encoding="utf-8")
    (tmp_path / "other.py").write_text("def step(x):\n    return x\n", encoding="utf-8")
    try:
        importers.forget()
        assert facts(module, str(tmp_path / "model.py"))["labels"] == (TENSOR, 1, "float")
        (tmp_path / "main.py").write_text("from model import train\ntrain([1])\n",
                                          encoding="utf-8")
        importers.forget()
        assert facts(module, str(tmp_path / "model.py"))["labels"] == (None, None, None)
    finally:
        importers.forget()


# -- losses, and lists built by appending -------------------------------------

LOSSES = HEAD + """
import torch.nn as nn


def g(out, y, batch):
    show(F.nll_loss(out, y))
    show(F.mse_loss(out, y, size_average=False))
    show(F.nll_loss(out, y, reduce=False))
    show(F.cross_entropy(out, y, reduction='none'))
    show(F.cross_entropy(out, y, reduction=mode))
    show(nn.CrossEntropyLoss()(out, y))
    show(nn.CrossEntropyLoss(reduce=False)(out, y))
    res = []
    for k in (1, 5):
        res.append(batch.view(-1).sum(0))
    show(res[0])
    first, second = res
    show(second)
    kept = []
    kept.append(batch.view(-1).sum(0))
    kept.insert(0, batch)
    show(kept[0])
    added = []
    added += [batch.view(-1).sum(0)]
    show(added[0])
    extended = []
    extended += batch
    show(extended[0])
    started = [batch]
    started += [batch.view(-1).sum(0)]
    show(started[0])
    show(torch.abs(batch.data).sum())
"""


@pytest.mark.parametrize("expression, expected", [
    ("F.nll_loss(out, y)", (TENSOR, 0, "float")),
    ("F.mse_loss(out, y, size_average=False)", (TENSOR, 0, "float")),
    # per element, or not evident: any rank
    ("F.nll_loss(out, y, reduce=False)", (TENSOR, None, "float")),
    ("F.cross_entropy(out, y, reduction='none')", (TENSOR, None, "float")),
    ("F.cross_entropy(out, y, reduction=mode)", (TENSOR, None, "float")),
    ("nn.CrossEntropyLoss()(out, y)", (TENSOR, 0, "float")),
    ("nn.CrossEntropyLoss(reduce=False)(out, y)", (None, None, None)),
    # what is appended to a list only appended to and read
    ("res[0]", (TENSOR, 0, None)),
    ("second", (TENSOR, 0, None)),
    ("kept[0]", (None, None, None)),  # (``insert``: anything may be in it)
    ("added[0]", (TENSOR, 0, None)),  # (``added += [v]`` appends ``v``)
    ("extended[0]", (None, None, None)),  # (``+=`` of anything but a list literal)
    ("started[0]", (None, None, None)),  # (a list that did not start empty)
])
def test_losses_and_appended_lists(expression, expected):
    assert facts(LOSSES)[expression] == expected


SIZES = """
import numpy as np
import torch


def corners(x, frame, other):
    B, C, H, W = x.shape
    rows, cols = frame.size()
    first, second = other.sizes
    a, b = x.size(0)
    show(B)
    show(torch.rand(B, 2))
    show(cols)
    show(first)
    show(a)
"""


@pytest.mark.parametrize("expression, expected", [
    ("B", (NUMBER, None, "int")),  # (``.shape`` unpacks into numbers)
    ("torch.rand(B, 2)", (TENSOR, 2, "float")),  # (so ``B`` is a size, not a shape)
    ("cols", (NUMBER, None, "int")),
    ("first", (None, None, None)),  # (another attribute: unknown)
    ("a", (None, None, None)),  # (``size(0)`` is one number: no unpacking)
])
def test_sizes_unpack_into_numbers(expression, expected):
    assert facts(SIZES)[expression] == expected


GYM = HEAD + """\
import gym
from torch.distributions import Categorical, Normal
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.hidden = nn.Linear(4, 16)
        self.head = nn.Linear(16, 2)

    def forward(self, x, scale):
        return F.softmax(self.head(F.relu(self.hidden(x))), dim=-1), scale


policy = Policy()
env = gym.make('CartPole-v0')
lake = gym.make('FrozenLake-v0')
named = gym.make(ENV_NAME)
atari = gym.make('PongNoFrameskip-v4')


def act(y):
    state = env.reset()
    show(state)
    nxt, reward, done, info = env.step(0)
    show(nxt)
    show(reward)
    show(lake.reset())
    show(named.reset())
    show(atari.reset())
    show(gym.wrappers.Monitor(env, '/tmp').reset())
    probs, scale = policy(torch.from_numpy(state).float(), 2.0)
    show(probs)
    show(Categorical(probs).sample())
    show(Categorical(probs.unsqueeze(0)).sample())
    show(Categorical(logits=probs).sample())
    show(Categorical(probs).sample((3,)))
    show(Categorical(y).sample())
    show(Normal(probs, 1.0).sample())
    show(Categorical(probs).log_prob(y))
"""


@pytest.mark.parametrize("expression, expected", [
    # gym.make of an id whose observations are fixed: CartPole's are 1-D arrays,
    # FrozenLake's ints; an id made at run time, an id of images, a wrapper: unknown
    ("state", (NDARRAY, 1, "float")),
    ("nxt", (NDARRAY, 1, "float")),
    ("reward", (NUMBER, None, "float")),
    ("lake.reset()", (NUMBER, None, "int")),
    ("named.reset()", (None, None, None)),
    ("atari.reset()", (None, None, None)),
    ("gym.wrappers.Monitor(env, '/tmp').reset()", (None, None, None)),
    # a module of the file called on a 1-D tensor: its forward's output is 1-D
    ("probs", (TENSOR, 1, None)),
    # a Categorical's sample has the batch shape: its probabilities' but the last dim
    ("Categorical(probs).sample()", (TENSOR, 0, "int")),
    ("Categorical(probs.unsqueeze(0)).sample()", (TENSOR, 1, "int")),
    ("Categorical(logits=probs).sample()", (TENSOR, 0, "int")),
    ("Categorical(probs).sample((3,))", (None, None, None)),
    ("Categorical(y).sample()", (TENSOR, None, "int")),
    ("Normal(probs, 1.0).sample()", (TENSOR, None, "float")),  # (the scale broadcasts)
    ("Categorical(probs).log_prob(y)", (TENSOR, None, "float")),
])
def test_gym_observations_distributions_and_applied_modules(expression, expected):
    assert facts(GYM)[expression] == expected


LOADERS = HEAD + """\
import torch.utils.data as data
from torch.utils.data import DataLoader, TensorDataset
from torchvision import datasets, transforms

kwargs = {'num_workers': 1, 'pin_memory': True} if cuda else {}
features = torch.randn(100, 8)
labels = torch.zeros(100).long()
pairs = TensorDataset(features, labels)
loader = DataLoader(pairs, batch_size=4, shuffle=True, **kwargs)
normalized = transforms.Compose([transforms.RandomCrop(28, padding=2), transforms.ToTensor(),
                                 transforms.Normalize((0.1307,), (0.3081,))])
mnist = torch.utils.data.DataLoader(
    datasets.MNIST('data', train=True, download=True, transform=normalized), batch_size=64)
cifar = data.DataLoader(datasets.CIFAR10('data', True, transforms.ToTensor()), 32, True)
folder = DataLoader(datasets.ImageFolder('dir', transforms.ToTensor()), batch_size=8)
single = DataLoader(pairs, batch_size=None)
old = DataLoader(TensorDataset(data_tensor=features, target_tensor=labels), batch_size=4)


def train():
    for x, y in loader:
        show(x)
        show(y)
    for i, (images, classes) in enumerate(mnist):
        show(i)
        show(images)
        show(classes)
    for batch in cifar:
        show(batch[0])
        show(batch[1])
    show(next(iter(folder))[0])
    batches = iter(loader)
    show(next(batches)[1])
    show(batches.next()[0])
    for row, label in single:
        show(row)
        show(label)
    show(next(iter(old))[1])
    # unknown: a collate_fn, a batch_sampler, **kwargs of unknown keys, a dataset of
    # the program, an ImageFolder with its own loader, a target_transform, a Lambda
    # transform, no transform (PIL images), a loader iterated without iter()
    show(next(iter(DataLoader(pairs, batch_size=4, collate_fn=merge)))[0])
    show(next(iter(DataLoader(pairs, batch_sampler=sampler)))[0])
    show(next(iter(DataLoader(pairs, batch_size=4, **options)))[0])
    show(next(iter(DataLoader(Pairs(), batch_size=4)))[0])
    show(next(iter(DataLoader(datasets.ImageFolder('d', transforms.ToTensor(),
                                                   loader=read)))))
    show(next(iter(DataLoader(datasets.ImageFolder('d', transforms.ToTensor(),
                                                   loader=read))))[1])
    show(next(iter(DataLoader(datasets.MNIST('d', transform=transforms.ToTensor(),
                                             target_transform=one_hot))))[1])
    show(next(iter(DataLoader(datasets.MNIST('d', transform=transforms.Compose([
        transforms.ToTensor(), transforms.Lambda(lambda t: t.view(-1))])))))[0])
    show(next(iter(DataLoader(datasets.MNIST('d'))))[0])
    show(next(loader))
"""


@pytest.mark.parametrize("expression, expected", [
    # the default collate: a tensor part gains a batch dimension, an int becomes 1-D
    ("x", (TENSOR, 2, "float")),
    ("y", (TENSOR, 1, "int")),
    ("i", (NUMBER, None, "int")),
    ("images", (TENSOR, 4, "float")),  # (ToTensor: a 3-D float image, then a batch)
    ("classes", (TENSOR, 1, "int")),
    ("batch[0]", (TENSOR, 4, "float")),
    ("batch[1]", (TENSOR, 1, "int")),
    ("next(iter(folder))[0]", (TENSOR, 4, "float")),
    ("next(batches)[1]", (TENSOR, 1, "int")),
    ("batches.next()[0]", (TENSOR, 2, "float")),
    # batch_size=None: the items as they are
    ("row", (TENSOR, 1, "float")),
    ("label", (TENSOR, 0, "int")),
    ("next(iter(old))[1]", (TENSOR, 1, "int")),  # (0.3's keywords)
    ("next(iter(DataLoader(pairs, batch_size=4, collate_fn=merge)))[0]", (None, None, None)),
    ("next(iter(DataLoader(pairs, batch_sampler=sampler)))[0]", (None, None, None)),
    ("next(iter(DataLoader(pairs, batch_size=4, **options)))[0]", (None, None, None)),
    ("next(iter(DataLoader(Pairs(), batch_size=4)))[0]", (None, None, None)),
    ("next(iter(DataLoader(datasets.ImageFolder('d', transforms.ToTensor(), loader=read))))",
     (TUPLE, None, None)),
    ("next(iter(DataLoader(datasets.ImageFolder('d', transforms.ToTensor(), loader=read))))[1]",
     (TENSOR, 1, "int")),  # (its own loader: the image is unknown, the class is not)
    ("next(iter(DataLoader(datasets.MNIST('d', transform=transforms.ToTensor(), "
     "target_transform=one_hot))))[1]", (None, None, None)),
    ("next(iter(DataLoader(datasets.MNIST('d', transform=transforms.Compose([transforms."
     "ToTensor(), transforms.Lambda(lambda t: t.view(-1))])))))[0]", (None, None, None)),
    ("next(iter(DataLoader(datasets.MNIST('d'))))[0]", (None, None, None)),
    ("next(loader)", (None, None, None)),
])
def test_what_a_data_loader_yields(expression, expected):
    assert facts(LOADERS)[expression] == expected


def test_elementwise_functions_of_plain_tensors_give_plain_tensors():
    """``torch.abs(bits - target.data)`` of 0.3 tensors is a 0.3 tensor: its sum was a
    Python number on 0.3 (TV144); a functional op (``F.relu``) is not followed so."""
    source = HEAD + "def g(x):\n    show(torch.abs(x.data).sum())\n    show(F.relu(x.data).sum())\n"
    source = textwrap.dedent(source)
    tree, values, shown = shown_values(source)
    plain = [values.of(e, tree.body[-1]).plain for e in shown]
    assert plain == [True, False]


def test_elements_of_plain_tensors_are_plain():
    """``for w in row`` of a 0.3 tensor's row: a Python number on 0.3 (TV144), where a
    ``Variable``'s elements were ``Variable`` objects."""
    source = HEAD + textwrap.dedent("""\
        def g():
            batch = Variable(torch.LongTensor([[4, 5], [6, 7]]))
            for row in batch.data:
                for w in row:
                    show(w)
            for row in batch:
                for v in row:
                    show(v)
        """)
    tree, values, shown = shown_values(source)
    found = [(values.of(e, tree.body[-1]).rank, values.of(e, tree.body[-1]).plain)
             for e in shown]
    assert found == [(0, True), (0, False)]


def test_unwrapped_indexed_and_multiplied_plain_tensors():
    """``if isinstance(x, Variable): x = x.data`` makes ``x`` the plain tensor
    whatever it was; a tensor index, ``matmul`` and ``dot`` of plain tensors give
    plain tensors; ``FloatTensor([-d.mean()])`` is 1-D (sweep 25: vsumm's reward)."""
    source = HEAD + textwrap.dedent("""\
        def g(seq, picks, other):
            if isinstance(seq, Variable):
                seq = seq.data
            show(seq)
            show(seq[picks, :].sum())
            show(torch.matmul(seq, seq.t()).sum())
            show(seq[0].dot(seq[1]))
            show(torch.FloatTensor([-seq.mean()]))
            show(torch.FloatTensor([-seq.mean()])[0])
            if other is not None:
                other = other.data
            show(other)
        """)
    tree, values, shown = shown_values(source)
    found = [(v.kind, v.rank, v.plain) for v in
             (values.of(e, tree.body[-1]) for e in shown)]
    assert found == [(TENSOR, None, True), (TENSOR, 0, True), (TENSOR, 0, True),
                     (TENSOR, 0, True), (TENSOR, 1, True), (TENSOR, 0, True),
                     (None, None, False)]  # (not guarded by ``isinstance``: unknown)


SELF_METHODS = HEAD + """\
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super(Tagger, self).__init__()
        self.fc = nn.Linear(8, 3)

    def _features(self, x):
        return self.fc(x.view(x.size(0), -1))

    @staticmethod
    def _decorated(x):
        return x.view(-1)

    def forward(self, x):
        show(self._features(x))
        show(self._decorated(x))
        show(self.missing(x))
        return self._features(x)


class Base(nn.Module):
    def _features(self, x):
        return x.view(-1)

    def forward(self, x):
        show(self._features(x))
        return x


class Derived(Base):
    def _features(self, x):
        return x.view(2, -1)
"""


@pytest.mark.parametrize("expression, index, expected", [
    # ``self.method(...)`` of a module class: what the method returns
    ("self._features(x)", 0, (TENSOR, 2, "float")),
    # decorated, not defined, or overridden in a subclass: unknown
    ("self._decorated(x)", 0, (None, None, None)),
    ("self.missing(x)", 0, (None, None, None)),
    ("self._features(x)", 1, (None, None, None)),
])
def test_self_methods_of_module_classes(expression, index, expected):
    source = textwrap.dedent(SELF_METHODS)
    tree = ast.parse(source)
    ctx = Context(tree, lines_of(source), "t.py", source)
    Walker(ctx, [WALK], None, None).run()
    values = Values(ctx)
    parents = ctx.file_parents()
    shown = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "show" and ast.unparse(node.args[0]) == expression:
            scope = parents.get(id(node))
            while not isinstance(scope, ast.FunctionDef):
                scope = parents.get(id(scope))
            value = values.of(node.args[0], scope)
            shown.append((node.lineno, (value.kind, value.rank, value.dtype)))
    assert sorted(shown)[index][1] == expected


ALIASES = HEAD + """\
cuda = torch.cuda.is_available()
Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
Mixed = torch.cuda.LongTensor if cuda else torch.FloatTensor
Plain = torch.ByteTensor
Other = make_type()


def g(n):
    show(Tensor(n, 1).fill_(1.0))
    show(Tensor(3))
    show(Mixed(3))
    show(Plain(4))
    show(Other(3))
    Local = torch.LongTensor
    show(Local(2, 2))
"""


@pytest.mark.parametrize("expression, expected", [
    # a name bound to tensor types of one dtype (a conditional expression of them)
    ("Tensor(n, 1).fill_(1.0)", (TENSOR, 2, "float")),
    ("Tensor(3)", (TENSOR, 1, "float")),
    ("Plain(4)", (TENSOR, 1, "uint8")),
    # an alias made in a function, of a tensor type (a method's ``ByteTensor = ...``)
    ("Local(2, 2)", (TENSOR, 2, "int")),
    # types of different dtypes, or anything else: unknown
    ("Mixed(3)", (None, None, None)),
    ("Other(3)", (None, None, None)),
])
def test_tensor_type_aliases(expression, expected):
    assert facts(ALIASES)[expression] == expected


RECURRENT = HEAD + """\
import torch.nn as nn

lstm = nn.LSTM(4, 3, 2, bidirectional=True)
gru = nn.GRU(4, 3)
x = torch.randn(5, 2, 4)
out, hidden = lstm(x)
show(out)
show(hidden[0])
out2, (h, c) = lstm(x)
show(h)
show(c)
o3, h3 = gru(x)
show(o3)
show(h3)
o4, h4 = gru(nn.utils.rnn.pack_padded_sequence(x, [5, 4]))
show(o4)
show(h4)
o5, h5 = gru(torch.randn(5, 4))
show(h5)
o6, (h6, c6) = lstm(x, (h, c))
show(h6)
a = x.view(-1).tolist()[0]
show(a)
show(x.tolist()[0])
idx = torch.LongTensor([1, 2])
show(out[idx[0]])
show(out[idx])
"""


@pytest.mark.parametrize("expression, expected", [
    # recurrent layers: the output as the input, the states 3-D (nested unpacking too)
    ("out", (TENSOR, 3, "float")),
    ("hidden[0]", (TENSOR, 3, "float")),
    ("h", (TENSOR, 3, "float")),
    ("c", (TENSOR, 3, "float")),
    ("o3", (TENSOR, 3, "float")),
    ("h3", (TENSOR, 3, "float")),
    # a PackedSequence in: the output is not a tensor; the state still is
    ("o4", (None, None, None)),
    ("h4", (TENSOR, 3, "float")),
    # an unbatched input (not 0.3's): 2-D states
    ("h5", (TENSOR, 2, "float")),
    # the first state passed too
    ("h6", (TENSOR, 3, "float")),
    # ``tolist()`` of a 1-D tensor holds numbers; of more dimensions, lists
    ("a", (NUMBER, None, "float")),
    ("x.tolist()[0]", (None, None, None)),
    # a 0-dim integer tensor indexes as an integer; a 1-D one selects along the
    # first dimension (the rank stays)
    ("out[idx[0]]", (TENSOR, 2, "float")),
    ("out[idx]", (TENSOR, 3, "float")),
])
def test_recurrent_layers_lists_and_tensor_indices(expression, expected):
    assert facts(RECURRENT)[expression] == expected


def _parses(path):
    try:
        ast.parse(path.read_bytes())
    except SyntaxError:  # (``async=True``: the rescued file, checked elsewhere)
        return False
    return True


PROGRAMS = [p for p in sorted((Path(__file__).parent / "programs").glob("*.py")) if _parses(p)]
#: the rules that ask the value facts most
ASKING = ("TV003", "TV107", "TV119", "TV143", "TV144", "TV117", "TV148")


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_what_a_rule_is_told_does_not_depend_on_the_rules_beside_it(path):
    # an answer cut short (a question that meets itself, the depth limit) is
    # not remembered for the next question: asked by every rule at once or by
    # one alone, a rule finds the same (a CRF tagger's torch.cat of elements
    # was missed when TV003 had asked about its list first)
    source = path.read_text(encoding="utf-8")
    together = check_source(source, str(path))
    for code in ASKING:
        alone = check_source(source, str(path), codes=[code])
        assert [(f.line, f.col, f.message) for f in alone] == [
            (f.line, f.col, f.message) for f in together if f.code == code], code


def test_torch_softmax_keeps_the_rank():
    found = facts("""
        import torch
        from torch.autograd import Variable
        x = Variable(torch.randn(1, 4))
        show(torch.softmax(x, 1))
        show(torch.log_softmax(x, dim=1).max(1)[1])
        show(torch.softmax(unknown, 1))
    """)
    assert found["torch.softmax(x, 1)"][:2] == ("tensor", 2)
    assert found["torch.log_softmax(x, dim=1).max(1)[1]"][:2] == ("tensor", 1)
    assert found["torch.softmax(unknown, 1)"][1] is None


def test_split_and_chunk_give_a_sequence_of_pieces_not_a_tensor():
    # torch.split/chunk return a tuple whose length only the sizes tell: read as a
    # list of one value (an element of it has the tensor's rank; the whole is no tensor)
    found = facts(HEAD + """
def f(y, line):
    x = torch.zeros(4, 6)
    parts = torch.split(x, 3, 1)
    show(parts)
    show(parts[:-1])
    show(torch.cat(parts, 1))
    show(line.split(','))
    show(line.split(',')[0])
    show(y.split(2))
    show(torch.split(y, 2)[0])
    show(torch.stack(torch.chunk(y, 2)))
""")
    assert found["parts"][:2] == ("list", None)
    assert found["parts[:-1]"][:2] == ("list", None)
    assert found["torch.cat(parts, 1)"] == (TENSOR, 2, "float")
    # a method of an unknown value may be str.split: unknown
    assert found["line.split(',')"] == (None, None, None)
    assert found["line.split(',')[0]"] == (None, None, None)
    assert found["y.split(2)"] == (None, None, None)
    # torch.split of an unknown value: tensors of unknown rank
    assert found["torch.split(y, 2)[0]"] == (TENSOR, None, None)
    assert found["torch.stack(torch.chunk(y, 2))"][:2] == (TENSOR, None)


CHOICES = HEAD + """\
def g(prev=None, flag=True, state=None):
    x = torch.randn(2, 4)
    first = None
    show(first or x)
    show(x if flag else torch.zeros(2, 4))
    show(x if flag else torch.zeros(3))
    show(isinstance(state, tuple) and x[0] or x[1])
    show(prev or x)
    show(x or prev)
    show(flag and x)
"""


@pytest.mark.parametrize("expression, expected", [
    # both branches of a conditional, what `or` may give (a None aside), the last of
    # `and` after tests (0.1's `c and a or b`)
    ("first or x", (TENSOR, 2, "float")),
    ("x if flag else torch.zeros(2, 4)", (TENSOR, 2, "float")),
    ("x if flag else torch.zeros(3)", (TENSOR, None, "float")),
    ("isinstance(state, tuple) and x[0] or x[1]", (TENSOR, 1, "float")),
    # an operand that may be anything (a parameter), and `and` after a non-test: unknown
    ("prev or x", (None, None, None)),
    ("x or prev", (None, None, None)),
    ("flag and x", (None, None, None)),
])
def test_conditional_and_boolean_choices(expression, expected):
    assert facts(CHOICES)[expression] == expected


SORTS = HEAD + """\
x = torch.randn(5, 3)
show(x.sort())
show(x.sort()[0])
show(x.sort(0)[1])
show(x.mode()[0])
show(x.median())
show(torch.sort(x)[0])
"""


@pytest.mark.parametrize("expression, expected", [
    # sort and mode without a dim work along the last one: a pair, not a 0-dim value
    ("x.sort()", (TUPLE, None, None)),
    ("x.sort()[0]", (TENSOR, 2, "float")),
    ("x.sort(0)[1]", (TENSOR, 2, "int")),
    ("x.mode()[0]", (TENSOR, 1, "float")),
    ("x.median()", (TENSOR, 0, "float")),
    ("torch.sort(x)[0]", (TENSOR, 2, "float")),
])
def test_sort_and_mode_give_pairs(expression, expected):
    assert facts(SORTS)[expression] == expected


def test_a_tensor_known_by_its_spelling_only_says_so():
    """``x.data`` of an ``x`` not followed is 0.3's tensor by the spelling alone
    (``SPELLED``: a caffe blob's ``data`` is an array); ``view`` of sizes is a
    tensor's, ``view`` of a dtype numpy's."""
    from flake8_torch04.analysis.values import SPELLED

    tree, values, shown = shown_values(HEAD + textwrap.dedent("""\
        def f(blob, w, n):
            show(blob.data)
            show(torch.zeros(2).data)
            show(w.view(n, -1))
            show(w.view(np.float16))
    """))
    spelled, made, sized, dtype = (values.of(node, tree.body[-1]) for node in shown)
    assert (spelled.kind, spelled.name) == (TENSOR, SPELLED)
    assert made.kind == TENSOR and made.name is None
    assert (sized.kind, sized.rank) == (TENSOR, 2)
    assert dtype.kind is None


def test_gather_keepdim_and_indices_keep_the_last_size():
    """``gather`` takes its index's shape; a ``keepdim`` reduction of the last
    dimension ends in 1; ``E[0]``, a mask and an index tensor keep ``E``'s last
    size where they leave the last dimension alone: what TV148 and TV117 ask to
    tell a ``(N, 1)`` column."""
    tree, values, shown = shown_values(HEAD + textwrap.dedent("""\
        q = torch.randn(4, 3)
        keep = torch.ByteTensor([1, 0, 1, 1])
        best = q.max(1, keepdim=True)[1]
        show(best)
        show(q.gather(1, best))
        show(torch.gather(q, 1, best))
        show(q.sum(-1, keepdim=True))
        show(q.sum(0, keepdim=True))
        show(torch.randn(1, 8, 1)[0])
        show(q.gather(1, best)[keep])
        show(q[torch.LongTensor([[0, 1]])])
        show(q[:, 0])
        show(q.gather(1, torch.LongTensor([0, 1, 2, 0])))
    """))
    got = [(v.rank, v.last) for v in (values.of(node, tree) for node in shown)]
    assert got == [(2, 1), (2, 1), (2, 1), (2, 1), (2, 3), (2, 1), (2, 1), (3, 3),
                   (1, None), (1, 4)]


def test_a_cast_to_a_tensor_type_alias_takes_its_dtype():
    """``.type(ByteTensor)`` where the module binds ``ByteTensor`` to the CUDA or the
    CPU type of one dtype (0.3's way of writing for both): a uint8 tensor."""
    found = facts(HEAD + textwrap.dedent("""\
        use_cuda = torch.cuda.is_available()
        ByteTensor = torch.cuda.ByteTensor if use_cuda else torch.ByteTensor
        Mixed = torch.cuda.ByteTensor if use_cuda else torch.FloatTensor
        done = torch.zeros(3).type(ByteTensor)
        show(done)
        show(torch.zeros(3).type(Mixed))
    """))
    assert found["done"] == (TENSOR, 1, "uint8")
    assert found["torch.zeros(3).type(Mixed)"] == (TENSOR, 1, None)


_MEMORY = """\
from collections import namedtuple
import numpy as np
import torch

Transition = namedtuple('Transition', ('state', 'done'))
Pair = namedtuple('Pair', 'left, right')


class Memory(object):
    def __init__(self, n):
        self.done = np.zeros(n, dtype=np.uint8)

    def sample(self, k):
        return Transition(torch.zeros(k, 3), torch.from_numpy(self.done).type(torch.ByteTensor))

    def plain(self):
        return torch.zeros(2, 5)

    def later(self):
        return self.plain()
"""


def test_namedtuple_fields_and_the_methods_of_a_plain_class(tmp_path):
    """``T(a, b)`` of a ``namedtuple`` holds its fields' values, read by name or by
    position; a plain class's method returns what its ``return``s give, in its
    own module or from another module of the project."""
    (tmp_path / "setup.py").write_text("", encoding="utf-8")
    (tmp_path / "memory.py").write_text(_MEMORY, encoding="utf-8")
    user = HEAD + textwrap.dedent("""\
        from memory import Memory, Transition, Pair

        memory = Memory(10)
        batch = memory.sample(4)
        t = Transition(done=torch.zeros(2).byte(), state=torch.ones(2))
        p = Pair(torch.ones(2, 2), 0.5)
        show(batch.done)
        show(batch.state)
        show(memory.plain())
        show(t.done)
        show(t[1])
        show(p.right)
        show(Pair(*[1, 2]).left)
        show(Transition(torch.ones(2)).done)
    """)
    (tmp_path / "user.py").write_text(user, encoding="utf-8")
    found = facts(user, str(tmp_path / "user.py"))
    assert found["batch.done"] == (TENSOR, 1, "uint8")
    assert found["batch.state"] == (TENSOR, 2, "float")
    assert found["memory.plain()"] == (TENSOR, 2, "float")
    assert found["t.done"] == found["t[1]"] == (TENSOR, 1, "uint8")
    assert found["p.right"] == (NUMBER, None, "float")
    # unpacked, or a field left out: unknown
    assert found["Pair(*[1, 2]).left"] == found["Transition(torch.ones(2)).done"] == (
        None, None, None)
    local = facts(_MEMORY + "m = Memory(3)\nshow(m.later())\nshow(m.sample(2).state)\n")
    assert local["m.later()"] == (TENSOR, 2, "float")
    assert local["m.sample(2).state"] == (TENSOR, 2, "float")


def test_an_answer_cut_short_in_another_modules_facts_does_not_outlive_the_question():
    """A question about one file may go through another module's facts and meet
    itself there (a state passed back into the ``forward`` that made it): the
    answer cut short is kept in that module's pending answers for that file's
    questions only.  Left there, the next file checked in the process was told
    it (ACER's test.py lost a finding when train.py was checked first)."""
    from flake8_torch04.analysis import remembered as r

    other_memo, other_pending, asked = {}, {}, []

    def other_answer():  # (the other module's question meets itself: cut short)
        asked.append(1)
        inner = r.remembered(other_memo, other_pending, "forward", 1, other_answer, "unknown")
        return "cut" if inner == "unknown" else inner

    first = r.remembered({}, {}, "first file's question", 0,
                         lambda: r.remembered(other_memo, other_pending, "forward", 1,
                                              other_answer, "unknown"), "unknown")
    assert first == "cut" and other_pending == {"forward": "cut"} and not other_memo
    r.forget_pending()  # (what ``Values.of`` does once a question at depth 0 is answered)
    assert other_pending == {}
    r.remembered({}, {}, "next file's question", 0,
                 lambda: r.remembered(other_memo, other_pending, "forward", 1,
                                      other_answer, "unknown"), "unknown")
    assert len(asked) == 2  # (asked again, not told the first question's answer)
    r.forget_pending()


def test_a_generator_of_the_file_gives_what_it_yields():
    """The annotated transformer's ``data_gen()`` yields batches that ``run_epoch``
    iterates (sweep 30): a generator's items are what its ``yield``s give."""
    source = HEAD + (
        "def gen(n):\n    for i in range(n):\n        yield torch.zeros(2, 3)\n\n\n"
        "def pairs(n):\n    yield torch.zeros(2), 1\n    yield torch.ones(2), 0\n\n\n"
        "def bare(n):\n    yield\n\n\n"
        "def delegated(n):\n    yield torch.zeros(2, 3)\n    yield from gen(n)\n\n\n"
        "def g(n):\n"
        "    for x in gen(n):\n        show(x)\n"
        "    for i, (t, label) in enumerate(pairs(n)):\n        show(t)\n"
        "    for y in bare(n):\n        show(y)\n"
        "    for z in delegated(n):\n        show(z)\n")
    found = facts(source)
    assert found["x"] == (TENSOR, 2, "float") and found["t"] == (TENSOR, 1, "float")
    assert found["y"] == (None, None, None) and found["z"] == (None, None, None)


def test_a_load_is_what_the_saves_of_its_path_write():
    """``batches = torch.load(p)``, or else built and ``torch.save(batches, p)``: the
    load gives what the save writes (here a list of a helper's tuples, read through
    a comprehension whose element reads none of its own names).  Unknown where no
    save writes that path, or the saves disagree."""
    found = facts(HEAD + textwrap.dedent("""
        import os


        def make(rows):
            return Variable(torch.ByteTensor(rows)), len(rows)


        def cached(d, n, rows):
            try:
                batches = torch.load(os.path.join(d, 'batches.pt'))
            except IOError:
                batches = [make(rows) for _ in range(n)]
                torch.save(batches, os.path.join(d, 'batches.pt'))
            mask, k = batches[0]
            show(mask)
            other = torch.load(os.path.join(d, 'other.pt'))
            show(other)
            each = [make(rows[i]) for i in range(n)]
            show(each[0])


        def twice(flag):
            torch.save(torch.zeros(3), 'state.pt')
            if flag:
                torch.save(np.zeros(3), 'state.pt')
            show(torch.load('state.pt'))
    """))
    assert found["mask"] == (TENSOR, None, "uint8")
    assert found["other"] == (None, None, None)
    assert found["each[0]"] == (None, None, None)  # (the element reads ``i``)
    assert found["torch.load('state.pt')"] == (None, None, None)


def test_a_parameter_is_what_calls_inside_comprehensions_pass():
    """A call inside a comprehension is read in the function around it: what it
    passes is followed where it reads none of the comprehension's own names (the
    loss module), not where it does (``x``, bound by the comprehension, is not the
    ``x`` of the function)."""
    found = facts(HEAD + textwrap.dedent("""
        import torch.nn as nn


        def score(crit, out, x):
            show(crit)
            show(x)
            return crit(out, x)


        def run(batches):
            crit = nn.MSELoss()
            x = torch.zeros(3)
            return [score(crit, out, x) for out, x in batches]
    """))
    assert found["crit"][0] == "module"
    assert found["x"] == (None, None, None)


def test_a_default_made_where_none_is_given():
    """``if x is None: x = make()``: after it, ``x`` is what that makes, or what the
    calls that pass something else pass; a caller's ``None`` drops out."""
    found = facts(HEAD + textwrap.dedent("""
        def step(x, hidden=None):
            if hidden is None:
                hidden = torch.zeros(2, 3)
            show(hidden)
            return hidden


        def twice(x, state=None):
            if state is None:
                state = torch.zeros(2, 3)
            show(state)


        def loose(x, h=None):
            if h is None:
                h = torch.zeros(2, 3)
            show(h)


        step(1)
        step(2, None)
        step(3, torch.ones(4, 5))
        twice(1, torch.ones(4))
        loose(1, 'zeros')
    """))
    assert found["hidden"] == (TENSOR, 2, "float")
    assert found["state"] == (TENSOR, None, "float")  # (1-D from a call, 2-D made)
    assert found["h"] == (None, None, None)  # (a caller passes a string)


@pytest.mark.parametrize("body, expected", [
    ("x = torch.cat([torch.zeros(3, 1).long(), y], 1)", (TENSOR, 2, "int")),
    ("x = torch.cat([torch.zeros(3).sum(), y])", (TENSOR, 1, "float")),  # (0.3: 1-D)
    ("x = torch.cat([torch.zeros(3, 1), torch.zeros(3)], 1)", (TENSOR, None, "float")),
    ("x = torch.cat([y, y], 1)", (None, None, None)),
])
def test_a_concatenation_has_the_rank_of_the_parts_that_show_it(body, expected):
    source = HEAD + "def f(y):\n" + textwrap.indent(body, "    ") + "\n    show(x)\n"
    found = facts(source)["x"]
    assert found[1:] == expected[1:] and (found[0] == expected[0] or expected[0] is None)


def test_unpacking_a_tensor_gives_its_rows():
    found = facts(HEAD + textwrap.dedent("""
        def f(n):
            pairs = torch.zeros(4, 2).long()
            for a, b in pairs:
                show(a)
            first, second = torch.zeros(2, 3)
            show(second)
    """))
    assert found["a"] == (TENSOR, 0, "int")
    assert found["second"] == (TENSOR, 1, "float")
