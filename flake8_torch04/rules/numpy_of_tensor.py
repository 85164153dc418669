"""TV164: a numpy function given a tensor: numpy 2 warns."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.era import fixed_as_03
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import SPELLED, TENSOR, values
from .shared.calls import method_edit
from .shared.numbers import number_in_03

#: numpy functions that copy their argument into a new array through its
#: ``__array__`` (without the ``copy`` keyword today's tensors do not take)
COPIED = frozenset(("array", "copy"))
#: numpy functions whose result numpy wraps back into the argument's type
#: through its ``__array_wrap__`` (ufuncs, and the functions numpy applies to
#: an array made of the argument): a tensor comes back, with a warning
WRAPPED = frozenset((
    # ufuncs of one argument
    "isnan", "isinf", "isfinite", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "sqrt", "square", "cbrt", "abs", "absolute", "fabs", "sign", "negative", "reciprocal",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "floor", "ceil", "rint", "trunc", "logical_not", "signbit",
    # ufuncs of two arguments (the tensor given first)
    "maximum", "minimum", "fmax", "fmin", "power", "mod", "fmod", "arctan2", "hypot",
    "logical_and", "logical_or", "logical_xor",
    # functions that call the argument's own method, or wrap an array made of it
    "argwhere", "argmax", "argmin", "clip", "round", "around", "cumsum", "cumprod",
    "transpose", "reshape", "repeat",
))


@rule("TV164")
def numpy_of_tensor(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags a numpy function given a tensor: ``np.isnan(t)``, ``np.array(t)``.

    ## What it does
    Flags a call of a numpy function (resolved through the imports: ``np.``,
    ``numpy.``, ``from numpy import isnan``) whose first argument the value
    facts show to be a torch tensor (a constructor's result, ``.data`` of one,
    a parameter every caller gives a tensor: see ``analysis/values.py``; not
    ``x.data`` of an ``x`` they do not follow, which a caffe blob spells too), for
    the functions that warn with one: ``np.array`` and ``np.copy``, which read
    the tensor through ``__array__``; and the ufuncs (``isnan``, ``exp``,
    ``sqrt``, ``abs``, ``maximum``, ...) and the functions that wrap their
    result back into the argument's type (``argwhere``, ``argmax``, ``clip``,
    ``round``, ``cumsum``, ``reshape``, ``transpose``, ...), through its
    ``__array_wrap__``.  ``np.asarray``, ``np.where``, ``np.unique``, ``np.sort``,
    ``np.concatenate`` and ``np.stack`` take a tensor without a word, and are
    left alone; so is any argument whose kind is not evident.  Position: the call.

    ## Why is this bad?
    NumPy 2 (June 2024) asks more of the objects it converts than the tensors
    of torch 2.13 give.  ``np.array(t)`` warns ``DeprecationWarning: __array__
    implementation doesn't accept a copy keyword``, and ``np.isnan(t)`` warns
    ``DeprecationWarning: __array_wrap__ must accept context and return_scalar
    arguments (positionally) in the future``: a 2017 program that gave numpy
    its tensors (a batch sampler's ``np.isnan(self.label_tens[i])``) now warns
    at every call, and the warning announces an error to come.

    ## Example
    ```python
    empty = np.where(np.isnan(self.label_tens[i]))[0][0]
    probs = np.array(out.data)
    ```

    Use instead:
    ```python
    empty = np.where(np.isnan(self.label_tens[i].numpy()))[0][0]
    probs = np.array(out.data.numpy())
    ```

    ## Fix safety
    In 0.3 code, a 0-dim tensor that 0.3 gave as a Python number (``np.isnan(
    x.sum())``, an element of a 1-D tensor) gets ``.item()``: numpy is given the
    number it was given then (*safe*; the ``.item()`` TV003, TV107 and TV144 put
    there too).  0.3's ``loss.data[0]`` of a tensor of unknown rank is left to
    TV003: on 0.3 it was a number where the tensor was 1-D.
    Otherwise the fix reads the tensor with ``.numpy()`` first.  For ``np.array`` and
    ``np.copy`` it is *safe*: they copy what ``.numpy()`` gives, the array they
    made before (and a tensor on a GPU, or one that requires grad, raises as it
    did).  For the others it is *unsafe*: numpy wrapped their result back into
    a tensor (``np.isnan(t)`` was a tensor, since 0.3; ``np.argwhere(t)``, made
    by the tensor's own ``nonzero``, a transposed one) and now gives an array,
    which indexes, prints and combines with tensors otherwise.
    """
    qualname = ctx.resolve(node.func) or ""
    if not qualname.startswith("numpy.") or not node.args:
        return
    name = qualname[len("numpy."):]
    if name not in COPIED and name not in WRAPPED:
        return
    first = node.args[0]
    if isinstance(first, ast.Starred):
        return
    found = values(ctx).of(first)
    if found.kind != TENSOR or found.name == SPELLED:
        return  # (``blob.data`` of a caffe layer is an array: the spelling is not enough)
    if found.rank is None and isinstance(first, ast.Subscript) and \
            isinstance(first.value, ast.Attribute) and first.value.attr == "data" and \
            isinstance(first.slice, ast.Constant) and type(first.slice.value) is int:
        return  # (0.3's ``loss.data[0]`` of a tensor of unknown rank: a number if 1-D, TV003's)
    if number_in_03(found) and fixed_as_03(ctx):  # (0.3 gave numpy a Python number)
        call, safe = "item()", True
        advice = (", a Python number on PyTorch 0.3; add `.item()` (the number numpy was "
                  "given then)")
    else:
        call, safe = "numpy()", name in COPIED
        returned = "the same array" if safe else "an array where numpy gave a tensor back"
        advice = f"; read it with `.numpy()` first ({returned})"
    src = ctx.source
    edit = method_edit(src, first, call)
    yield Report(
        node,
        f"numpy 2 warns (DeprecationWarning) when `{src.quote(node.func)}` is given the "
        f"tensor `{src.quote(first)}`{advice}",
        Fix((edit,), SAFE if safe else UNSAFE) if edit is not None else None,
    )
