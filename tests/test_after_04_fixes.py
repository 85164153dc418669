"""Fixes of the rules for changes after 0.4 (issue 27): TV110's enumerate,
TV111's NLLLoss2d, TV113, TV116, TV131, TV132; and TV118's message.

(source, expected) tables run the fixer with the one rule (the result must
parse and be a fixpoint); no-op tables list sources it leaves as they are.
Where torch can run the code, the fixed code is run beside the old one on
PyTorch 2.13: it gives the same numbers without the error or the warning.
"""
import ast
import importlib.util
import textwrap
import warnings
from pathlib import Path

import pytest

from flake8_torch04.analysis.findings import SAFE, UNSAFE
from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text

try:  # the core suite runs without torch: only the tests that run code on it skip
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

#: tests that run code on torch 2.13, and on numpy (which torch's wheel does not bring)
needs_torch = pytest.mark.skipif(
    torch is None or importlib.util.find_spec("numpy") is None,
    reason="needs torch==2.13.0 and numpy")


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


def run(source, code, unsafe=False):
    result = fix_text(source, lambda text: Analysis(text, [code]), unsafe)
    ast.parse(result.text)
    again = fix_text(result.text, lambda text: Analysis(text, [code]), unsafe)
    assert again.text == result.text and not again.fixed
    return result.text


TORCH = "import torch\n"
NUMPY = "import numpy as np\nimport torch\n"
VISION = "import torchvision.transforms as transforms\nfrom torchvision import datasets\n"

