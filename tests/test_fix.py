"""The fixer: per-rule (source, expected) and no-op tables, and the edit engine.

Each rule has a table of fixes and a table of sources its fixes leave alone.
Every row is also checked to parse after fixing and to be a fixpoint: fixing
the result again changes nothing.
"""
import ast
import re
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from flake8_torch04.analysis.findings import SAFE, UNSAFE, Finding, Fix
from flake8_torch04.analysis.registry import all_rules
from flake8_torch04.analysis.rescue import rescue
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.edits import BadEdit, apply_edits
from flake8_torch04.fix.fixer import MAX_ROUNDS, fix_text
from flake8_torch04.fix.imports import add_imports, import_line
from flake8_torch04.source.parse import dominant_newline
from flake8_torch04.source.text import Edit, lines_of

HEADER = "import torch\nfrom torch.autograd import Variable\n"


def fix(source, code, unsafe=False):
    result = fix_text(source, lambda text: Analysis(text, [code]), unsafe)
    return result.text


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


# ---------------------------------------------------------------------------
# per-rule tables: (source, expected[, unsafe]) — sources get HEADER prepended

TV001_FIXES = [
    pytest.param("x = Variable(t)\nprint(x)\n", "x = t\nprint(x)\n", id="plain"),
    pytest.param("x = Variable(images.cuda())\n", "x = images.cuda()\n", id="call"),
    pytest.param("x = Variable(t, requires_grad=False)\n", "x = t\n", id="rg-false"),
    pytest.param("y = f(Variable(a + b))\n", "y = f(a + b)\n", id="binop-in-call"),
    pytest.param("y = Variable(a + b).sum()\n", "y = (a + b).sum()\n", id="binop-parens"),
    pytest.param("w = Variable(torch.randn(3, 3), requires_grad=True)\n",
                 "w = torch.randn(3, 3, requires_grad=True)\n", id="factory"),
    pytest.param("w = Variable(torch.zeros(2,), requires_grad=True)\n",
                 "w = torch.zeros(2, requires_grad=True)\n", id="factory-trailing-comma"),
    pytest.param("b = Variable(bias, requires_grad=True)\n",
                 "b = bias.requires_grad_()\n", True, id="requires-grad-unsafe"),
    # a tensor used again keeps requires_grad=False, as 0.3's new leaf left it
    pytest.param("x = torch.ones(2)\ny = Variable(x, requires_grad=True)\nprint(x + y)\n",
                 "x = torch.ones(2)\ny = x.detach().requires_grad_()\nprint(x + y)\n", True,
                 id="requires-grad-reused"),
    pytest.param("def f(x):\n    y = Variable(x.cuda(), requires_grad=True)\n    return y\n",
                 "def f(x):\n    y = x.cuda().detach().requires_grad_()\n    return y\n", True,
                 id="requires-grad-parameter"),
    pytest.param("for x in xs:\n    x = Variable(x, requires_grad=True)\n",
                 "for x in xs:\n    x = x.detach().requires_grad_()\n", True,
                 id="requires-grad-loop"),
    pytest.param("x = torch.ones(2)\nx = Variable(x, requires_grad=True)\nprint(x)\n",
                 "x = torch.ones(2)\nx = x.requires_grad_()\nprint(x)\n", True,
                 id="requires-grad-rebound"),
    pytest.param("y = Variable(torch.from_numpy(a), requires_grad=True)\nprint(a)\n",
                 "y = torch.from_numpy(a).requires_grad_()\nprint(a)\n", True,
                 id="requires-grad-fresh"),
    pytest.param("x = Variable(Variable(t))\n", "x = t\n", id="nested-two-rounds"),
    pytest.param(
        "def step(model, x):\n    out = model(x)\n    return Variable(out)\n",
        "def step(model, x):\n    out = model(x)\n    return out.detach()\n",
        id="history-detach",
    ),
    pytest.param(
        "x = Variable(\n    torch.ones(2),\n)\n", "x = torch.ones(2)\n", id="multi-line"
    ),
    # issue 32: a wrap whose result is changed in place made a new tensor: dropping
    # it would change ``images`` itself (and make ``inp`` and ``clean`` one tensor)
    pytest.param("inp = Variable(images)\ninp.requires_grad = True\nclean = Variable(images)\n",
                 "inp = images.detach()\ninp.requires_grad = True\nclean = images\n",
                 id="mutated-requires-grad"),
    pytest.param("x = Variable(t)\nx.add_(1)\n", "x = t.detach()\nx.add_(1)\n",
                 id="mutated-in-place"),
    pytest.param("x = Variable(t)\nx.data[0] = 1\n", "x = t.detach()\nx.data[0] = 1\n",
                 id="mutated-data-write"),
    pytest.param("x = Variable(t)\nx[0] = 1\n", "x = t.detach()\nx[0] = 1\n",
                 id="mutated-subscript"),
    pytest.param("x = Variable(t)\nx += 1\n", "x = t.detach()\nx += 1\n",
                 id="mutated-augmented"),
    pytest.param("y = Variable(t).uniform_()\n", "y = t.detach().uniform_()\n",
                 id="mutated-directly"),
    # a tensor just made, that nothing else holds: changing it in place changes nothing else
    pytest.param("z = Variable(torch.FloatTensor(4, 2))\nz.data.normal_(0, 1)\n",
                 "z = torch.FloatTensor(4, 2)\nz.data.normal_(0, 1)\n",
                 id="mutated-fresh-constructor"),
    pytest.param("z = Variable(torch.zeros(3).uniform_())\nz.requires_grad = True\n",
                 "z = torch.zeros(3).uniform_()\nz.requires_grad = True\n",
                 id="mutated-fresh-in-place-method"),
    # a change in place that can run after the wrap: later in a loop around both
    pytest.param("x = torch.ones(2)\nfor i in range(2):\n    x.add_(1)\n    y = x\n"
                 "    x = Variable(y)\n",
                 "x = torch.ones(2)\nfor i in range(2):\n    x.add_(1)\n    y = x\n"
                 "    x = y.detach()\n", id="mutated-in-the-next-round"),
    pytest.param("x = Variable(t)\nif c:\n    x[0] = 1\n", "x = t.detach()\nif c:\n    x[0] = 1\n",
                 id="mutated-on-a-branch"),
    pytest.param("x = Variable(t)\nf = lambda: x.add_(1)\n",
                 "x = t.detach()\nf = lambda: x.add_(1)\n", id="mutated-in-a-lambda"),
    # every change comes before the wrap, on the plain tensor: dropping it is exact
    pytest.param("s = torch.zeros(4)\ns[0] = 1.\ns = Variable(s)\nprint(s)\n",
                 "s = torch.zeros(4)\ns[0] = 1.\nprint(s)\n", id="changed-before-the-wrap"),
    pytest.param("for inputs, target in loader:\n    target.sub_(1)\n"
                 "    target = Variable(target)\n    f(target)\n",
                 "for inputs, target in loader:\n    target.sub_(1)\n    f(target)\n",
                 id="changed-before-the-wrap-each-round"),
    pytest.param("def f(t):\n    t.data += 1\n    x = Variable(t)\n    x = x * 2\n"
                 "    x.add_(1)\n    return x\n",
                 "def f(t):\n    t.data += 1\n    x = t\n    x = x * 2\n"
                 "    x.add_(1)\n    return x\n", id="changed-after-a-rebinding"),
    pytest.param("x = Variable(t)\nx = 2\nx == 2\nxx.add_(1)\nf(x.data)\n",
                 "x = t\nx = 2\nx == 2\nxx.add_(1)\nf(x.data)\n", id="not-mutated"),
    pytest.param(
        'x = Variable(t)  # comment\ns = "é"; y = Variable(s)\n',
        'x = t  # comment\ns = "é"; y = s\n', id="non-ascii-columns",
    ),
    pytest.param("x = Variable(t, volatile=False)\n", "x = t\n", id="volatile-false"),
    # a helper's ``volatile=volatile`` that no call of it (all in view) passes true
    pytest.param("def to_var(x, volatile=False):\n    if torch.cuda.is_available():\n"
                 "        x = x.cuda()\n    return Variable(x, volatile=volatile)\n"
                 "def f(m, a, b):\n    return m(to_var(a)), m(to_var(b, volatile=False))\n",
                 "def to_var(x, volatile=False):\n    if torch.cuda.is_available():\n"
                 "        x = x.cuda()\n    return x\n"
                 "def f(m, a, b):\n    return m(to_var(a)), m(to_var(b, volatile=False))\n",
                 id="helper-volatile-never-true"),
    pytest.param(
        "def f(loc_t, conf_t):\n    loc_t = Variable(loc_t, requires_grad=False)\n"
        "    if loc_t is not None:\n        conf_t = Variable(conf_t)\n    return loc_t\n",
        "def f(loc_t, conf_t):\n    return loc_t\n",
        id="self-assignment-dropped",
    ),
    # issue 16: no ``x = x`` / ``x, y = x, y`` is left behind, whatever the statement's shape
    pytest.param("x = Variable(x); y = 1\n", "y = 1\n", id="self-assignment-shared-line"),
    pytest.param("y = 1; x = Variable(x)\n", "y = 1\n", id="self-assignment-after-semicolon"),
    pytest.param("y = 1; x = Variable(x); z = 2\n", "y = 1; z = 2\n",
                 id="self-assignment-between-semicolons"),
    pytest.param("x = Variable(x); y = Variable(y)\nf(x, y)\n", "f(x, y)\n",
                 id="two-self-assignments-one-line"),
    pytest.param("x = Variable(x);\nf(x)\n", "f(x)\n", id="self-assignment-trailing-semicolon"),
    pytest.param("fixed_noise = torch.randn(2)\nfixed_noise = Variable(fixed_noise)\n",
                 "fixed_noise = torch.randn(2)\n", id="self-assignment-module-level"),
    pytest.param("x = torch.ones(2)\nx, y = Variable(x), Variable(y)\nf(x, y)\n",
                 "x = torch.ones(2)\nf(x, y)\n", id="tuple-self-assignment-module-level"),
    pytest.param("x = Variable(x)  # wrap the batch\nf(x)\n", "# wrap the batch\nf(x)\n",
                 id="self-assignment-comment-kept"),
    # an ``if`` left with nothing to do goes too, where its test only computes
    pytest.param("if c: x = Variable(x)\n", "", id="self-assignment-header-line"),
    pytest.param("if c:\n    x = Variable(x)\n    y = Variable(y)\nf(x, y)\n",
                 "f(x, y)\n", id="self-assignments-emptying-a-block"),
    pytest.param("if not isinstance(x, Variable):\n    x = Variable(x)\nf(x)\n", "f(x)\n",
                 id="isinstance-test-emptied"),
    pytest.param("if g(x):\n    x = Variable(x)\nf(x)\n", "if g(x):\n    pass\nf(x)\n",
                 id="calling-test-kept"),
    pytest.param("if c:  # gpu\n    x = Variable(x)\nf(x)\n",
                 "if c:  # gpu\n    pass\nf(x)\n", id="commented-test-kept"),
    pytest.param("if c:\n    x = Variable(x)\nelse:\n    g()\n",
                 "if c:\n    pass\nelse:\n    g()\n", id="test-with-else-kept"),
    pytest.param("x, y = (Variable(x),\n        Variable(y))\nf(x, y)\n", "f(x, y)\n",
                 id="tuple-self-assignment-multi-line"),
    # an ``else:`` left with nothing goes with its last statement, not as ``else: pass``
    pytest.param("if gpu:\n    x, y = x.cuda(), y.cuda()\nelse:\n    x = Variable(x)\n"
                 "    y = Variable(y)\nf(x, y)\n",
                 "if gpu:\n    x, y = x.cuda(), y.cuda()\nf(x, y)\n", id="else-emptied"),
    pytest.param("if a:\n    g()\nelif b:\n    h()\nelse:\n    x = Variable(x)\n",
                 "if a:\n    g()\nelif b:\n    h()\n", id="else-of-elif-emptied"),
    pytest.param("for a in b:\n    g(a)\nelse:\n    x = Variable(x)\n", "for a in b:\n    g(a)\n",
                 id="loop-else-emptied"),
    pytest.param("try:\n    g()\nexcept E:\n    h()\nelse:\n    x = Variable(x)\n",
                 "try:\n    g()\nexcept E:\n    h()\n", id="try-else-emptied"),
    pytest.param("if c:\n    g()\nelse:  # cpu\n    x = Variable(x)\n",
                 "if c:\n    g()\nelse:  # cpu\n    pass\n", id="else-with-comment-kept"),
    pytest.param("if c:\n    g()\nelse:\n    x = Variable(x)  # cpu\n",
                 "if c:\n    g()\nelse:\n    pass  # cpu\n", id="else-statement-comment-kept"),
    # (columns in characters: bytes read past a short comment after non-ASCII names)
    pytest.param("if c:\n    g()\nelse:\n    déé = Variable(déé)  #x\n",
                 "if c:\n    g()\nelse:\n    pass  #x\n", id="else-non-ascii-comment-kept"),
    pytest.param("if c:\n    g()\nelse:\n\n    x = Variable(x)\n",
                 "if c:\n    g()\nelse:\n\n    pass\n", id="else-blank-line-kept"),
    pytest.param("if c:\n    g()\nelse: x = Variable(x)\n", "if c:\n    g()\nelse: pass\n",
                 id="else-same-line-kept"),
    pytest.param("try:\n    g()\nfinally:\n    x = Variable(x)\n",
                 "try:\n    g()\nfinally:\n    pass\n", id="finally-kept"),
    pytest.param("if c:\r\n    g()\r\nelse:\r\n    x = Variable(x)\r\n", "if c:\r\n    g()\r\n",
                 id="else-emptied-crlf"),
    pytest.param(
        "for data, target in loader:\n"
        "    data, target = Variable(data, volatile=False), Variable(target)\n"
        "    step(data, target)\n",
        "for data, target in loader:\n    step(data, target)\n",
        id="tuple-self-assignment-in-two-rounds",
    ),
    pytest.param(
        "for data, target in loader:\n"
        "    data, target = Variable(data, volatile=True), Variable(target)\n",
        "for data, target in loader:\n"
        "    data, target = Variable(data, volatile=True), target\n",
        id="tuple-with-a-volatile-wrap-kept",
    ),
    pytest.param(
        "for data, target in loader:\n    data, target = Variable(data), Variable(target)\n"
        "    step(data, target)\n",
        "for data, target in loader:\n    step(data, target)\n",
        id="tuple-self-assignment-dropped",
    ),
    pytest.param(
        "data, target = Variable(data), Variable(target.cuda())\n",
        "data, target = data, target.cuda()\n",
        id="tuple-not-all-self",
    ),
]

