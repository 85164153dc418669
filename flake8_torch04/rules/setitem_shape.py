"""TV148: a tensor of higher rank written into a slice (``T[idx] = V``, ``T[idx].copy_(V)``),
which 0.3 copied element by element and which is broadcast to the target since 0.4."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.era import legacy
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import Value, values
from ..source.text import Edit, needs_parens, one_line, shorten
from .shared.calls import method_edit


def _ranked(value: Value) -> bool:
    return value.tensor and value.rank is not None


def _column(target: Value, value: Value) -> bool:
    """A ``(N, 1)`` column written into a 1-D target: broadcasting takes the ``N``
    for a leading dimension, which must be 1 (or be dropped), so the write fails
    wherever the target holds more than one element (0.3 wrote the ``N`` elements)."""
    return target.rank == 1 and value.rank == 2 and value.last == 1


def _flattened(ctx: Context, node: ast.AST) -> Optional[Edit]:
    """``node.view(-1)``: the column's elements in their order, a view that always
    exists for a ``(N, 1)`` tensor (a dimension of size 1 has any stride)."""
    return method_edit(ctx.source, node, "view(-1)")


def _with_method(ctx: Context, node: ast.AST, method: str) -> str:
    src = ctx.source
    text = one_line(src.text(node))
    return f"({text}).{method}" if needs_parens(node, ast.Attribute, src) else f"{text}.{method}"


@rule("TV148")
def setitem_shape(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags a tensor of higher rank written into a slice of a tensor.

    ## What it does
    In 0.3 code (the file or its project shows 0.3 idioms, or the configuration says so:
    see ``analysis/era.py``), flags ``T[idx] = V`` and ``T[idx].copy_(V)`` (any
    receiver of ``copy_``) where the value facts make both ``T[idx]`` and ``V``
    tensors of known rank (see "How values are followed" in docs/how-it-works.md;
    ``T[idx]`` has ``T``'s rank less its integer indices), ``V``'s rank is the larger
    and, for an assignment, ``V`` is evidently a ``(N, 1)`` column written into a 1-D
    target (``samples[:, i] = torch.multinomial(probs, 1)``: one sample a row).
    Left alone: a value or target of unknown rank, equal ranks, an assignment of
    any other value of higher rank (the value facts know no leading sizes, and a
    ``(1, N)`` row still goes into an ``(N,)`` slice: ``jacobian[:, 0] =
    x.grad.data`` of a ``(1, 2)`` ``x``), a target that is no tensor (a numpy
    array, a list, a dict), modern code.  Position: the value.

    ## Why is this bad?
    PyTorch 0.3 wrote a tensor into a slice by copying its elements: a source of
    the same number of elements was enough (``copy_`` warned and copied them).
    Since 0.4 the value is broadcast to the target's shape, and a ``(8, 1)``
    column does not broadcast to ``(8,)``.  On PyTorch 2.13 ``samples[:, i] =
    out`` raises ``RuntimeError: expand(torch.LongTensor{[8, 1]}, size=[8]): the
    number of sizes provided (1) must be greater or equal to the number of
    dimensions in the tensor (2)``, and ``samples[:, i].copy_(out)`` raises
    ``RuntimeError: output with shape [8] doesn't match the broadcast shape [8,
    8]``.  (An assignment drops leading dimensions of size 1 first, so a ``(1,
    N)`` value still goes into an ``(N,)`` slice; ``copy_`` refuses even that:
    ``output with shape [4] doesn't match the broadcast shape [1, 4]``.)

    ## Example
    ```python
    samples = torch.zeros(num_samples, seq_len).long()
    for i in range(seq_len):
        out = torch.multinomial(probs, 1)
        samples[:, i] = out
    ```

    Use instead:
    ```python
    samples = torch.zeros(num_samples, seq_len).long()
    for i in range(seq_len):
        out = torch.multinomial(probs, 1)
        samples[:, i] = out.view(-1)
    ```

    ## Fix safety
    For a ``(N, 1)`` column written into a 1-D target the fix, ``V.view(-1)``, is
    *safe*: it gives the ``N`` elements in their order, what 0.3 copied (a view of
    a ``(N, 1)`` tensor always exists, whatever its strides).  Otherwise the message
    says what to write (``V.view_as(T[idx])``: 0.3's elements in order) and there
    is no automatic fix.
    """
    if not ctx.uses_torch:
        return
    if isinstance(node, ast.Assign):
        writes = [(t, node.value) for t in node.targets if isinstance(t, ast.Subscript)]
        copy = False
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "copy_" and len(node.args) == 1 \
            and not isinstance(node.args[0], ast.Starred):
        writes = [(node.func.value, node.args[0])]
        copy = True
    else:
        return
    if not writes or not legacy(ctx):
        return
    facts = values(ctx)
    for target, value in writes:
        given = facts.of(value)  # (the value first: it is rarely a tensor of rank 2 or more)
        if not (_ranked(given) and given.rank >= (1 if copy else 2)):
            continue
        into = facts.of(target)
        if not (_ranked(into) and given.rank > into.rank):
            continue
        column = _column(into, given)
        if not (copy or column):
            continue
        yield _report(ctx, target, value, into, given, column, copy)


def _report(ctx: Context, target: ast.AST, value: ast.AST, into: Value, given: Value,
            column: bool, copy: bool) -> Report:
    src = ctx.source
    how = ("`copy_` broadcasts its source to the tensor since 0.4" if copy else
           "an assignment broadcasts the value to the target since 0.4")
    shape = "a `(N, 1)` column" if column else f"{given.rank}-D"
    if column:
        edit = _flattened(ctx, value)
        advice = f"use `{_with_method(ctx, value, 'view(-1)')}`"
        fix = Fix((edit,), SAFE) if edit is not None else None
    else:
        advice = f"use `{_with_method(ctx, value, 'view_as(' + one_line(src.text(target)) + ')')}`"
        fix = None
    return Report(
        value,
        f"`{src.quote(value, 30)}` is {shape} and `{shorten(src.text(target), 30)}` is "
        f"{into.rank}-D: PyTorch 0.3 copied the elements, {how} (RuntimeError); {advice}",
        fix,
    )