FIXES = [
    # TV110: enumerate objects have no .next() in Python 3
    pytest.param("TV110", TORCH + "j, data = enumerate(test_loader, 0).next()\n",
                 TORCH + "j, data = next(enumerate(test_loader, 0))\n", False,
                 id="TV110-enumerate"),
    # TV111: NLLLoss2d -> NLLLoss
    pytest.param("TV111", "import torch.nn as nn\nc = nn.NLLLoss2d(w, size_average=False)\n",
                 "import torch.nn as nn\nc = nn.NLLLoss(w, size_average=False)\n", False,
                 id="TV111-NLLLoss2d"),
    pytest.param("TV111", "from torch.nn import NLLLoss2d\nc = NLLLoss2d()\n",
                 "from torch.nn import NLLLoss\nc = NLLLoss()\n",  # (the old name's import goes)
                 False, id="TV111-NLLLoss2d-bare"),
    # TV113: out= of a method
    pytest.param("TV113", TORCH + "x.clamp(-1, 1, out=x)\n", TORCH + "x.clamp_(-1, 1)\n", False,
                 id="TV113-receiver"),
    pytest.param("TV113", TORCH + "self.w.add(1, out=self.w)\n", TORCH + "self.w.add_(1)\n",
                 False, id="TV113-receiver-attribute"),
    pytest.param("TV113", TORCH + "x.sign().mul(m, out=y)\n",
                 TORCH + "torch.mul(x.sign(), m, out=y)\n", False, id="TV113-function"),
    pytest.param("TV113", "import torch as th\nx.exp(out=y)\n",
                 "import torch as th\nth.exp(x, out=y)\n", False, id="TV113-alias"),
    pytest.param("TV113", TORCH + "(a + b).clamp(\n    0, 1, out=a)\n",
                 TORCH + "torch.clamp(a + b, 0, 1, out=a)\n", False, id="TV113-multi-line"),
    pytest.param("TV113", TORCH + "x[0].clamp(0, 1, out=x[0])\n",
                 TORCH + "torch.clamp(x[0], 0, 1, out=x[0])\n", False, id="TV113-subscript"),
    pytest.param("TV113", TORCH + "g.addcmul(lr, a, b, out=g)\n",
                 TORCH + "g.addcmul_(a, b, value=lr)\n", False, id="TV113-scalar-first-receiver"),
    pytest.param("TV113", TORCH + "g.add(-lr, d, out=y)\n",
                 TORCH + "torch.add(g, d, alpha=-lr, out=y)\n", False, id="TV113-scalar-first"),
    pytest.param("TV113", TORCH + "p.bernoulli(out=p)\n", TORCH + "torch.bernoulli(p, out=p)\n",
                 False, id="TV113-bernoulli-keeps-the-function"),
    pytest.param("TV113", TORCH + "v = torch.randn(3)\nv.sum(0, out=s)\n",
                 TORCH + "v = torch.randn(3)\ntorch.sum(v, 0, out=s)\n", False, id="TV113-sum"),
    # TV116: the first value of each
    pytest.param("TV116", VISION + dedent("""
        t = transforms.Compose([transforms.ToTensor(),
                                transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
        d = datasets.MNIST('data', transform=t)
        """), VISION + dedent("""
        t = transforms.Compose([transforms.ToTensor(),
                                transforms.Normalize((0.5,), (0.5,))])
        d = datasets.MNIST('data', transform=t)
        """), False, id="TV116-mnist"),
    pytest.param("TV116", VISION + dedent("""
        n = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
        t = transforms.Compose([transforms.Grayscale(), transforms.ToTensor(), n])
        """), VISION + dedent("""
        n = transforms.Normalize(mean=[0.485], std=[0.229])
        t = transforms.Compose([transforms.Grayscale(), transforms.ToTensor(), n])
        """), False, id="TV116-grayscale-list"),
    pytest.param("TV116", VISION + dedent("""
        d = datasets.MNIST('d', transform=transforms.Compose([
            transforms.ToTensor(), transforms.Normalize((0.1307, 0.1307), (0.3081,))]))
        """), VISION + dedent("""
        d = datasets.MNIST('d', transform=transforms.Compose([
            transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))]))
        """), False, id="TV116-only-the-longer"),
    # TV131
    pytest.param("TV131", TORCH + "torch.set_default_tensor_type('torch.DoubleTensor')\n",
                 TORCH + "torch.set_default_dtype(torch.float64)\n", False, id="TV131-string"),
    pytest.param("TV131", "import torch as th\nth.set_default_tensor_type(th.FloatTensor)\n",
                 "import torch as th\nth.set_default_dtype(th.float32)\n", False, id="TV131-alias"),
    pytest.param("TV131", TORCH + dedent("""
        if cuda:
            torch.set_default_tensor_type('torch.cuda.FloatTensor')
        else:
            torch.set_default_tensor_type('torch.FloatTensor')
        """), TORCH + dedent("""
        if cuda:
            torch.set_default_tensor_type('torch.cuda.FloatTensor')
        else:
            torch.set_default_dtype(torch.float32)
        """), True, id="TV131-beside-cuda-unsafe"),
    # TV132
    pytest.param("TV132", NUMPY + "t = torch.FloatTensor([np.array(r) for r in rows])\n",
                 NUMPY + "t = torch.FloatTensor(np.array([np.array(r) for r in rows]))\n", False,
                 id="TV132-comprehension"),
    pytest.param("TV132", NUMPY + dedent("""
        def sample(rows):
            batch = []
            for s, a in rows:
                batch.append((np.asarray(s), a))
            states, actions = zip(*batch)
            return torch.Tensor(states)
        """), NUMPY + dedent("""
        def sample(rows):
            batch = []
            for s, a in rows:
                batch.append((np.asarray(s), a))
            states, actions = zip(*batch)
            return torch.Tensor(np.array(states))
        """), False, id="TV132-zip"),
    pytest.param("TV132", NUMPY + "xs = [np.zeros(2), np.ones(2)]\nt = torch.tensor(xs)\n",
                 NUMPY + "xs = [np.zeros(2), np.ones(2)]\nt = torch.tensor(np.array(xs))\n", True,
                 id="TV132-tensor-unsafe"),
    pytest.param("TV132", NUMPY + "t = torch.tensor([np.zeros(2)], dtype=torch.float32)\n",
                 NUMPY + "t = torch.tensor(np.array([np.zeros(2)]), dtype=torch.float32)\n", False,
                 id="TV132-tensor-dtype-safe"),
]