TO_VAR = "def to_var(x, volatile=False):\n    return Variable(x, volatile=volatile)\n"
TV001_NOOPS = [
    pytest.param("x = Variable(t, volatile=True)\n", id="volatile-true"),
    pytest.param("x = Variable(t, volatile=flag)\n", id="volatile-expr"),
    # a caller passes a true (or unknown) volatile, or not every call is in view
    pytest.param(f"{TO_VAR}y = to_var(a, volatile=True)\nz = to_var(a)\n",
                 id="helper-volatile-true-passed"),
    pytest.param(f"{TO_VAR}y = to_var(a, volatile=flag)\n", id="helper-volatile-unknown"),
    pytest.param(f"{TO_VAR}ys = map(to_var, xs)\n", id="helper-passed-as-a-callback"),
    pytest.param(f"{TO_VAR}y = to_var(*xs)\n", id="helper-called-with-star-args"),
    pytest.param("def to_var(x, volatile=False):\n    volatile = not volatile\n"
                 "    return Variable(x, volatile=volatile)\ny = to_var(a)\n",
                 id="helper-parameter-rebound"),
    pytest.param("b = Variable(bias, requires_grad=True)\n", id="unsafe-without-flag"),
    pytest.param("x = Variable(t)  # noqa\n", id="noqa"),
    pytest.param("x = Variable(t)  # noqa: TV001\n", id="noqa-code"),
    pytest.param("x = Variable(t)  # noqa:TV0\n", id="noqa-prefix"),
    pytest.param("ok = isinstance(x, Variable)\n", id="isinstance"),
    pytest.param("xs = map(Variable, batch)\n", id="function-value-no-fix"),
    pytest.param("x = Variable(*args)\n", id="star-args"),
    pytest.param("x = Variable(  # keep me\n    t)\n", id="comment-makes-unsafe"),
]

