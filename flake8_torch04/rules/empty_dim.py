"""TV142: ``t.dim() == 0`` as a test for an empty result, never true since PyTorch 0.4."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit

#: calls whose result is empty when nothing matches
_EMPTY_METHODS = frozenset(("nonzero", "masked_select"))
_EMPTY_FUNCTIONS = frozenset(("torch.nonzero", "torch.masked_select", "torch.argwhere"))
#: methods that keep an empty result empty
_KEEP_EMPTY = frozenset((
    "view", "reshape", "squeeze", "unsqueeze", "long", "float", "double", "int", "byte",
    "cpu", "cuda", "contiguous", "clone", "t", "detach", "view_as", "type_as", "sort",
    "index_select",
))
#: methods and operators that make a mask
_MASK_METHODS = frozenset(("gt", "lt", "ge", "le", "eq", "ne", "byte", "bool", "__and__",
                           "__or__", "logical_and", "logical_or", "logical_not", "isnan"))
_MASK_FUNCTIONS = frozenset("torch." + m for m in _MASK_METHODS)
_COMPARISONS = {ast.Eq: 0, ast.NotEq: 0, ast.Gt: 0, ast.LtE: 0, ast.Lt: 1, ast.GtE: 1}
_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)
_MAX_DEPTH = 16


@rule("TV142")
def empty_dim(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``t.dim() == 0`` testing for an empty ``nonzero()``/``masked_select()`` result.

    ## What it does
    Flags ``t.dim() == 0`` (also ``!= 0``, ``> 0``, ``< 1``, ``not t.dim()``
    and ``t.dim()`` itself as the test of an ``if``/``while``/``assert``/
    conditional expression or a part of ``and``/``or``) where ``t`` is, in
    the same function, the result of ``nonzero()``, ``masked_select()`` or
    indexing with a mask (``x[x > 0]``, ``scores[c_mask]`` with ``c_mask =
    conf.gt(thresh)``), possibly reshaped (``.view(-1, 5)``, ``.squeeze()``,
    ``[:, 0]``).  ``dim()`` of anything else (a scalar test of a value that
    may be 0-dim) is left alone.

    ## Why is this bad?
    Under PyTorch 0.3 an empty result had no dimensions, so ``t.dim() == 0``
    meant "nothing matched".  Since 0.4 empty results keep their shape,
    ``(0,)`` for ``masked_select`` and mask indexing and ``(0, n)`` for
    ``nonzero``: the test never fires, and the code after it runs on empty
    tensors (old copies of ssd.pytorch's detection layer and evaluation call
    ``nms`` on no boxes instead of skipping the class).

    ## Example
    ```python
    scores = conf_scores[cl][c_mask]
    if scores.dim() == 0:
        continue
    ```

    Use instead:
    ```python
    scores = conf_scores[cl][c_mask]
    if scores.numel() == 0:
        continue
    ```

    ## Fix safety
    *safe*: ``numel()`` is ``0`` exactly for the empty results that had
    ``dim() == 0`` under 0.3, and a non-empty result has a non-zero ``dim()``
    and ``numel()`` alike.
    """
    func = node.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "dim"
        and not node.args
        and not node.keywords
    ):
        return
    parent = ctx.parent
    report_at: Optional[ast.AST] = None
    if isinstance(parent, ast.Compare):
        if (
            len(parent.ops) == 1
            and parent.left is node
            and _is_int(parent.comparators[0], _COMPARISONS.get(type(parent.ops[0])))
        ) or (
            len(parent.ops) == 1
            and parent.comparators[0] is node
            and isinstance(parent.ops[0], (ast.Eq, ast.NotEq))
            and _is_int(parent.left, 0)
        ):
            report_at = parent
    elif isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        report_at = parent
    elif isinstance(parent, _TESTS) and parent.test is node:
        report_at = node
    elif isinstance(parent, ast.BoolOp):
        report_at = node
    if report_at is None or not empty_result(ctx, func.value):
        return
    src = ctx.source
    end = src.end(func)
    start = (end[0], end[1] - len("dim"))
    if src.between(start, end) != "dim":
        return
    old = src.quote(report_at, 40)
    new = src.text(report_at)
    if "\n" in new:
        new = old
    else:
        offset = start[1] - src.start(report_at)[1]
        new = new[:offset] + "numel" + new[offset + 3:] if start[0] == report_at.lineno else old
    yield Report(
        report_at,
        f"`{old}` never detects an empty result since PyTorch 0.4 (it has shape (0,) "
        f"or (0, n)); use `{new[:45]}`",
        Fix((Edit(start, end, "numel"),), SAFE),
    )


def _is_int(node: ast.AST, value: Optional[int]) -> bool:
    return (value is not None and isinstance(node, ast.Constant)
            and type(node.value) is int and node.value == value)


def empty_result(ctx: Context, node: ast.AST, depth: int = 0) -> bool:
    """Whether ``node`` is (in this function) a result that may be empty:
    ``nonzero()``, ``masked_select()``, indexing by a mask, reshaped."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, ast.Call):
        if any(kw.arg == "as_tuple" for kw in node.keywords):
            return False  # a tuple of index tensors (modern code)
        func = node.func
        name = ctx.resolve(func)
        if name is not None:
            return name in _EMPTY_FUNCTIONS
        if isinstance(func, ast.Attribute):
            if func.attr in _EMPTY_METHODS:
                return True
            if func.attr in _KEEP_EMPTY:
                return empty_result(ctx, func.value, depth + 1)
        return False
    if isinstance(node, ast.Subscript):
        index = node.slice
        if _is_mask(ctx, index, depth + 1):
            return True
        return empty_result(ctx, node.value, depth + 1)
    if isinstance(node, ast.Name):
        return _bound_to(ctx, node, empty_result, depth)
    return False


def _bound_to(ctx: Context, node: ast.Name, test, depth: int) -> bool:
    """Whether every binding of ``node`` that reaches it passes ``test``; a
    binding that is being asked about already (a loop's ``keep = keep[1:]``)
    counts as passing: the others decide."""
    defs = ctx.flow().reaching(node)
    if not defs:
        return False
    pending = ctx.memo.setdefault("TV142", set())
    own = []
    for d in defs:
        if id(d) in pending:
            continue
        if getattr(d, "kind", None) != "assign" or d.value is None:
            return False
        own.append(d)
    if not own:
        return True
    for d in own:
        pending.add(id(d))
    try:
        return all(test(ctx, d.value, depth + 1) for d in own)
    finally:
        for d in own:
            pending.discard(id(d))


def _is_mask(ctx: Context, node: ast.AST, depth: int) -> bool:
    """A boolean mask: a comparison, ``x.gt(...)``, ``m1 & m2``, or a name bound to one."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, ast.Compare):
        return len(node.ops) == 1 and not isinstance(
            node.ops[0], (ast.In, ast.NotIn, ast.Is, ast.IsNot))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        return _is_mask(ctx, node.left, depth + 1) or _is_mask(ctx, node.right, depth + 1)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _is_mask(ctx, node.operand, depth + 1)
    if isinstance(node, ast.Call):
        func = node.func
        name = ctx.resolve(func)
        if name is not None:
            return name in _MASK_FUNCTIONS
        if isinstance(func, ast.Attribute):
            if func.attr in _MASK_METHODS:
                return True
            if func.attr in ("expand", "expand_as", "unsqueeze", "view", "squeeze", "cuda"):
                return _is_mask(ctx, func.value, depth + 1)
        return False
    if isinstance(node, ast.Name):
        return _bound_to(ctx, node, _is_mask, depth)
    return False