NOOPS = [
    ("TV110", TORCH + "pair = zip(loader, loader).next()\n"),
    ("TV113", TORCH + "x.clamp(-1, 1,  # keep\n        out=x)\n"),
    ("TV113", NUMPY + "a = np.zeros(3)\na.clip(0, 1, out=a)\n"),
    ("TV113", TORCH + "x.add(1, *rest, out=y)\n"),
    ("TV116", VISION + "t = transforms.Compose([transforms.ToTensor(), "
                       "transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])\n"),
    ("TV131", TORCH + "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n"),
    ("TV132", "import torch\nfrom numpy import zeros\nt = torch.Tensor([zeros(2), zeros(2)])\n"),
    ("TV132", NUMPY + "t = torch.tensor([np.mean(r) for r in rows])\n"),
]


@pytest.mark.parametrize("code, source, expected, unsafe", FIXES)
def test_fix(code, source, expected, unsafe):
    assert run(source, code, unsafe) == expected
    if unsafe:  # (and nothing without --unsafe-fixes)
        assert run(source, code) == source


@pytest.mark.parametrize("code, source", NOOPS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(NOOPS)])
def test_noop(code, source):
    assert run(source, code, unsafe=True) == source


def test_tv113_comment_in_the_head_keeps_the_message_only():
    source = TORCH + "x.sign(  # sign\n).mul(m, out=y)\n"
    (finding,) = check_source(source, "t.py", ["TV113"])
    assert finding.fix is None and "torch.mul(x.sign(  # sign )" not in finding.message


def test_tv116_without_the_dataset_or_grayscale_says_nothing():
    source = VISION + "t = transforms.Compose([transforms.ToTensor(), " \
                      "transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])\n"
    assert check_source(source, "t.py", ["TV116"]) == []


def test_tv116_shared_with_a_three_channel_dataset_names_the_one_channel_one():
    source = VISION + textwrap.dedent("""\
        t = transforms.Compose([transforms.ToTensor(),
                                transforms.Normalize((0.5, 0.5, 0.5), (0.4, 0.4, 0.4))])
        svhn = datasets.SVHN('./svhn', transform=t)
        mnist = datasets.MNIST('./mnist', transform=t)
        """)
    (finding,) = check_source(source, "t.py", ["TV116"])
    assert finding.fix is None
    assert "also the transform of MNIST (one channel)" in finding.message
    assert "give MNIST its own `Compose` with `Normalize((0.5,), (0.4,))`" in finding.message


def test_tv131_cuda_message_names_both_replacements():
    (finding,) = check_source(TORCH + "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n",
                              "t.py", ["TV131"])
    assert finding.fix is None
    assert "torch.set_default_dtype(torch.float32)" in finding.message
    assert "torch.set_default_device('cuda')" in finding.message


def test_tv132_without_numpy_bound_gives_the_message_only():
    source = "import torch\nfrom numpy import zeros\nt = torch.Tensor([zeros(2), zeros(2)])\n"
    (finding,) = check_source(source, "t.py", ["TV132"])
    assert finding.fix is None and "numpy.array(" in finding.message


def test_tv118_message_spells_the_working_form():
    path = Path(__file__).parent / "fixtures" / "TV118.py"  # (awd-lstm-lm's WeightDrop first)
    first = check_source(path.read_text(encoding="utf-8"), str(path), ["TV118"])[0]
    assert first.fix is None and first.message.startswith("`setattr(self.module, ...)`")
    assert "raw_w.clone()" in first.message and "training=True" in first.message