TV002_FIXES = [
    pytest.param("y = Variable(x, volatile=False)\n", "y = x\n", id="via-tv001"),
    pytest.param("if x.volatile:\n    pass\n",
                 "if not torch.is_grad_enabled():\n    pass\n", True, id="read"),
    pytest.param("f(x.volatile)\n", "f(not torch.is_grad_enabled())\n", True, id="read-arg"),
    pytest.param("a = x.volatile and y\n", "a = not torch.is_grad_enabled() and y\n", True,
                 id="read-boolop"),
    pytest.param("if not x.volatile:\n    pass\n",
                 "if torch.is_grad_enabled():\n    pass\n", True, id="read-negated"),
    pytest.param("y = not x.volatile\n", "y = torch.is_grad_enabled()\n", True,
                 id="read-negated-assigned"),
    pytest.param("f(not (x.volatile), not\\\n  y.volatile)\n",
                 "f(torch.is_grad_enabled(), torch.is_grad_enabled())\n", True,
                 id="read-negated-parenthesized"),
    pytest.param("a = not not x.volatile\n", "a = not torch.is_grad_enabled()\n", True,
                 id="read-doubly-negated"),
    pytest.param("a = b and not x.volatile\n", "a = b and torch.is_grad_enabled()\n", True,
                 id="read-negated-boolop"),
]

