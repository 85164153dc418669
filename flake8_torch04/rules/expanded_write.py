"""TV150: a write into a tensor made by ``expand``: 0.3 wrote the shared elements."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import NUMBER, TENSOR, values
from ..source.text import Edit

_EXPANDS = ("expand", "expand_as")
#: in-place methods that write through the view, and what 2.13 does then
_RAISE = ("RuntimeError: unsupported operation: more than one element of the written-to "
          "tensor refers to a single memory location")
_METHODS = {
    **dict.fromkeys((
        "add_", "sub_", "mul_", "div_", "pow_", "clamp_", "copy_", "neg_", "abs_", "exp_",
        "log_", "sqrt_", "sign_", "addcmul_", "addcdiv_", "uniform_", "normal_",
        "bernoulli_", "random_", "floor_", "ceil_", "round_", "sigmoid_", "tanh_", "relu_",
    ), _RAISE),
    **{m: f"UserWarning: Use of {m} on expanded tensors is deprecated" for m in (
        "masked_fill_", "index_fill_", "index_put_", "masked_scatter_", "index_copy_",
        "index_add_", "scatter_", "scatter_add_")},
}


def _expanded(ctx: Context, name: ast.AST) -> Optional[List[ast.Call]]:
    """The ``X.expand(...)`` calls the bindings of ``name`` that reach here are,
    where every one is (``m = w.norm(...).expand(s)``, also on each branch of an
    ``if``/``elif``), or ``None``."""
    if not isinstance(name, ast.Name):
        return None
    defs = ctx.flow().reaching(name)
    if not defs or any(d.kind != "assign" for d in defs):
        return None
    found = []
    for d in defs:
        value = d.value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr in _EXPANDS and value.args
                and ctx.resolve(value.func) is None):
            return None
        if values(ctx).of(value.func.value).kind not in (None, TENSOR):
            return None
        found.append(value)
    return sorted(found, key=lambda call: (call.lineno, call.col_offset))


def _single_element(ctx: Context, index: ast.AST) -> bool:
    """``m[i, j]``: every index a number (one element written: allowed)."""
    parts: List[ast.AST] = index.elts if isinstance(index, ast.Tuple) else [index]
    facts = values(ctx)
    return all(not isinstance(p, (ast.Slice, ast.Starred)) and facts.of(p).kind == NUMBER
               for p in parts)


@rule("TV150")
def expanded_write(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags writes into a tensor made by ``expand``/``expand_as``.

    ## What it does
    Flags ``m[mask] = v`` (a mask, a slice or a tensor index: not ``m[i, j]``
    with a number for each dimension) and in-place methods that write
    through a view (``m.masked_fill_(...)``, ``m.add_(...)``,
    ``m.copy_(...)``...) where every assignment of ``m`` that reaches the
    write binds it to ``X.expand(...)`` or ``X.expand_as(...)``:
    ``m = w.norm(1, 3, keepdim=True).div(n).expand(s)`` then ``m[w.lt(-1)] =
    0`` (XNOR-Net's gradient, copied into many binarized networks; one such
    assignment on each branch of an ``if``/``elif`` counts).  Not flagged: a
    name also bound otherwise, ``expand(...).clone()``, ``fill_``
    and ``zero_`` (allowed), an ``expand`` of a value that is evidently no
    tensor.  Position: the write.

    ## Why is this bad?
    An expanded tensor's elements share memory: a row of ``expand`` is the
    same element repeated.  PyTorch 0.3 wrote through it, into the shared
    element (a write at one position changed its whole row).  PyTorch 2.13
    refuses most such writes: ``m[mask] = 0`` warns ``UserWarning: Use of
    index_put_ on expanded tensors is deprecated. Please clone() the tensor
    before performing this operation.`` (``masked_fill_``, ``index_fill_``
    likewise), and ``add_``, ``mul_``, ``copy_``, a slice assignment raise
    ``RuntimeError: unsupported operation: more than one element of the
    written-to tensor refers to a single memory location. Please clone() the
    tensor before performing the operation.``

    ## Example
    ```python
    m = weight.norm(1, 3, keepdim=True).div(n).expand(s)
    m[weight.lt(-1.0)] = 0
    ```

    Use instead:
    ```python
    m = weight.norm(1, 3, keepdim=True).div(n).expand(s).clone()
    m[weight.lt(-1.0)] = 0
    ```

    ## Fix safety
    ``.clone()`` after the ``expand`` gives each element its own memory, which
    is what such code nearly always means (XNOR-Net masks element by
    element); 0.3 instead changed the shared element, a whole row at once.
    The fix is *unsafe*: where the mask picks some elements of a row, the
    numbers differ from 0.3's (in the usual case, weights clamped to
    ``[-1, 1]`` before, the mask is empty and they agree).
    """
    if isinstance(node, ast.Subscript):
        if not isinstance(node.ctx, ast.Store):
            return
        target, what = node.value, "an indexed assignment into it " + (
            "raises " + _RAISE if isinstance(node.slice, ast.Slice) else
            "warns UserWarning: Use of index_put_ on expanded tensors is deprecated")
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in _METHODS and ctx.resolve(node.func) is None:
        target, what = node.func.value, f"`{node.func.attr}` on it " + (
            "raises " if _METHODS[node.func.attr] is _RAISE else "warns ") + \
            _METHODS[node.func.attr]
    else:
        return
    expands = _expanded(ctx, target)
    if expands is None or isinstance(node, ast.Subscript) and _single_element(ctx, node.slice):
        return  # (the index's value facts asked only of a write into an expanded view)
    src = ctx.source
    first = expands[0]
    yield Report(
        node,
        f"`{src.quote(target, 20)}` is an expanded view (`{src.quote(first, 40)}`, line "
        f"{first.lineno}): PyTorch 0.3 wrote through it into the shared elements; on 2.13 "
        f"{what}; add `.clone()` after the `expand` where each element is meant",
        Fix(tuple(Edit(src.end(e), src.end(e), ".clone()") for e in expands), UNSAFE),
    )