@needs_torch
def test_tv113_tables_agree_with_torch_and_numpy():
    """The tables are facts of PyTorch 2.13 and numpy: every name is a tensor
    method and a torch function, the numpy ones are exactly those ndarray also
    has, the in-place forms exist where the fix writes them, and no method that
    marks a receiver as a tensor is an ndarray method."""
    np = pytest.importorskip("numpy")

    from flake8_torch04.rules import method_out

    for name in method_out.FUNCTIONS:
        assert hasattr(torch, name) and hasattr(torch.Tensor, name), name
    assert method_out.NDARRAY_METHODS == {
        n for n in method_out.FUNCTIONS if hasattr(np.ndarray, n)}
    for name in method_out.FUNCTIONS - method_out._NO_INPLACE:
        assert hasattr(torch.Tensor, name + "_"), name
    assert not {n for n in method_out._TENSOR_METHODS if hasattr(np.ndarray, n)}
    x, out = torch.rand(3, 3), torch.empty(0)
    for name in ("clamp", "mul", "sign", "exp", "sum", "index_select"):
        with pytest.raises(TypeError):
            getattr(x, name)(out=out)


# ---------------------------------------------------------------------------
# TV111: a project that names the old class in a string keeps it


def test_tv111_no_fix_when_a_test_patches_the_old_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text("import torch.nn as nn\nc = nn.NLLLoss2d()\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_train.py").write_text(
        'from unittest import mock\n@mock.patch("torch.nn.NLLLoss2d")\ndef test(m):\n    pass\n')
    source = (tmp_path / "train.py").read_text()
    (finding,) = check_source(source, str(tmp_path / "train.py"), ["TV111"])
    assert finding.fix is None
    assert "test_train.py" in finding.message and "string" in finding.message
    (tmp_path / "tests" / "test_train.py").write_text("def test():\n    pass\n")
    (finding,) = check_source(source, str(tmp_path / "train.py"), ["TV111"])
    assert finding.fix is not None and finding.fix.safety == SAFE


def test_tv111_no_fix_when_the_file_itself_names_the_old_class():
    source = "import torch.nn as nn\nc = nn.NLLLoss2d()\nNAME = 'torch.nn.NLLLoss2d'\n"
    (finding,) = check_source(source, "t.py", ["TV111"])
    assert finding.fix is None and "this file" in finding.message


# ---------------------------------------------------------------------------
# the fixed code runs on PyTorch 2.13 and gives the old numbers


def _execute(source, names):
    scope = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(source, "<fixed>", "exec"), scope)
    return [scope[n] for n in names], [str(w.message) for w in caught]


@needs_torch
def test_tv113_fixed_code_runs_with_the_same_numbers():
    source = dedent("""
        import torch
        torch.manual_seed(0)
        x = torch.randn(5) * 3
        y = torch.empty(5)
        m = torch.full((5,), 0.5)
        x.clamp(-1, 1, out=x)
        x.sign().mul(m, out=y)
        s = torch.empty(())
        x.sum(0, out=s)
        g = torch.ones(5)
        g.addcmul(0.1, x, y, out=g)
        h = torch.empty(5)
        g.add(-2, x, out=h)
        """)
    with pytest.raises(TypeError, match="clamp"):
        _execute(source, [])
    fixed = run(source, "TV113")
    assert "out=x" not in fixed and "torch.mul(x.sign(), m, out=y)" in fixed
    (x, y, s, g, h), caught = _execute(fixed, ["x", "y", "s", "g", "h"])
    torch.manual_seed(0)
    expected = (torch.randn(5) * 3).clamp(-1, 1)
    assert torch.equal(x, expected) and torch.equal(y, expected.sign() * 0.5)
    assert torch.equal(s, expected.sum())
    g_expected = torch.ones(5) + 0.1 * expected * y  # 0.3's g.addcmul(value, t1, t2)
    assert torch.equal(g, g_expected) and torch.equal(h, g_expected - 2 * expected)
    assert not caught


@needs_torch
def test_tv131_fixed_code_sets_the_same_default_without_the_warning():
    source = TORCH + "torch.set_default_tensor_type('torch.DoubleTensor')\nt = torch.Tensor(2)\n" \
                     "u = torch.randn(2)\nd = torch.get_default_dtype()\n"
    fixed = run(source, "TV131")
    try:
        (t, u, d), caught = _execute(fixed, ["t", "u", "d"])
    finally:
        torch.set_default_dtype(torch.float32)
    assert t.dtype == u.dtype == d == torch.float64
    assert not [m for m in caught if "set_default_tensor_type" in m]


