"""Fixes of TV103, TV104, TV106 and TV107 (programs that stop on PyTorch 2.13).

(source, expected) tables: each finding's fix is applied alone, so the tables
pin the rules' own edits; the fixed text must parse.  No-op tables list
sources the rule leaves alone.
"""
import ast
import textwrap

import pytest

from flake8_torch04.analysis.findings import UNSAFE
from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.edits import apply_edits


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


def fixed(source, code):
    findings = check_source(source, "t.py", [code])
    assert findings, f"no {code} finding"
    edits = []
    for finding in findings:
        assert finding.fix is not None, finding
        assert finding.fix.safety == UNSAFE
        edits.extend(finding.fix.edits)
    text = apply_edits(source, edits)
    ast.parse(text)
    return text


def findings(source, code):
    return check_source(source, "t.py", [code])


TV106_FIXES = [
    pytest.param("model = torch.load(path)\n", "model = torch.load(path, weights_only=False)\n",
                 id="bound-to-model"),
    pytest.param("m = torch.load(f, map_location='cpu')\nm.eval()\n",
                 "m = torch.load(f, map_location='cpu', weights_only=False)\nm.eval()\n",
                 id="keyword"),
    pytest.param("net = torch.load(\n    path,\n)\n",
                 "net = torch.load(\n    path, weights_only=False,\n)\n", id="trailing-comma"),
    pytest.param("out = torch.load(p)(x)\n", "out = torch.load(p, weights_only=False)(x)\n",
                 id="called"),
]
TV106_NOOPS = [
    "model.load_state_dict(torch.load(path))\n",
    "ckpt = torch.load(path)\nmodel.load_state_dict(ckpt['model'])\n",
    "model = torch.load(path, weights_only=False)\n",
    "x = torch.load(path)\nprint(x.shape)\n",
]


@pytest.mark.parametrize("source, expected", TV106_FIXES)
def test_tv106_fix(source, expected):
    header = "import torch\n"
    assert fixed(header + source, "TV106") == header + expected


@pytest.mark.parametrize("source", TV106_NOOPS)
def test_tv106_noop(source):
    assert not findings("import torch\n" + source, "TV106")


def test_tv106_message_says_only_for_trusted_files():
    (finding,) = findings("import torch\nmodel = torch.load(path)\n", "TV106")
    assert "only for files you trust" in finding.message
    assert "`torch.load(path)`" in finding.message


TV103_HEADER = "import torch\none = torch.FloatTensor([1])\nmone = one * -1\n"
TV103_FIXES = [
    pytest.param("errD_real.backward(one)\n", "errD_real.backward()\n", id="one"),
    pytest.param("errD_fake.backward(mone)\n", "(-errD_fake).backward()\n", id="mone"),
    pytest.param("(a_loss + b_loss).backward(mone)\n", "(-(a_loss + b_loss)).backward()\n",
                 id="mone-binop"),
    pytest.param("loss.backward(one, retain_graph=True)\n",
                 "loss.backward(retain_graph=True)\n", id="keyword-kept"),
    pytest.param("loss.backward(gradient=mone, retain_graph=True)\n",
                 "(-loss).backward(retain_graph=True)\n", id="gradient-keyword"),
    pytest.param("loss.backward(torch.ones(1))\n", "loss.backward()\n", id="ones"),
]
TV103_NOOPS = [
    "loss.backward()\n",
    "loss.backward(torch.tensor(1.))\n",
    "output.backward(one)\n",
    "loss.backward(torch.ones(3))\n",
]


@pytest.mark.parametrize("source, expected", TV103_FIXES)
def test_tv103_fix(source, expected):
    assert fixed(TV103_HEADER + source, "TV103") == TV103_HEADER + expected


@pytest.mark.parametrize("source", TV103_NOOPS)
def test_tv103_noop(source):
    assert not findings(TV103_HEADER + source, "TV103")


def test_tv103_other_values_get_a_message_only():
    source = "import torch\nhalf = torch.FloatTensor([0.5])\nloss.backward(half)\n"
    (finding,) = findings(source, "TV103")
    assert finding.fix is None
    assert "0.5" in finding.message


TV104_SOURCE = dedent('''
    import torch
    from torch.autograd import Function


    class Scale(Function):
        def __init__(self, factor, bias=0.0):
            super(Scale, self).__init__()
            self.factor = factor
            self.shift = bias

        def forward(self, x):
            """Scale and shift."""
            self.save_for_backward(x)
            return x * self.factor + self.shift

        def backward(self, grad):
            x, = self.saved_tensors
            return grad * self.factor


    class Mul(Function):
        def forward(self, a, b):
            self.save_for_backward(a, b)
            return a * b

        def backward(self, grad):
            a, b = self.saved_tensors
            return (grad * b, grad * a)


    y = Scale(2.0)(x)
    z = Scale(3.0, bias=1.0)(Mul()(y, y))
''')
TV104_EXPECTED = dedent('''
    import torch
    from torch.autograd import Function


    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor, bias):
            """Scale and shift."""
            ctx.factor = factor
            ctx.shift = bias
            ctx.save_for_backward(x)
            return x * ctx.factor + ctx.shift

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * ctx.factor, None, None


    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return (grad * b, grad * a)


    y = Scale.apply(x, 2.0, 0.0)
    z = Scale.apply(Mul()(y, y), 3.0, 1.0)
''')


