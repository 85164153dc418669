"""TV137: ``1 - mask`` where the mask is a comparison's result, a bool tensor since 1.2."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import value_of
from ..source.text import has_comment

#: operands that need no parentheses after ``~``
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


@rule("TV137")
def bool_subtraction(ctx: Context, node: ast.BinOp) -> Iterator[Report]:
    """Flags ``1 - mask`` where ``mask`` is evidently the result of a comparison.

    ## What it does
    Flags ``1 - m`` (also ``1.0 - m``) where ``m`` is evidently a tensor of
    booleans: a comparison of tensors (``a == b``, ``x > 0``, ``x.eq(0)``,
    ``x.ne(y)``, ``torch.eq(a, b)``), followed through assignments (see "How
    values are followed" in docs/how-it-works.md).  Position: the subtraction.
    A mask made with ``.byte()`` or ``.float()``, and a number, are left alone.

    ## Why is this bad?
    In PyTorch 0.3 a comparison gave a ``ByteTensor`` of 0 and 1, and ``1 - mask``
    was the usual way to invert it (``non_final = 1 - done.eq(1)``,
    ``loss * (1 - target.eq(PAD))``).  Since PyTorch 1.2 comparisons give
    ``torch.bool`` tensors, and on 2.13 the subtraction raises ``RuntimeError:
    Subtraction, the `-` operator, with a bool tensor is not supported. If you
    are trying to invert a mask, use the `~` or `logical_not()` operator
    instead.``

    ## Example
    ```python
    keep = 1 - words.eq(PAD)
    ```

    Use instead:
    ```python
    keep = ~words.eq(PAD)
    ```

    ## Fix safety
    The fix writes ``~mask``: *unsafe*, because the result is a bool tensor where
    0.3 made a ``ByteTensor``.  As a mask, a factor of a float tensor, in a
    ``.sum()`` or after ``.float()`` it gives the same numbers; but two bool
    tensors add as a logical or (``(~a) + (~b)`` is ``True``, not 2): where the
    result is counted by adding, write ``(~mask).long()``.
    """
    left = node.left
    if not isinstance(node.op, ast.Sub) or not isinstance(left, ast.Constant) \
            or type(left.value) not in (int, float) or left.value != 1:
        return
    mask = value_of(ctx, node.right)
    if not mask.tensor or mask.dtype != "bool":
        return
    src = ctx.source
    spelled = src.text(node.right)
    new = f"~{spelled}" if isinstance(node.right, _ATOMS) else f"~({spelled})"
    fix = None
    if "\n" not in src.text(node) and not has_comment(src.text(node)):
        fix = Fix((src.replace(node, new),), UNSAFE)
    yield Report(
        node,
        f"`{src.quote(node, 40)}` subtracts from a bool tensor (a comparison's result: a "
        f"ByteTensor on PyTorch 0.3), a RuntimeError since 1.2; use `{new}` to invert the "
        f"mask (`({new}).long()` where it is added up)",
        fix,
    )