@needs_torch
def test_tv132_fixed_code_gives_the_same_tensors_without_the_warning():
    source = dedent("""
        import numpy as np
        import torch
        rows = [(np.arange(3) * 0.1 + i, i) for i in range(4)]
        batch = []
        for s, a in rows:
            batch.append((np.asarray(s), a))
        states, actions = zip(*batch)
        a = torch.FloatTensor(states)
        b = torch.Tensor([np.array(s) for s, _ in rows])
        c = torch.tensor([np.zeros(2) + 0.1, np.ones(2)])
        """)
    (a, b, c), _ = _execute(source, ["a", "b", "c"])
    fixed = run(source, "TV132", unsafe=True)
    assert fixed.count("np.array(") == 4
    (a2, b2, c2), caught = _execute(fixed, ["a", "b", "c"])
    for old, new in ((a, a2), (b, b2), (c, c2)):
        assert old.dtype == new.dtype and torch.equal(old, new)
    assert (a2.dtype, c2.dtype) == (torch.float32, torch.float64)
    assert not [m for m in caught if "numpy.ndarrays is extremely slow" in m]


@needs_torch
def test_tv111_fixed_nllloss_gives_the_same_loss_without_the_warning():
    source = dedent("""
        import torch
        import torch.nn as nn
        torch.manual_seed(0)
        x = torch.randn(2, 3, 4, 4).log_softmax(1)
        t = torch.randint(0, 3, (2, 4, 4))
        loss = nn.NLLLoss2d(weight=torch.tensor([1., 2., 3.]))(x, t)
        """)
    (old,), caught = _execute(source, ["loss"])
    assert any("NLLLoss2d" in m for m in caught)
    (new,), caught = _execute(run(source, "TV111"), ["loss"])
    assert torch.equal(old, new) and not any("NLLLoss2d" in m for m in caught)


@needs_torch
def test_tv118_the_suggested_form_runs_in_both_modes_and_trains_the_raw_weight():
    """The message's form, checked: train, eval, train again, with a gradient
    reaching the raw weight (``setattr`` of the dropout alone fails on the
    second training step; ``nn.Parameter(...)`` around it cuts the gradient)."""
    import torch.nn.functional as F
    from torch.nn import Parameter

    def wrap(form):
        lin = torch.nn.Linear(4, 4)
        w = lin.weight
        del lin._parameters["weight"]
        lin.register_parameter("weight_raw", Parameter(w.data))
        grads = []
        for training in (True, False, True):
            raw = lin.weight_raw
            if form == "old":
                new = F.dropout(raw, p=0.5, training=training)
            elif form == "parameter":
                new = Parameter(F.dropout(raw, p=0.5, training=training))
            else:
                new = F.dropout(raw, p=0.5, training=True) if training else raw.clone()
            setattr(lin, "weight", new)  # noqa: TV118 (the failure it flags, reproduced)
            lin.weight_raw.grad = None
            lin(torch.randn(2, 4)).sum().backward()
            grads.append(lin.weight_raw.grad is not None)
        return grads

    with pytest.raises(TypeError, match="cannot assign"):
        wrap("old")
    assert wrap("parameter") == [False, False, False]
    assert wrap("suggested") == [True, True, True]


def test_fix_safety_classes():
    cases = [
        ("TV113", TORCH + "x.clamp(0, 1, out=x)\n", SAFE),
        ("TV116", VISION + "d = datasets.MNIST('d', transform=transforms.Compose(["
                           "transforms.ToTensor(), transforms.Normalize((1, 1), (1, 1))]))\n",
         SAFE),
        ("TV131", TORCH + "torch.set_default_tensor_type(torch.DoubleTensor)\n", SAFE),
        ("TV132", NUMPY + "t = torch.tensor([np.zeros(2)])\n", UNSAFE),
    ]
    for code, source, safety in cases:
        (finding,) = check_source(source, "t.py", [code])
        assert finding.fix is not None and finding.fix.safety == safety, code