TV002_NOOPS = [
    pytest.param("y = Variable(x, volatile=True)\n", id="volatile-true"),
    pytest.param("x.volatile = True\n", id="write"),
    pytest.param("if x.volatile:\n    pass\n", id="read-unsafe-without-flag"),
    pytest.param("if x.volatile:  # noqa: TV002\n    pass\n", id="noqa"),
    pytest.param("y = helper(x, volatile=False)\n", id="not-torch"),
    pytest.param(f"{TO_VAR}y = to_var(a, volatile=True)\n", id="helper-volatile-true-passed"),
    pytest.param(f"{TO_VAR}y = to_var(a)\nys = map(to_var, xs)\n", id="helper-callback"),
]

# The TV002 fix alone (TV001's fix of the same call also drops the argument).
TV002_ONLY_FIXES = [
    pytest.param("y = Variable(x, volatile=False)\n", "y = Variable(x)\n", id="drop-kw"),
    pytest.param("y = Variable(x, requires_grad=True, volatile=False)\n",
                 "y = Variable(x, requires_grad=True)\n", id="drop-last-kw"),
    pytest.param("y = Variable(volatile=False, data=x)\n", "y = Variable(data=x)\n",
                 id="drop-first-kw"),
    pytest.param("def to_var(x, volatile=False):\n    return Variable(x, volatile=volatile)\n"
                 "y = to_var(a)\nz = to_var(a, False)\n",
                 "def to_var(x, volatile=False):\n    return Variable(x)\n"
                 "y = to_var(a)\nz = to_var(a, False)\n", id="helper-volatile-never-true"),
]