def test_tv104_fix():
    # the nested call site of Mul waits for a second round: apply Scale's fix alone
    findings_ = findings(TV104_SOURCE, "TV104")
    assert [f.line for f in findings_] == [5, 21]
    scale = findings_[0]
    text = apply_edits(TV104_SOURCE, scale.fix.edits)
    mul = findings(text, "TV104")[-1]
    text = apply_edits(text, mul.fix.edits)
    assert text == TV104_EXPECTED.replace("Mul()(y, y)", "Mul.apply(y, y)")
    ast.parse(text)


#: a legacy Function with a constructor argument, for the ways it is used below
TV104_SCALE = dedent('''
    from torch.autograd import Function


    class Scale(Function):
        def __init__(self, factor):
            self.factor = factor

        def forward(self, x):
            return x * self.factor

        def backward(self, grad):
            return grad * self.factor
''')
TV104_NAMED = TV104_SCALE + "\n\n" + dedent('''
    def step(x):
        # an instance kept under a name, called later in the same function
        scale = Scale(2.0)
        y = scale(x)
        return y
''')


def test_tv104_fix_of_a_named_instance():
    (finding,) = findings(TV104_NAMED, "TV104")
    assert "called on line 18" in finding.message
    text = apply_edits(TV104_NAMED, finding.fix.edits)
    assert text.endswith(dedent('''
        def step(x):
            # an instance kept under a name, called later in the same function
            y = Scale.apply(x, 2.0)
            return y
    '''))
    ast.parse(text)


TV104_NO_FIX = [
    pytest.param("y = Scale(2.0)\nz = y(x)\nlayers = [y]\n", id="instance-escapes"),
    pytest.param("y = Scale(2.0)\nz = y(x)\ny = None\n", id="instance-rebound"),
    pytest.param("z = y(x)\ny = Scale(2.0)\n", id="instance-called-before"),
    pytest.param("y = Scale(factor)\nz = y(x)\n", id="instance-of-a-variable"),
    pytest.param("y = Scale(2.0); z = y(x)\n", id="instance-beside-a-statement"),
    pytest.param("if x:\n    y = Scale(2.0)\nz = y(x)\n", id="instance-alone-in-block"),
    pytest.param("y = Scale(2.0)\ndef f(x):\n    return y(x)\n", id="instance-other-function"),
    pytest.param("fn = Scale\n", id="passed-as-value"),
    pytest.param("", id="no-call-in-file"),
    pytest.param("y = Scale(*args)(x)\n", id="starred"),
]


@pytest.mark.parametrize("uses", TV104_NO_FIX)
def test_tv104_message_only(uses):
    source = "import torch\n" + TV104_SCALE + uses
    (finding,) = findings(source, "TV104")
    assert finding.fix is None
    assert "`__init__` arguments as extra inputs" in finding.message


def test_tv104_init_doing_more_than_storing_gets_no_fix():
    source = dedent('''
        from torch.autograd import Function


        class Top(Function):
            def __init__(self, k):
                self.k = k
                self.cache = {}

            def forward(self, x):
                return x[:self.k]

            def backward(self, grad):
                return grad

        y = Top(3)(x)
    ''')
    (finding,) = findings(source, "TV104")
    assert finding.fix is None
    assert "called on line 15" in finding.message


TV107_HEADER = dedent('''
    import torch
    import torch.nn as nn
    criterion = nn.CrossEntropyLoss()
    idx2word = {0: 'a'}
''')
TV107_FIXES = [
    pytest.param("t = torch.LongTensor([1, 2])\nloss = criterion(out, t[i])\n",
                 "t = torch.LongTensor([1, 2])\nloss = criterion(out, t[i].view(1))\n",
                 id="loss-target"),
    pytest.param("w = torch.multinomial(p, 1)[0]\nprint(idx2word[w])\n",
                 "w = torch.multinomial(p, 1)[0]\nprint(idx2word[w.item()])\n", id="dict-key"),
    pytest.param("print(idx2word[torch.multinomial(p, 1)[0]])\n",
                 "print(idx2word[torch.multinomial(p, 1)[0].item()])\n", id="inline-key"),
]
TV107_NOOPS = [
    "loss = criterion(out, t[i])\n",
    "w = torch.multinomial(p, 1)[0]\nprint(words[w])\n",
    "w = torch.multinomial(p, 1)[0].item()\nprint(idx2word[w])\n",
]


@pytest.mark.parametrize("source, expected", TV107_FIXES)
def test_tv107_fix(source, expected):
    assert fixed(TV107_HEADER + source, "TV107") == TV107_HEADER + expected


@pytest.mark.parametrize("source", TV107_NOOPS)
def test_tv107_noop(source):
    assert not findings(TV107_HEADER + source, "TV107")


def test_tv104_a_function_only_called_through_forward_keeps_its_gradients():
    """UNet's ``DiceCoeff().forward(a, b)`` (sweep 32): a plain method call, whose
    gradient on 0.3 came from what ``forward`` computed; ``.apply`` would switch
    to ``backward``.  The message says to drop ``Function`` and claims no
    RuntimeError; no fix."""
    source = dedent('''
        from torch.autograd import Function


        class Dice(Function):
            def forward(self, a, b):
                return (a * b).sum()

            def backward(self, grad):
                return grad, grad


        def score(a, b):
            return Dice().forward(a, b)
    ''')
    [finding] = findings(source, "TV104")
    assert finding.fix is None
    assert "drop `Function` from its bases" in finding.message
    assert "line 13" in finding.message and "RuntimeError" not in finding.message
    called = source.replace("Dice().forward(a, b)", "Dice()(a, b)")
    [finding] = findings(called, "TV104")
    assert "RuntimeError" in finding.message and finding.fix is not None
