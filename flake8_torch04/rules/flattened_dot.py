"""TV171: ``torch.dot`` of tensors that are not 1-D, which 0.3 flattened."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import TENSOR, values
from ..source.text import shorten
from .shared.calls import method_call, method_edit, plain_arguments


@rule("TV171")
def flattened_dot(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.dot`` of a tensor that is evidently not 1-D.

    ## What it does
    Flags ``torch.dot(a, b)`` (resolved through imports) and ``a.dot(b)`` of an
    evident tensor ``a`` (numpy's ``dot`` of 2-D arrays is a matrix product) where
    ``a`` or ``b`` is evidently a tensor of two dimensions or more (see "How values
    are followed" in docs/how-it-works.md: ``Variable(torch.rand(1, 5, 5))``, an
    element of a 4-D batch in ``for x, y in zip(preds, masks)``).  Position: the
    call.  Not flagged: operands that are 1-D or of unknown rank, a project's own
    ``dot``.

    ## Why is this bad?
    PyTorch 0.3's ``dot`` took any two tensors with as many elements and summed
    their element-wise product over every element (a dice or overlap score of a
    ``(1, H, W)`` prediction and an ``(H, W)`` mask).  Since 0.4 it takes 1-D
    tensors only: on 2.13 ``torch.dot`` of a 3-D and a 2-D tensor raises
    ``RuntimeError: 1D tensors expected, but got 3D and 2D tensors``.

    ## Example
    ```python
    inter = torch.dot(pred, mask)  # pred (1, H, W), mask (H, W)
    ```

    Use instead:
    ```python
    inter = torch.dot(pred.reshape(-1), mask.reshape(-1))
    ```

    ## Fix safety
    The fix appends ``.reshape(-1)`` to each operand that is not evidently 1-D
    (of a 1-D tensor it is the tensor itself).  It is *safe*: 0.3 read both tensors in
    the same row-major order that ``reshape(-1)`` gives, so the sum is the same
    number, and the call raised before.
    """
    func = node.func
    if len(node.args) + len(node.keywords) > 2 or not plain_arguments(node):
        return
    facts = values(ctx)
    if isinstance(func, ast.Attribute) and func.attr == "dot" and len(node.args) == 1 \
            and ctx.resolve(func) is None:
        receiver = facts.of(func.value)
        if receiver.kind != TENSOR:
            return
        operands: List[ast.AST] = [func.value, node.args[0]]
    elif ctx.resolve(func) == "torch.dot" and len(node.args) == 2:
        operands = list(node.args)
    else:
        return
    ranks = [_rank(facts, operand) for operand in operands]
    high = [r for r in ranks if r is not None and r >= 2]
    if not high:
        return
    src = ctx.source
    flat = [operand for operand, rank in zip(operands, ranks) if rank != 1]
    edits = [method_edit(src, operand, "reshape(-1)") for operand in flat]
    texts = [method_call(src, o, "reshape", "-1") if o in flat else src.text(o)
             for o in operands]
    call = f"torch.dot({texts[0]}, {texts[1]})" if len(node.args) == 2 else \
        f"{texts[0]}.dot({texts[1]})"
    yield Report(
        node,
        f"`{src.quote(node, 40)}` of a {max(high)}-D tensor raises RuntimeError since "
        f"PyTorch 0.4 (1-D tensors only); 0.3 summed the element-wise product of any two "
        f"tensors of as many elements: use `{shorten(call, 60)}`",
        Fix(tuple(edits), SAFE) if all(e is not None for e in edits) else None,  # type: ignore
    )


def _rank(facts, operand: ast.AST) -> Optional[int]:
    value = facts.of(operand)
    return value.rank if value.kind == TENSOR else None
