"""TV162: ``x.norm(2, 1).expand_as(x)``: 0.1's reductions kept their dimension."""
from __future__ import annotations

import ast
from typing import Iterator, Optional, Tuple

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit, has_comment
from .shared.calls import plain_arguments

#: reductions by a dimension: the position of ``dim`` among their arguments
#: (as methods; their ``torch.`` functions take the tensor first)
_DIM_AT = {"sum": 0, "mean": 0, "prod": 0, "std": 0, "var": 0, "max": 0, "min": 0,
           "norm": 1, "logsumexp": 0, "median": 0, "mode": 0}
#: those that give a pair (values, indices): read with ``[0]``
_PAIRS = frozenset(("max", "min", "median", "mode"))


@rule("TV162")
def reduced_expand(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``x.norm(2, d).expand_as(x)``: a reduction by a dimension expanded back to its source.

    ## What it does
    Flags ``R.expand_as(X)`` and ``R.expand(X.size())`` where ``R`` reduces
    ``X`` itself along a dimension without ``keepdim``: ``X.sum(d)``,
    ``X.mean(d)``, ``X.norm(p, d)``, ``X.std(d)``, ``X.var(d)``, ``X.prod(d)``,
    ``X.max(d)[0]`` (and ``min``, ``median``, ``mode``), ``X.logsumexp(d)``, or
    the ``torch.`` function of the same (resolved through imports); ``d`` given
    by position or as ``dim=``, anything but the constant ``0``, and nothing
    after it by position (``x.sum(-1, True)`` keeps the dimension).  Position:
    the reduction.

    ## Why is this bad?
    Until PyTorch 0.2 (August 2017), a reduction along a dimension kept it:
    ``x.norm(2, 1)`` of a ``(B, n)`` tensor was ``(B, 1)``, and expanding it back
    to ``x`` divided each row by its own norm (0.1.12 code normalizes latent
    codes onto the unit sphere so: ``x.div(x.norm(2, 1).expand_as(x))``).  Since
    0.2 the result is ``(B,)``, and ``expand_as`` aligns it to the *last*
    dimension: on 2.13 it raises ``RuntimeError: The expanded size of the
    tensor (16) must match the existing size (8) at non-singleton dimension
    1``, and where the sizes happen to agree (``B == n``) it silently divides
    ``x[i, j]`` by the norm of row ``j``.  Along dimension 0 both give the same
    result: that one is left alone.

    ## Example
    ```python
    z = z.div(z.norm(2, 1).expand_as(z))
    centered = x - x.mean(1).expand_as(x)
    ```

    Use instead:
    ```python
    z = z.div(z.norm(2, 1, keepdim=True).expand_as(z))
    centered = x - x.mean(1, keepdim=True).expand_as(x)
    ```

    ## Fix safety
    The fix adds ``keepdim=True`` to the reduction: the result is 0.1's,
    which the code was written for.  It is *unsafe*: where the sizes agreed
    the code ran, and the fix changes the numbers it printed (to the ones it
    meant).
    """
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in ("expand_as", "expand") \
            or node.keywords:
        return
    if func.attr == "expand_as":
        if len(node.args) != 1:
            return
        target = node.args[0]
    else:
        size = node.args[0] if len(node.args) == 1 else None
        if not (isinstance(size, ast.Call) and isinstance(size.func, ast.Attribute)
                and size.func.attr == "size" and not size.args and not size.keywords):
            return
        target = size.func.value
    reduction = _reduction(ctx, func.value)
    if reduction is None:
        return
    call, source, dim = reduction
    if ast.dump(source) != ast.dump(target) or not plain_arguments(call):
        return
    src = ctx.source
    text = src.text(call)
    fix = None
    if not has_comment(text) and text.endswith(")"):
        end = src.end(call)
        insert = ", keepdim=True" if call.args or call.keywords else "keepdim=True"
        at = (end[0], end[1] - 1)
        fix = Fix((Edit(at, at, insert),), UNSAFE)
    yield Report(
        call,
        f"`{src.quote(call, 30)}` drops dimension `{src.quote(dim, 10)}` since PyTorch 0.2 "
        f"(0.1 kept it), so expanding it back to `{src.quote(target, 20)}` raises or "
        f"divides by the wrong rows; add `keepdim=True`",
        fix,
    )


def _reduction(ctx: Context, node: ast.AST) -> Optional[Tuple[ast.Call, ast.AST, ast.AST]]:
    """``(the reduction call, what it reduces, its dimension)`` for ``X.sum(d)``,
    ``torch.sum(X, d)``, ``X.max(d)[0]``... without ``keepdim``, along a dimension
    other than the constant 0; else ``None``."""
    pair = False
    if isinstance(node, ast.Subscript):
        index = node.slice
        if not (isinstance(index, ast.Constant) and index.value == 0):
            return None
        node, pair = node.value, True
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    qualname = ctx.resolve(func)
    if qualname is not None and qualname.startswith("torch.") and qualname.count(".") == 1:
        name = qualname[6:]
        if name not in _DIM_AT or not node.args:
            return None
        source, args = node.args[0], node.args[1:]
    elif qualname is None and isinstance(func, ast.Attribute) and func.attr in _DIM_AT:
        name, source, args = func.attr, func.value, node.args
    else:
        return None
    if (name in _PAIRS) != pair:
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    if "keepdim" in keywords or None in keywords:
        return None
    at = _DIM_AT[name]
    if len(args) > at + 1:
        return None  # (``x.sum(-1, True)``: ``keepdim`` by position, or ``std``'s ``unbiased``)
    dim = keywords.get("dim", args[at] if len(args) > at else None)
    if dim is None or isinstance(dim, ast.Constant) and dim.value == 0:
        return None
    if name in ("max", "min") and len(args) > at and not _plain_dim(args[at]):
        return None  # (``x.max(y)``: the elementwise maximum)
    return node, source, dim


def _plain_dim(node: ast.AST) -> bool:
    """An argument that reads as a dimension: a number, a name or an attribute."""
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, (ast.Name, ast.Attribute)) or isinstance(
        node, ast.Constant) and type(node.value) is int
