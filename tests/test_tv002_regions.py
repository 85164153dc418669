"""TV002 fixes that put a region under a grad mode or drop a statement: a loop
under ``with torch.no_grad():`` (``volatile=True``), a loop or a function's body
under ``with torch.set_grad_enabled(not <expr>):`` (``volatile=<expr>``), and
``x.volatile = v`` dropped.  Rows run with TV001, as ``torch04 check --fix
--unsafe-fixes`` does; each is checked to parse and to be a fixpoint."""
import ast
import textwrap

import pytest

from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text

HEADER = "import torch\nfrom torch.autograd import Variable\n"


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


def fixed(source, unsafe=True, codes=("TV001", "TV002")):
    result = fix_text(source, lambda text: Analysis(text, list(codes)), unsafe)
    ast.parse(result.text)
    again = fix_text(result.text, lambda text: Analysis(text, list(codes)), unsafe)
    assert again.text == result.text and not again.fixed, "not a fixpoint"
    return result.text


REGION_FIXES = [
    pytest.param(
        """
        total = 0
        for x in data:
            # the test set
            v = Variable(x, volatile=True)
            total += model(v).sum().item()
        else:
            print(total)
        """,
        """
        total = 0
        with torch.no_grad():
            for x in data:
                # the test set
                v = x
                total += model(v).sum().item()
            else:
                print(total)
        """,
        id="module-level-loop",
    ),
    pytest.param(
        """
        for epoch in range(2):
            for x, y in loader:
                crit(model(Variable(x)), Variable(y)).backward()
            for x, y in test_loader:
                x, y = Variable(x, volatile=True), Variable(y, volatile=True)
                correct += (model(x).max(1)[1] == y).sum()
        """,
        """
        for epoch in range(2):
            for x, y in loader:
                crit(model(x), y).backward()
            with torch.no_grad():
                for x, y in test_loader:
                    correct += (model(x).max(1)[1] == y).sum()
        """,
        id="evaluation-loop-in-an-epoch-loop",
    ),
    pytest.param(
        """
        def collect(xs, out):
        \tfor x in xs:
        \t\tout.append(Variable(x, volatile=True))
        \tout.sort()
        """,
        """
        def collect(xs, out):
        \twith torch.no_grad():
        \t\tfor x in xs:
        \t\t\tout.append(x)
        \tout.sort()
        """,
        id="tabs-stored-in-a-list",
    ),
    pytest.param(
        """
        with torch.no_grad():
            out = model(Variable(x, volatile=True))
        """,
        """
        with torch.no_grad():
            out = model(x)
        """,
        id="under-no-grad-already",
    ),
    pytest.param(
        """
        for x, y in batches:
            x = Variable(x, volatile=not train)
            loss = crit(model(x), y)
            if train:
                loss.backward()
        """,
        """
        with torch.set_grad_enabled(train):
            for x, y in batches:
                loss = crit(model(x), y)
                if train:
                    loss.backward()
        """,
        id="expression-loop",
    ),
    pytest.param(
        """
        def score(model, x, is_eval=False):
            \"\"\"Doc.\"\"\"
            v = Variable(x, volatile=is_eval)
            print(model(v))
        """,
        """
        def score(model, x, is_eval=False):
            \"\"\"Doc.\"\"\"
            with torch.set_grad_enabled(not is_eval):
                v = x
                print(model(v))
        """,
        id="expression-function-body",
    ),
    pytest.param(
        """
        t = Variable(torch.zeros(3))
        t.volatile = False
        if t.sum() > 0:
            t.volatile = True  # keep me
        print(t)
        """,
        """
        t = torch.zeros(3)
        if t.sum() > 0:
            pass  # keep me
        print(t)
        """,
        id="setting-dropped",
    ),
    pytest.param(
        """
        def hook(module, inputs, output):
            output.volatile = True
            inputs[0].volatile = is_eval; print(output)


        model.register_forward_hook(hook)
        """,
        """
        def hook(module, inputs, output):
            print(output)


        model.register_forward_hook(hook)
        """,
        id="setting-in-a-hook",
    ),
    pytest.param(
        """
        from torch import autograd
        V = lambda *a, **k: autograd.Variable(*a, **k).cuda() if CUDA else Variable(*a, **k)
        def wrap(*args, **kwargs):
            return V(*args, **kwargs)
        y = V(x, volatile=False)
        for s in states:
            print(model(V(s, volatile=True)))
        """,
        """
        from torch import autograd
        V = lambda *a, **k: autograd.Variable(*a, **k).cuda() if CUDA else Variable(*a, **k)
        def wrap(*args, **kwargs):
            return V(*args, **kwargs)
        y = V(x)
        with torch.no_grad():
            for s in states:
                print(model(V(s)))
        """,
        id="kwargs-wrapper",
    ),
]


@pytest.mark.parametrize("source, expected", REGION_FIXES)
def test_region_fix(source, expected):
    # the Variable import goes with its last use
    header = HEADER if "Variable" in expected or "Variable" not in source else "import torch\n"
    assert fixed(HEADER + dedent(source)) == header + dedent(expected)