# TV003-TV006: add ``TVnnn_FIXES`` / ``TVnnn_NOOPS`` tables above and list them here.
FIX_TABLES = {"TV001": TV001_FIXES, "TV002": TV002_FIXES}
NOOP_TABLES = {"TV001": TV001_NOOPS, "TV002": TV002_NOOPS}


def _rows(tables):
    for code, rows in tables.items():
        for row in rows:
            yield pytest.param(code, *row.values, id=f"{code}-{row.id}")


@pytest.mark.parametrize("code, source, expected, unsafe",
                         [pytest.param(*p.values[:3], (p.values[3:] or (False,))[0], id=p.id)
                          for p in _rows(FIX_TABLES)])
def test_fix(code, source, expected, unsafe):
    codes = ["TV001", "TV002"] if code == "TV002" else [code]
    result = fix_text(HEADER + source, lambda text: Analysis(text, codes), unsafe)
    # the Variable import goes when the fixes removed its last use
    header = HEADER if "Variable" in expected or "Variable" not in source else "import torch\n"
    assert result.text == header + expected
    ast.parse(result.text)
    again = fix_text(result.text, lambda text: Analysis(text, codes), unsafe)
    assert again.text == result.text and not again.fixed


@pytest.mark.parametrize("code, source", list(_rows(NOOP_TABLES)))
def test_noop(code, source):
    text = HEADER + source
    result = fix_text(text, lambda t: Analysis(t, [code]), False)
    assert result.text == text
    assert not result.fixed


@pytest.mark.parametrize("source, expected", [p.values for p in TV002_ONLY_FIXES],
                         ids=[p.id for p in TV002_ONLY_FIXES])
def test_tv002_fix_alone(source, expected):
    assert fix(HEADER + source, "TV002") == HEADER + expected


# ---------------------------------------------------------------------------
# imports added and removed


def test_import_torch_added_after_the_import_block():
    source = dedent('''
        """Doc."""
        from __future__ import annotations
        import os
        from torch.autograd import Variable

        def f(x):
            return x.volatile
    ''')
    out = fix_text(source, lambda t: Analysis(t, ["TV002"]), unsafe=True).text
    assert out == dedent('''
        """Doc."""
        from __future__ import annotations
        import os
        from torch.autograd import Variable
        import torch

        def f(x):
            return not torch.is_grad_enabled()
    ''')


def test_import_not_added_when_torch_is_bound():
    source = "import torch.nn as nn\nimport torch.optim\nflag = x.volatile\n"
    out = fix_text(source, lambda t: Analysis(t, ["TV002"]), unsafe=True).text
    assert out == "import torch.nn as nn\nimport torch.optim\nflag = not torch.is_grad_enabled()\n"


def test_fix_not_applied_when_the_name_it_needs_is_taken():
    source = "from torch.autograd import Variable\ntorch = None\nflag = x.volatile\n"
    analysis = Analysis(source, ["TV002"])
    (finding,) = analysis.findings
    assert "bound to something else" in analysis.blocker(finding)
    assert fix_text(source, lambda t: Analysis(t, ["TV002"]), unsafe=True).text == source


@pytest.mark.parametrize("source, fixed", [
    ('print(f"{Variable(x)=}")\n', None),
    ('print(f"{Variable(x) = !r:>10}")\n', None),
    ('print(f"""\n{Variable(x)=}""")\n', None),
    ('print(f"a={Variable(x)}")\n', 'print(f"a={x}")\n'),
    ('print(f"{Variable(x) == y}")\n', 'print(f"{x == y}")\n'),
])
def test_no_fix_inside_a_self_documenting_f_string_field(source, fixed):
    """Issue 32: ``f"{Variable(x)=}"`` prints ``Variable(x)=``: a fix would change it."""
    text = "import torch\nfrom torch.autograd import Variable\n" + source
    result = fix("" + text, "TV001")
    if fixed is None:
        assert result == text
        found = Analysis(text, ["TV001"]).findings
        if sys.version_info < (3, 10) and '"""' in source:
            # 3.9's parser gives the fields of a multi-line f-string no usable
            # position: nothing is reported there, so nothing is fixed
            assert found == []
            return
        (finding,) = found
        assert "self-documenting" in Analysis(text, ["TV001"]).blocker(finding)
    else:
        assert result == "import torch\n" + fixed


def test_an_import_a_type_comment_names_is_kept():
    """Issue 32: ``# type: (Variable) -> Variable`` names the import."""
    text = ("import torch\nfrom torch.autograd import Variable\n\n\ndef f(x):\n"
            "    # type: (Variable) -> Variable\n    return Variable(x)\n")
    assert fix(text, "TV001") == text.replace("return Variable(x)", "return x")
    plain = text.replace("# type: (Variable) -> Variable", "# type: (torch.Tensor) -> int")
    assert "autograd" not in fix(plain, "TV001")


