"""TV164: what the tables of numpy functions claim, checked against numpy and torch
where they are installed; the marker; the fix."""
import ast
import re
import warnings

import pytest

from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text
from flake8_torch04.rules import TABLE
from flake8_torch04.rules.numpy_of_tensor import COPIED, WRAPPED

#: the arguments after the tensor, for the functions that need them
_MORE = {"maximum": (0.5,), "minimum": (0.5,), "fmax": (0.5,), "fmin": (0.5,),
         "power": (2,), "mod": (2,), "fmod": (2,), "arctan2": (1.0,), "hypot": (1.0,),
         "logical_and": (True,), "logical_or": (True,), "logical_xor": (True,),
         "clip": (0, 1), "reshape": ((3, 1),), "repeat": (2,)}


def test_the_marker_names_every_function_of_the_tables():
    marker = re.compile(TABLE["TV164"][2][0])
    for name in COPIED | WRAPPED:
        assert marker.search(f"np.{name}(t)"), name
        assert not marker.search(f"np.{name}_of(t)")


@pytest.mark.parametrize("name", sorted(COPIED | WRAPPED))
def test_each_function_warns_with_a_tensor_and_not_with_its_array(name):
    torch = pytest.importorskip("torch")
    numpy = pytest.importorskip("numpy")
    if int(numpy.__version__.split(".")[0]) < 2:
        pytest.skip("numpy 1 does not warn")
    t = torch.tensor([0.25, 0.5, 0.75])
    function = getattr(numpy, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        before = function(t, *_MORE.get(name, ()))
    assert any(w.category is DeprecationWarning for w in caught), name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        after = function(t.numpy(), *_MORE.get(name, ()))
    if name in COPIED:  # (the safe fix: the same array)
        assert isinstance(before, numpy.ndarray) and before.dtype == after.dtype
        assert (before == after).all()
    else:  # (the unsafe one: a tensor came back, an array or a numpy scalar now)
        assert isinstance(before, torch.Tensor)
        assert isinstance(after, (numpy.ndarray, numpy.generic))
        if name == "argwhere":  # (through the tensor's own ``nonzero``: transposed)
            before = before.t()
        assert numpy.allclose(before.numpy().astype(float), after.astype(float))


HEADER = "import numpy as np\nimport torch\n\nt = torch.zeros(3)\n"


@pytest.mark.parametrize("source, unsafe, expected", [
    ("a = np.array(t)\n", False, "a = np.array(t.numpy())\n"),
    ("a = np.copy(t, order='C')\n", False, "a = np.copy(t.numpy(), order='C')\n"),
    ("a = np.isnan(t)\n", False, "a = np.isnan(t)\n"),
    ("a = np.isnan(t)\n", True, "a = np.isnan(t.numpy())\n"),
    ("a = np.exp(t + 1)\n", True, "a = np.exp((t + 1).numpy())\n"),
    ("a = np.clip(t[0:2], 0, 1)\n", True, "a = np.clip(t[0:2].numpy(), 0, 1)\n"),
])
def test_the_fix(source, unsafe, expected):
    result = fix_text(HEADER + source, lambda text: Analysis(text, ["TV164"]), unsafe)
    ast.parse(result.text)
    assert result.text == HEADER + expected


#: 0.3 code: a ``Variable`` import says so
HEADER_03 = HEADER + "from torch.autograd import Variable\nv = Variable(torch.zeros(3))\n"


@pytest.mark.parametrize("source, expected", [
    # a 0-dim tensor 0.3 gave as a number: numpy is given that number (safe)
    ("a = np.isnan(t.sum())\n", "a = np.isnan(t.sum().item())\n"),
    ("a = np.exp(t[0])\n", "a = np.exp(t[0].item())\n"),
    ("a = np.array(v.data[1])\n", "a = np.array(v.data[1].item())\n"),
    # an element of a tensor of unknown rank: a number on 0.3 where it was 1-D
    ("def f(loss):\n    return np.isnan(loss.data[0])\n",
     "def f(loss):\n    return np.isnan(loss.data[0])\n"),
])
def test_the_fix_in_03_code(source, expected):
    result = fix_text(HEADER_03 + source, lambda text: Analysis(text, ["TV164"]), False)
    assert result.text == HEADER_03 + expected


@pytest.mark.parametrize("source, expected", [
    # TV003's ``.item()`` and TV164's ``.numpy()`` on one expression made
    # ``loss.item().numpy()`` (AttributeError): both now give 0.3's number
    ("def f(out, y, flag):\n"
     "    extra = 0.1 * out.sum() if flag else 0\n"
     "    loss = torch.nn.functional.mse_loss(out, y) + extra\n"
     "    assert not np.isnan(loss.data[0])\n",
     "    assert not np.isnan(loss.item())\n"),
    # TV144's ``.item()`` and TV164's: one edit
    ("print(np.isnan(v.data[0]))\n", "print(np.isnan(v.data[0].item()))\n"),
])
def test_with_the_other_rules_fixes_numpy_gets_a_number(source, expected):
    result = fix_text(HEADER_03 + source, lambda text: Analysis(text, None), True)
    assert result.text.endswith(expected)
    ast.parse(result.text)
