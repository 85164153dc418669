"""TV159: ``c and t or d`` with ``t`` a tensor: 0.1's conditional, a RuntimeError since."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.nodes import is_test
from ..analysis.registry import rule
from ..analysis.values import values
from ..source.text import has_comment, needs_parens


def _parenthesized(src, node: ast.AST) -> bool:
    """Whether brackets of the source hold ``node`` alone (``2 * (c and t or d)``)."""
    (line, col), (end_line, end_col) = src.start(node), src.end(node)
    before = src.lines[line - 1][:col].rstrip()
    after = src.lines[end_line - 1][end_col:].lstrip()
    return before.endswith("(") and after.startswith(")")


@rule("TV159")
def tensor_truth(ctx: Context, node: ast.BoolOp) -> Iterator[Report]:
    """Flags ``c and t or d`` where ``t`` is evidently a tensor.

    ## What it does
    Flags the conditional written ``c and t or d`` (Python's before ``t if c else
    d``), where ``c`` is a test (a comparison, ``not``, ``isinstance``, ``hasattr``)
    and the value facts make ``t`` a tensor not known to be 0-dim:
    ``isinstance(hidden, tuple) and hidden[0] or hidden`` in a 2017 decoder.
    Position: ``t``.

    ## Why is this bad?
    In PyTorch 0.1 a ``Variable`` was always true, so the expression gave ``t``
    whenever ``c`` held.  Since 0.2 the truth of a tensor is the truth of its one
    element: ``t or d`` raises ``RuntimeError: Boolean value of Tensor with more
    than one value is ambiguous`` for a tensor of more elements (and takes ``d``
    for a one-element zero).

    ## Example
    ```python
    output = isinstance(hidden, tuple) and hidden[0] or hidden
    ```

    Use instead:
    ```python
    output = hidden[0] if isinstance(hidden, tuple) else hidden
    ```

    ## Fix safety
    The fix writes ``t if c else d``: 0.1's result.  It is *unsafe*: code
    written for 0.2 and later may have meant a one-element ``t``'s truth.
    """
    if not isinstance(node.op, ast.Or) or len(node.values) != 2:
        return
    first, other = node.values
    if not (isinstance(first, ast.BoolOp) and isinstance(first.op, ast.And)
            and len(first.values) == 2 and is_test(first.values[0])):
        return
    test, chosen = first.values
    value = values(ctx).of(chosen)
    if not value.tensor or value.rank == 0:
        return  # (a 0-dim tensor's truth is its value's, as a Variable's was not)
    src = ctx.source
    parts = [src.text(chosen), src.text(test), src.text(other)]
    whole = src.text(node)
    if "\n" in whole or has_comment(whole):  # (a comment between the parts would go)
        fix = None
    else:
        body = f"({parts[0]})" if isinstance(chosen, (ast.IfExp, ast.Lambda)) else parts[0]
        rest = f"({parts[2]})" if isinstance(other, (ast.IfExp, ast.Lambda)) else parts[2]
        new = f"{body} if {parts[1]} else {rest}"
        if needs_parens(node, ctx.parent, src) and not _parenthesized(src, node):
            new = f"({new})"  # (an operand of something else)
        fix = Fix((src.replace(node, new),), UNSAFE)
    yield Report(
        chosen,
        f"`{src.quote(chosen, 30)}` is a tensor: `c and t or d` gave it on PyTorch 0.1 "
        f"(a Variable was always true), and takes its truth since 0.2 (RuntimeError for "
        f"more than one element); use `t if c else d`",
        fix,
    )