@pytest.mark.parametrize(
    "source, line",
    [
        ("", 1),
        ("x = 1\n", 1),
        ("# comment\n\nx = 1\n", 3),
        ('"""doc"""\nx = 1\n', 2),
        ("import a\nimport b\n\nx = 1\nimport c\n", 3),
        ("from __future__ import annotations\n\nx = 1\n", 2),
        ("import a, \\\n    b\nx = 1\n", 3),
        # issue 32: never between a decorator and its ``def``
        ("@decorate\n@twice\ndef f():\n    pass\n", 1),
        ("@decorate\nclass C:\n    pass\n", 1),
    ],
)
def test_import_line(source, line):
    assert import_line(ast.parse(source)) == line


@pytest.mark.parametrize(
    "spec, source, expected",
    [
        ("torch", "x = 1\n", "import torch\nx = 1\n"),
        ("torch.nn.init", "import os\n", "import os\nimport torch.nn.init\n"),
        ("torch.nn.init", "import torch\n", "import torch\n"),
        ("from torch.nn import init", "import torch\n",
         "import torch\nfrom torch.nn import init\n"),
        ("from torch.nn import init", "from torch.nn import init\n",
         "from torch.nn import init\n"),
        ("torch", "import os", "import os\nimport torch\n"),
        ("torch", "x = 1\r\ny = 2\r\n", "import torch\r\nx = 1\r\ny = 2\r\n"),
        ("torch", "@d\ndef f():\n    pass\n", "import torch\n@d\ndef f():\n    pass\n"),
    ],
)
def test_add_imports(spec, source, expected):
    assert add_imports(source, [spec], dominant_newline(source)) == expected


@pytest.mark.parametrize(
    "source, expected",
    [
        pytest.param("from torch.autograd import Variable\nx = Variable(t)\n", "x = t\n",
                     id="only-name"),
        pytest.param("from torch.autograd import Variable, grad\nx = Variable(t)\n",
                     "from torch.autograd import grad\nx = t\n", id="other-names-kept"),
        pytest.param("from torch.autograd import grad, Variable as V\nx = V(t)\n",
                     "from torch.autograd import grad\nx = t\n", id="alias"),
        pytest.param("from torch.autograd.variable import Variable\nx = Variable(t)\n",
                     "x = t\n", id="variable-module"),
        pytest.param("import torch\n\ndef f(t):\n    from torch.autograd import Variable\n"
                     "    return Variable(t)\n",
                     "import torch\n\ndef f(t):\n    return t\n", id="in-function"),
        pytest.param("from torch.autograd import Variable\nx = Variable(t)\n"
                     "ok = isinstance(x, Variable)\n",
                     "from torch.autograd import Variable\nx = t\n"
                     "ok = isinstance(x, Variable)\n", id="still-used"),
        pytest.param("from torch.autograd import Variable\n__all__ = ['Variable']\n"
                     "x = Variable(t)\n",
                     "from torch.autograd import Variable\n__all__ = ['Variable']\nx = t\n",
                     id="exported"),
        pytest.param("from torch.autograd import Variable  # F401\nx = Variable(t)\n",
                     "from torch.autograd import Variable  # F401\nx = t\n", id="comment"),
        pytest.param("from torch.autograd import Variable\nx = Variable(t, volatile=True)\n",
                     "from torch.autograd import Variable\nx = Variable(t, volatile=True)\n",
                     id="use-left"),
        pytest.param("try:\n    from torch.autograd import Variable\nexcept ImportError:\n"
                     "    pass\nx = Variable(t)\n",
                     "try:\n    from torch.autograd import Variable\nexcept ImportError:\n"
                     "    pass\nx = t\n", id="inside-try-left-alone"),
        pytest.param("def f(t):\n    return Variable(t)\nfrom torch.autograd import Variable",
                     "def f(t):\n    return t", id="no-final-newline"),
    ],
)
def test_variable_import_removed_when_unused(source, expected):
    out = fix_text(source, lambda t: Analysis(t, ["TV001"])).text
    assert out == expected


def test_unused_variable_import_is_left_when_nothing_was_fixed():
    source = "from torch.autograd import Variable\nx = 1\n"
    assert fix_text(source, lambda t: Analysis(t, ["TV001"])).text == source


# ---------------------------------------------------------------------------
# the engine, with fixes made up for the purpose


class FakeAnalysis:
    """Findings produced by a function of the text, every fix applicable."""

    def __init__(self, text, produce):
        ast.parse(text)
        self.text = text
        self.findings = produce(text)

    def fixable(self, finding, unsafe):
        return finding.fix is not None and (unsafe or finding.fix.safety == SAFE)


def finding(line, col, *edits, safety=SAFE, code="TV999", imports=()):
    return Finding(code, line, col, "made up", Fix(tuple(edits), safety, imports))


def run(text, produce, unsafe=False, max_rounds=MAX_ROUNDS):
    return fix_text(text, lambda t: FakeAnalysis(t, produce), unsafe, max_rounds)