def test_setting_dropped_is_safe():
    source = HEADER + "t = torch.ones(2)\nt.volatile = True\nprint(t)\n"
    assert fixed(source, unsafe=False, codes=("TV002",)) == HEADER + "t = torch.ones(2)\nprint(t)\n"


REGION_NOOPS = [
    pytest.param("for x in xs:\n    yield_ = 1\n    out = model(Variable(x, volatile=True))\n"
                 "    out.sum().backward()\n", id="loop-trains"),
    pytest.param("def batches(xs):\n    for x in xs:\n        yield Variable(x, volatile=True)\n",
                 id="generator"),
    pytest.param("for x in xs:\n    print('''a\nb''', model(Variable(x, volatile=True)))\n",
                 id="string-of-several-lines"),
    pytest.param("for x in xs:\n    print(model(Variable(x,\n        volatile=True)))\n",
                 id="keyword-on-its-own-line"),
    pytest.param("for x in xs:\n    q = model(Variable(x))\n"
                 "    t = model(Variable(x, volatile=True))\n", id="a-variable-not-volatile"),
    pytest.param("for volatile in (False, True):\n    print(Variable(x, volatile=volatile))\n",
                 id="expression-bound-in-the-loop"),
    pytest.param("for x in xs:\n    print(Variable(x, volatile=is_eval()))\n",
                 id="expression-calls"),
    pytest.param("for x in xs:\n    print(Variable(x, volatile=a), Variable(x, volatile=b))\n",
                 id="two-expressions"),
    pytest.param("def get(x, evaluation):\n    return Variable(x, volatile=evaluation)\n",
                 id="expression-returned"),
    pytest.param("def get(x):\n    return model(Variable(x, volatile=evaluation))\n",
                 id="expression-not-a-parameter"),
    pytest.param("def batchify(rows, flag=False):\n    feats = []\n    for k in range(2):\n"
                 "        feats.append(Variable(rows[k], volatile=flag))\n    return feats\n",
                 id="loop-appends-what-leaves-the-function"),
    pytest.param("def run(model, rows, flag):\n    feats = []\n    for row in rows:\n"
                 "        feats.append(Variable(row, volatile=flag))\n"
                 "    self.feats = feats\n", id="loop-stores-what-it-makes"),
    pytest.param("model.volatile = True\n", id="setting-on-a-module"),
    pytest.param("model = torch.nn.Linear(2, 2)\nmodel.volatile = True\n", id="setting-on-nn"),
    pytest.param("def f(x):\n    x.volatile = True\n", id="setting-on-an-unknown"),
    pytest.param("t = torch.ones(2)\nt.volatile = flag()\n", id="setting-calls"),
    pytest.param("t = torch.ones(2)\nt = load()\nt.volatile = True\n", id="setting-rebound"),
    pytest.param("def hook(module, i, o):\n    module.volatile = True\n\n\n"
                 "m.register_forward_hook(hook)\n", id="setting-on-the-hooked-module"),
]


@pytest.mark.parametrize("source", REGION_NOOPS)
def test_region_noop(source):
    text = HEADER + source
    result = fix_text(text, lambda t: Analysis(t, ["TV002"]), True)
    assert result.text == text


def test_volatile_passed_on_gets_no_region():
    """``volatile=x.volatile`` passes 0.3's flag on: a region of its own would turn
    grad back on under a caller's ``no_grad``; only the read is rewritten."""
    source = HEADER + "def f(m, x):\n    print(m(Variable(x, volatile=x.volatile)))\n"
    assert fixed(source, codes=("TV002",)) == HEADER + (
        "def f(m, x):\n    print(m(Variable(x, volatile=not torch.is_grad_enabled())))\n")


def test_messages_name_the_region():
    source = HEADER + dedent("""
        for x in xs:
            print(Variable(x, volatile=flag))
        def f(x, flag):
            print(Variable(x, volatile=flag))
        def g(x):
            return Variable(x, volatile=flag)
    """)
    loop, body, returned = check_source(source, codes=["TV002"])
    assert loop.message.endswith(
        "run the `for` loop of line 3 under `with torch.set_grad_enabled(not flag):`")
    assert body.message.endswith(
        "run the body of `f()` under `with torch.set_grad_enabled(not flag):`")
    # (the value is handed back: the model runs on it elsewhere, a region at the
    # constructor would do nothing)
    assert returned.message.endswith(
        "`g()` hands the value back, so a region here would do nothing: where `flag` is "
        "true, run the code that uses what `g()` returns under `with torch.no_grad():`")
    assert returned.fix is None


def test_the_uses_named_are_those_the_variable_reaches():
    """Rainbow's test loop: a later ``for state in memory`` binds ``state`` again;
    its reads are not uses of the ``Variable(state, volatile=True)``."""
    source = dedent("""
        import torch
        from torch.autograd import Variable


        def test(env, dqn, val_mem):
            done = True
            while True:
                if done:
                    state = env.reset()
                state = Variable(state, volatile=True)
                action = dqn.act(state)
                state = env.step(action)
                done = state is None
            qs = []
            for state in val_mem:
                qs.append(dqn.evaluate_q(state))
            return qs
        """)
    found = [f for f in check_source(source, "t.py", ["TV002"])]
    assert len(found) == 1
    assert "uses `state` (line 11) under" in found[0].message
