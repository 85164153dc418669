"""TV115: ``.view(...)`` of an element-wise result of a transposed tensor."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.value_tables import CASTS, COMPARISONS
from ..analysis.values import NDARRAY, NUMBER, values
from .shared.calls import rename

#: methods and ``torch`` functions that move dimensions: their result is not contiguous
_MOVES = frozenset(("transpose", "permute", "t"))
#: element-wise methods whose result has the strides of their receiver on PyTorch
#: >= 0.4 (checked on 2.13); in-place methods return the receiver itself, which 0.3
#: did not make contiguous either, and ``softmax`` still returns a contiguous tensor
_ELEMENTWISE = frozenset((
    "mul", "add", "sub", "div", "pow", "clamp", "exp", "log", "sigmoid", "tanh", "relu",
    "abs", "neg", "sqrt", "sign", "floor", "ceil", "round", "reciprocal", "rsqrt", "sin",
    "cos", "log1p", "expm1", "addcmul", "addcdiv", "lerp", "fmod", "remainder",
))
_FUNCTIONS = frozenset(
    [f"torch.{f}" for f in _ELEMENTWISE]
    + [f"torch.nn.functional.{f}" for f in (
        "relu", "relu6", "elu", "selu", "leaky_relu", "dropout", "tanh", "sigmoid",
        "softplus", "hardtanh", "threshold")]
)
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod)
#: comparisons (the methods are the value facts' ``COMPARISONS``) keep the strides
#: too; so do casts (the value facts' ``CASTS``) since 0.4: on 0.3 a cast to another
#: type copied into a contiguous tensor, one to the same type returned the receiver
#: (so only a cast of an element-wise result, contiguous on 0.3 either way, is
#: followed); ``clone`` copied into a contiguous tensor on 0.3 and keeps the strides now
_COMPARE_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.Gt, ast.LtE, ast.GtE)
#: how many assignments a value is followed through
_DEPTH = 8


def _moved(ctx: Context, node: ast.AST, depth: int = 0) -> bool:
    """``node`` is a ``transpose``/``permute``/``.t()`` result (through names)."""
    if isinstance(node, ast.Call):
        func = node.func
        name = ctx.resolve(func)
        if name in ("torch.transpose", "torch.t", "torch.permute"):
            return True
        return name is None and isinstance(func, ast.Attribute) and func.attr in _MOVES and \
            not (func.attr == "t" and node.args)
    return _through_names(ctx, node, depth, _moved)


def _through_names(ctx: Context, node: ast.AST, depth: int, test) -> bool:
    if not isinstance(node, ast.Name) or depth >= _DEPTH:
        return False
    defs = ctx.flow().reaching(node)
    return bool(defs) and all(d.kind == "assign" and d.value is not None and
                              test(ctx, d.value, depth + 1) for d in defs)


def _strided(ctx: Context, node: ast.AST, depth: int = 0) -> bool:
    """``node`` is computed element-wise from a moved tensor, and its first tensor
    operand is that tensor, so its result keeps the moved strides."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        left = node.left
        if values(ctx).of(left).kind == NUMBER:
            left = node.right
        return _moved_or_strided(ctx, left, depth)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _moved_or_strided(ctx, node.operand, depth)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
            isinstance(node.ops[0], _COMPARE_OPS):
        left = node.left
        if values(ctx).of(left).kind == NUMBER:
            left = node.comparators[0]
        return _moved_or_strided(ctx, left, depth)
    if isinstance(node, ast.Subscript):  # (``correct[:k]``: a slice keeps the strides)
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        return all(isinstance(p, ast.Slice) for p in parts) and _strided(ctx, node.value, depth)
    if isinstance(node, ast.Call):
        func = node.func
        name = ctx.resolve(func)
        if name in _FUNCTIONS:
            return bool(node.args) and _moved_or_strided(ctx, node.args[0], depth)
        if name is not None or not isinstance(func, ast.Attribute):
            return False
        if func.attr in _ELEMENTWISE or func.attr in COMPARISONS or func.attr == "clone":
            return _moved_or_strided(ctx, func.value, depth)
        return func.attr in CASTS and not node.args and _strided(ctx, func.value, depth)
    return _through_names(ctx, node, depth, _strided)