def replacing(word, new):
    """Every occurrence of ``word`` becomes ``new``."""
    def produce(text):
        out = []
        for n, line in enumerate(lines_of(text), 1):
            col = line.find(word)
            while col >= 0:
                out.append(finding(n, col, Edit((n, col), (n, col + len(word)), new)))
                col = line.find(word, col + 1)
        return out
    return produce


def test_edits_are_applied_back_to_front():
    text = "a = b + c\n"
    edits = [Edit((1, 4), (1, 5), "bbbb"), Edit((1, 8), (1, 9), "cc"), Edit((1, 0), (1, 1), "")]
    assert apply_edits(text, edits) == " = bbbb + cc\n"


def test_multi_line_edits():
    text = "x = f(\n    1,\n    2,\n)\ny = 3\n"
    out = apply_edits(text, [Edit((1, 4), (4, 1), "g()"), Edit((5, 0), (6, 0), "")])
    assert out == "x = g()\n"


def test_statement_level_edit_with_new_lines():
    text = "def f():\n    out = model(x)\n    return out\n"
    edit = Edit((2, 0), (3, 0), "    with torch.no_grad():\n        out = model(x)\n")
    result = run(text, lambda t: [finding(2, 4, edit, imports=("torch",))]
                 if "with" not in t else [])
    assert result.text == ("import torch\ndef f():\n    with torch.no_grad():\n"
                           "        out = model(x)\n    return out\n")


def unwrapping(text):
    """``f(...)`` and ``g(...)`` calls on one line become their argument (TV997, TV998)."""
    found = []
    line = text.split("\n")[0]
    for name, code in (("f(", "TV997"), ("g(", "TV998")):
        start = line.find(name)
        if start < 0:
            continue
        depth, end = 0, start + 1
        for end in range(start + 1, len(line)):
            depth += {"(": 1, ")": -1}.get(line[end], 0)
            if depth == 0:
                break
        inner = line[start + 2:end]
        found.append(finding(1, start, Edit((1, start), (1, end + 1), inner), code=code))
    return sorted(found, key=lambda f: f.col)


def test_overlapping_edits_wait_for_a_later_round():
    first = FakeAnalysis("x = f(g(1))\n", unwrapping)
    assert [f.code for f in first.findings] == ["TV997", "TV998"]
    result = run("x = f(g(1))\n", unwrapping)
    assert result.text == "x = 1\n"
    assert result.fixed == Counter({"TV997": 1, "TV998": 1})

    text = "x = aa\n"  # (``len``, ``abs``: fixes must not leave a name undefined)
    both = [finding(1, 4, Edit((1, 4), (1, 6), "len")),
            finding(1, 5, Edit((1, 5), (1, 6), "abs"))]
    result = run(text, lambda t: both if t == text else [])
    # one edit is applied; the finding it overlapped is gone with it, and
    # counts as fixed: what ``Fixed N`` says adds up with what remains
    assert result.text == "x = len\n" and result.fixed == Counter({"TV999": 2})


def test_fix_that_breaks_the_code_is_dropped_and_reported():
    def produce(text):
        if not text.startswith("a"):
            return []
        return [finding(1, 0, Edit((1, 0), (1, 1), "good")),
                finding(2, 0, Edit((2, 0), (2, 1), "(bad"))]

    result = run("a = 1\nb = 2\n", produce)
    assert result.text == "good = 1\nb = 2\n"
    assert [d.finding.line for d in result.dropped] == [2]
    assert "invalid code" in result.dropped[0].reason


def test_fix_outside_the_text_is_dropped():
    result = run("a = 1\n", lambda t: [finding(1, 0, Edit((1, 0), (9, 0), ""))])
    assert result.text == "a = 1\n"
    assert "does not fit" in result.dropped[0].reason


def test_rounds_are_capped():
    result = run("a = 1\n", replacing("a", "(a)"), max_rounds=3)
    assert result.text == "(((a))) = 1\n"
    assert not result.converged


def test_fixpoint():
    result = run("a = 0\na + 1\n", replacing("a", "b"))
    assert result.text == "b = 0\nb + 1\n" and result.converged
    assert result.fixed == Counter({"TV999": 2})


def test_unsafe_fixes_only_when_asked():
    def produce(text):
        return [finding(1, 0, Edit((1, 0), (1, 1), "b"), safety=UNSAFE)] if "a" in text else []

    assert run("a = 1\n", produce).text == "a = 1\n"
    assert run("a = 1\n", produce, unsafe=True).text == "b = 1\n"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings_are_kept(newline):
    text = newline.join(["x = 1", "y = 2", "z = x", ""])
    edit = Edit((2, 0), (3, 0), "y = [\n    2,\n]\n")
    result = run(text, lambda t: [finding(2, 0, edit)] if "[" not in t else [])
    assert result.text == newline.join(["x = 1", "y = [", "    2,", "]", "z = x", ""])


def test_dominant_newline():
    assert dominant_newline("a\r\nb\r\nc\n") == "\r\n"
    assert dominant_newline("abc") == "\n"


