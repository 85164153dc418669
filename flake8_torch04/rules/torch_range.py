"""TV125: ``torch.range``, which includes its end point."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit, has_comment, needs_parens, shorten
from .shared.calls import keyword, plain_arguments


def _int_constant(node: Optional[ast.AST]) -> Optional[int]:
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _float_constant(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is float


_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)


def _operand(ctx: Context, node: ast.AST) -> str:
    """The text of ``node`` as the left operand of ``+``/``-``."""
    text = ctx.source.text(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        return text
    return f"({text})" if needs_parens(node, ast.BinOp, ctx.source) else text


def _end(ctx: Context, end: ast.AST, step: Optional[ast.AST]) -> str:
    """The text of ``arange``'s (exclusive) end for ``range``'s inclusive ``end``:
    ``n - 1`` -> ``n``, ``9`` -> ``10``, ``n`` -> ``n + 1``, ``b`` -> ``b + step``."""
    src = ctx.source
    step_int = 1 if step is None else _int_constant(step)
    if step_int is not None and step_int != 0:
        delta = 1 if step_int > 0 else -1
        end_int = _int_constant(end)
        if end_int is not None:
            return str(end_int + delta)
        if isinstance(end, ast.BinOp) and isinstance(end.op, (ast.Add, ast.Sub)):
            offset = _int_constant(end.right)
            if offset is not None and isinstance(end.right, ast.Constant):
                offset = (offset if isinstance(end.op, ast.Add) else -offset) + delta
                left = _operand(ctx, end.left)
                if offset == 0:
                    return left
                return f"{left} {'+' if offset > 0 else '-'} {abs(offset)}"
        return f"{_operand(ctx, end)} {'+' if delta > 0 else '-'} 1"
    step_text = src.text(step)
    if not isinstance(step, (ast.Name, ast.Attribute, ast.Constant, ast.Call, ast.Subscript)):
        step_text = f"({step_text})"
    return f"{_operand(ctx, end)} + {step_text}"


@rule("TV125")
def torch_range(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.range(start, end[, step])``.

    ## What it does
    Flags calls that resolve to ``torch.range`` through the file's imports,
    with a start and an end given by position.  Position: the call.  Python's
    ``range`` and a project's own ``range`` are left alone.

    ## Why is this bad?
    ``torch.range`` includes its end point, unlike Python's ``range`` and
    ``torch.arange``, and always returns the default floating dtype.  It is
    deprecated since PyTorch 0.4 and on 2.13 each call warns ``UserWarning:
    torch.range is deprecated and will be removed in a future release because
    its behavior is inconsistent with Python's range builtin.``

    ## Example
    ```python
    steps = torch.range(1, n)
    grid = torch.range(0, 1, 0.1)
    ```

    Use instead:
    ```python
    steps = torch.arange(1, n + 1, dtype=torch.float)
    grid = torch.arange(0, 1 + 0.1, 0.1)
    ```

    ## Fix safety
    The fix is *unsafe*.  It writes ``torch.arange(start, end + 1)`` for an
    integer step (``end - 1`` for a negative one; exact for integer end
    points) and ``end + step`` otherwise, which may add or drop the last
    element when the end points are floats (``torch.range(0, 0.3, 0.1)`` has 3
    elements, ``torch.arange(0, 0.4, 0.1)`` 4).  It adds ``dtype=torch.float``
    unless a float constant or a ``dtype=`` is given, since ``arange`` of
    integers gives ``int64`` where ``range`` gave the default dtype (which
    ``torch.float`` is, unless the program changed it).
    """
    if ctx.resolve(node.func) != "torch.range":
        return
    args = node.args
    if len(args) < 2 or len(args) > 3 or not plain_arguments(node):
        return
    if keyword(node, "step") is not None or keyword(node, "end") is not None:
        return
    src = ctx.source
    start, end = args[0], args[1]
    step = args[2] if len(args) == 3 else None
    new_end = _end(ctx, end, step)
    func = node.func
    edits = []
    fix = None
    # ``torch.`` as the file spells it (``th.``): the fix and the message name both
    torch_text = src.text(func)[:-len("range")] if isinstance(func, ast.Attribute) else ""
    dtype = None
    if keyword(node, "dtype") is None and not any(_float_constant(a) for a in args):
        dtype = f"dtype={torch_text or 'torch.'}float"
    if isinstance(func, ast.Attribute) and not has_comment(src.text(node)):
        line, col = src.end(func)
        edits.append(Edit((line, col - len("range")), (line, col), "arange"))
        edits.append(src.replace(end, new_end))
        if dtype is not None:
            edits.append(Edit(src.end(args[-1]), src.end(args[-1]), f", {dtype}"))
        fix = Fix(tuple(edits), UNSAFE)
    shown = shorten(", ".join(
        [src.text(start), new_end] + ([src.text(step)] if step is not None else [])), 40)
    if dtype is not None:
        shown += f", {dtype}"  # (``arange`` of integers gives int64, ``range`` gave floats)
    yield Report(
        node,
        f"`{src.quote(node.func, 20)}` is deprecated since PyTorch 0.4 (warns on 2.13) and "
        f"includes its end; use `{torch_text or 'torch.'}arange({shown})`",
        fix,
    )