def _moved_or_strided(ctx: Context, node: ast.AST, depth: int) -> bool:
    return _moved(ctx, node, depth) or _strided(ctx, node, depth)


def _merges(ctx: Context, view: ast.Call, rank: Optional[int]) -> bool:
    """The ``view`` evidently merges dimensions: it flattens (``view(-1)``,
    ``view(n)``), or gives fewer dimensions than its receiver has.  (A view that
    only splits dimensions works on a transposed tensor.)"""
    args = view.args
    if any(isinstance(a, ast.Starred) for a in args):
        return False
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    if len(args) == 1:
        return values(ctx).of(args[0]).kind == NUMBER
    return rank is not None and len(args) < rank


def _source_of(ctx: Context, node: ast.AST) -> Optional[str]:
    return ctx.source.quote(node, 30)


@rule("TV115")
def view_after_transpose(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``.view(...)`` of an element-wise result of a transposed tensor.

    ## What it does
    Flags ``E.view(...)`` where ``E`` is computed element-wise (``+``, ``*``,
    ``-x``, ``.mul()``, ``.sigmoid()``, ``torch.tanh``, ``F.relu``,
    ``F.dropout``, a comparison ``.eq()``/``==``..., ``.clone()``) from the
    result of ``.transpose()``, ``.permute()`` or ``.t()``, that tensor being
    the first tensor operand, or is a slice (``correct[:k]``) or a cast
    (``.float()``) of such a result, and the view evidently
    merges dimensions (``view(-1)``, or fewer dimensions than ``E`` evidently
    has: a view that only splits dimensions still works); ``E`` and its operands
    are followed through the assignments of the function.  Position: the
    ``view`` call.  A ``.contiguous()`` in between, a ``view`` of the transposed
    tensor itself (which failed on 0.3 too), ``F.softmax`` (still contiguous)
    and in-place methods are left alone.

    ## Why is this bad?
    PyTorch 0.3's element-wise kernels returned contiguous tensors.  Since 0.4
    the result's strides follow its first operand's, so the result of
    ``x.t() * 2`` is as non-contiguous as ``x.t()`` (so are a comparison's,
    a cast's and a clone's, which 0.3 made contiguous too), and a ``view`` that merges
    its moved dimensions stops the program on PyTorch 2.13: ``RuntimeError:
    view size is not compatible with input tensor's size and stride (at least
    one dimension spans across two contiguous subspaces). Use .reshape(...)
    instead.``  (A ``view`` that only splits dimensions still works; ``reshape``
    gives the same numbers in both cases.)

    The ImageNet example's ``accuracy`` helper is the common case:
    ``correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))`` then
    ``correct[:k].view(-1)`` stops for any ``k`` above 1.

    ## Example
    ```python
    scores = torch.tanh(h.transpose(0, 1) + bias)
    flat = scores.view(-1, hidden)
    ```

    Use instead:
    ```python
    scores = torch.tanh(h.transpose(0, 1) + bias)
    flat = scores.reshape(-1, hidden)
    ```

    ## Fix safety
    The fix writes ``reshape`` for ``view``, and is *unsafe*: ``reshape`` copies
    where ``view`` cannot, so an in-place write through the result (``flat[0]
    = 0``, ``flat.add_(1)``) no longer reaches ``scores``.  The numbers read
    are the same.
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "view" and node.args):
        return
    if ctx.resolve(func) is not None or len(node.args) == 1 and \
            ctx.resolve(node.args[0]) is not None:
        return  # (a module's ``view``; ``x.view(torch.int32)``: another dtype)
    receiver = values(ctx).of(func.value)
    if receiver.kind == NDARRAY or not _merges(ctx, node, receiver.rank) or \
            not _strided(ctx, func.value):
        return
    made = rename(ctx, func, "reshape", "")
    fix = Fix((made[0],), UNSAFE) if made is not None else None
    yield Report(
        node,
        f"`{_source_of(ctx, func.value)}` is element-wise from a transposed tensor and "
        "keeps its strides since PyTorch 0.4: `view` raises RuntimeError (view size is "
        "not compatible with input tensor's size and stride); use `.reshape(...)`",
        fix,
    )