def test_lines_of_splits_like_the_tokenizer():
    assert lines_of("a\x0cb\r\nc\rd\ne") == ["a\x0cb\r\n", "c\r", "d\n", "e"]
    assert lines_of("a\x0cb\nc\x0bd\u2028e\n\n") == ["a\x0cb\n", "c\x0bd\u2028e\n", "\n"]
    assert lines_of("") == [] and lines_of("\n") == ["\n"] and lines_of("x") == ["x"]
    assert lines_of("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]
    for other in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
        assert lines_of(f"a{other}b\nc") == [f"a{other}b\n", "c"]
        assert lines_of(f"\u00e9{other}\r\n") == [f"\u00e9{other}\r\n"]


@given(st.text(alphabet="ab \n\r\x0c\x0b\x1c\x1d\x1e\u2028\u2029\x85\u00e9#"))
def test_lines_of_keeps_every_character_and_breaks_only_at_newlines(text):
    lines = lines_of(text)
    assert "".join(lines) == text
    assert all(line for line in lines)
    for line in lines[:-1]:
        assert line.endswith(("\n", "\r"))
        assert "\n" not in line[:-1] and "\r" not in line[:-2]
    unterminated = bool(text) and not text.endswith(("\n", "\r"))
    assert len(lines) == len(re.findall(r"\r\n|\r|\n", text)) + unterminated


def test_bad_edits_raise():
    with pytest.raises(BadEdit):
        apply_edits("abc\n", [Edit((1, 2), (1, 1), "")])
    with pytest.raises(BadEdit):
        apply_edits("abc\n", [Edit((1, 0), (1, 2), ""), Edit((1, 1), (1, 3), "")])
    with pytest.raises(BadEdit):
        apply_edits("abc\n", [Edit((1, 9), (1, 9), "")])


# ---------------------------------------------------------------------------
# noqa lines are never touched


def test_noqa_line_inside_a_fix_blocks_it():
    source = HEADER + "x = Variable(\n    t  # noqa\n)\n"
    analysis = Analysis(source, ["TV001"])
    (found,) = analysis.findings
    assert analysis.blocker(found) == "line 4 has a `# noqa` for TV001"
    assert fix_text(source, lambda t: Analysis(t, ["TV001"]), unsafe=True).text == source
    unblocked = source.replace("# noqa", "# note")
    assert fix_text(unblocked, lambda t: Analysis(t, ["TV001"]), unsafe=True).text != unblocked


def test_noqa_for_another_code_does_not_block():
    source = HEADER + "x = Variable(t)  # noqa: E501\n"
    assert fix(source, "TV001") == "import torch\nx = t  # noqa: E501\n"


def test_file_level_noqa_exempts_everything():
    source = "# flake8: noqa\n" + HEADER + "x = Variable(t)\n"
    assert Analysis(source, ["TV001"]).findings == []
    assert fix(source, "TV001") == source


# ---------------------------------------------------------------------------
# every rule's fixtures: fixing all of them, unsafe fixes included, leaves code
# that parses and is a fixpoint


FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("TV*.py"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixing_the_fixtures_gives_parsable_code_and_a_fixpoint(path):
    source = path.read_text(encoding="utf-8")
    rescued = rescue(source, ast.parse)  # TV101's fixtures: their TV101 fixes applied
    if rescued is not None:
        source = rescued.text
    codes = list(all_rules())
    result = fix_text(source, lambda t: Analysis(t, codes, str(path)), unsafe=True)
    ast.parse(result.text)
    assert result.converged
    # a fix that adds ``import torch`` to a file without torch would make its
    # other code look like torch code: the fixer drops it
    allowed = "would add a finding" if path.name.endswith("_no_torch.py") else "\0"
    assert [d for d in result.dropped if allowed not in d.reason] == [], \
        [d.reason for d in result.dropped]
    again = fix_text(result.text, lambda t: Analysis(t, codes, str(path)), unsafe=True)
    assert again.text == result.text
    left = Analysis(result.text, codes, str(path))
    dropped = {(d.finding.code, d.finding.message) for d in result.dropped}
    assert [f for f in left.findings if left.fixable(f, unsafe=True)
            and (f.code, f.message) not in dropped] == []


@pytest.mark.parametrize("source, expected", [
    # BinaryNet (sweep 30): a removed module imported under a name never read
    ("import torch\nimport torch.nn._functions as tnnf\nx = torch.ones(2)\n",
     "import torch\nx = torch.ones(2)\n"),
    # read, or bound under torch's own name: the message alone
    ("import torch\nimport torch.nn._functions as tnnf\nf = tnnf.thnn\n", None),
    ("import torch\nimport torch.legacy.nn\nx = torch.ones(2)\n", None),
    ("import torch\nimport torch.nn._functions as tnnf\n__all__ = ['tnnf']\n", None),
])
def test_tv111_deletes_an_unused_import_of_a_removed_module(source, expected):
    assert fix(source, "TV111") == (source if expected is None else expected)
