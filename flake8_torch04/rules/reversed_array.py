"""TV170: a numpy array reversed by a slice (``a[::-1]``) given where 0.3 read a sequence."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.reaching import unpack_path
from ..analysis.registry import rule
from ..analysis.values import NDARRAY, values
from .shared.calls import method_edit

_PACK = frozenset(("torch.nn.utils.rnn.pack_padded_sequence",))


@rule("TV170")
def reversed_array(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``pack_padded_sequence(x, np.sort(lengths)[::-1])``: a reversed numpy array.

    ## What it does
    Flags the ``lengths`` of ``nn.utils.rnn.pack_padded_sequence`` where it is
    evidently a numpy array sliced with a negative step (``a[::-1]``,
    ``np.sort(x)[::-1]``), directly or through a name every binding of which that
    reaches the call is one.  Position: the argument.

    ## Why is this bad?
    Such a slice is a view with a negative stride.  PyTorch 0.3's
    ``pack_padded_sequence`` read the lengths as a Python sequence, element by
    element; today it converts them with ``torch.as_tensor``, and on 2.13 a
    negative stride raises
    ``ValueError: At least one stride in the given numpy array is negative, and
    tensors with negative strides are not currently supported. (You can probably
    work around this by making a copy of your array  with array.copy().)``.
    2017's text encoders sorted their batch by length and packed it with
    ``np.sort(lengths)[::-1]``.

    ## Example
    ```python
    lengths, order = np.sort(lengths)[::-1], np.argsort(-lengths)
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths)
    ```

    Use instead:
    ```python
    lengths, order = np.sort(lengths)[::-1], np.argsort(-lengths)
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths.copy())
    ```

    ## Fix safety
    ``.copy()`` of the argument is *safe*: the same values in the same order, in
    an array of positive strides, which is what the call reads.
    """
    name = ctx.resolve(node.func)
    if name in _PACK:
        given = node.args[1] if len(node.args) > 1 else next(
            (kw.value for kw in node.keywords if kw.arg == "lengths"), None)
    else:
        return
    if given is None or not _reversed(ctx, given):
        return
    src = ctx.source
    edit = method_edit(src, given, "copy()")
    yield Report(
        given,
        f"`{src.quote(given, 30)}` is a numpy array reversed by a slice (a negative stride): "
        f"PyTorch 0.3 read it as a sequence, 2.13 raises ValueError; use "
        f"`{src.quote(given, 30)}.copy()`",
        Fix((edit,), SAFE) if edit is not None else None,
    )


def _reversed(ctx: Context, node: ast.AST, depth: int = 0) -> bool:
    """``node`` is a numpy array sliced with a negative step, or a name every
    reaching binding of which is one (unpacked from a tuple display too)."""
    if isinstance(node, ast.Subscript):
        step = node.slice.step if isinstance(node.slice, ast.Slice) else None
        return _negative(step) and values(ctx).of(node.value).kind == NDARRAY
    if not isinstance(node, ast.Name) or depth:
        return False
    defs = ctx.flow().reaching(node)
    if not defs:
        return False
    for d in defs:
        value = _bound(d)
        if value is None or not _reversed(ctx, value, depth + 1):
            return False
    return True


def _bound(d) -> Optional[ast.AST]:
    """What the binding ``d`` assigns its name: the value, or the item of a tuple
    display unpacked (``lengths, order = np.sort(x)[::-1], np.argsort(-x)``)."""
    if d.kind == "assign":
        return d.value
    if d.kind == "unpack" and isinstance(d.value, ast.Tuple):
        path = unpack_path(d)
        if path is not None and len(path) == 1 and path[0] < len(d.value.elts):
            return d.value.elts[path[0]]
    return None


def _negative(step: Optional[ast.AST]) -> bool:
    return isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and \
        isinstance(step.operand, ast.Constant) and type(step.operand.value) is int \
        and step.operand.value > 0
