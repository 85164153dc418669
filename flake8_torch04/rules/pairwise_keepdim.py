"""TV145: ``F.pairwise_distance`` / ``nn.PairwiseDistance`` without ``keepdim``."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.era import file_is_legacy
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import append_arguments, argument, plain_arguments

#: the callables 0.3 had, and the position of ``keepdim`` among their arguments
#: (``torch.pairwise_distance`` came with 0.4: code that calls it means today's shape)
_CALLABLES = {
    "torch.nn.functional.pairwise_distance": 4,
    "torch.nn.PairwiseDistance": 2,
}


@rule("TV145")
def pairwise_keepdim(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``F.pairwise_distance`` and ``nn.PairwiseDistance`` without ``keepdim`` in 0.3 code.

    ## What it does
    In 0.3 code (the file itself shows 0.3 idioms, or the configuration says
    so: see ``analysis/era.py``; another module's idioms do not count here, as
    the fix changes the shape code written for 0.4 and later expects), flags
    calls of
    ``torch.nn.functional.pairwise_distance`` and constructions of
    ``torch.nn.PairwiseDistance`` (resolved through imports) that do not pass
    ``keepdim``, by keyword or position.  Code written for 0.4 and later is
    left alone: it means today's shape.  Position: the call.

    ## Why is this bad?
    PyTorch 0.3's ``pairwise_distance(x1, x2)`` summed with ``keepdim=True``
    and returned an ``(N, 1)`` tensor; since 0.4 it returns ``(N,)``.  The
    contrastive loss of the Siamese networks of the time multiplies the
    distance by an ``(N, 1)`` label: ``(1 - label) * d ** 2`` is now an ``(N,
    N)`` matrix, and the loss its mean, without an error or a warning (and
    ``d.data.numpy()[0][0]`` raises ``IndexError``).

    ## Example
    ```python
    distance = F.pairwise_distance(output1, output2)
    loss = torch.mean((1 - label) * torch.pow(distance, 2)
                      + label * torch.pow(torch.clamp(margin - distance, min=0.0), 2))
    ```

    Use instead:
    ```python
    distance = F.pairwise_distance(output1, output2, keepdim=True)
    loss = torch.mean((1 - label) * torch.pow(distance, 2)
                      + label * torch.pow(torch.clamp(margin - distance, min=0.0), 2))
    ```

    ## Fix safety
    ``keepdim=True`` gives 0.3's ``(N, 1)`` result, the same values: *safe* in
    0.3 code.
    """
    qualname = ctx.resolve(node.func) or ""
    position = _CALLABLES.get(qualname)
    if position is None or not plain_arguments(node) or not file_is_legacy(ctx):
        return
    if argument(node, position, "keepdim") is not None:
        return
    if not node.args and not node.keywords and qualname != "torch.nn.PairwiseDistance":
        return  # (``F.pairwise_distance()``: not a call that runs)
    edit = append_arguments(ctx, node, "keepdim=True")
    name = ctx.source.quote(node.func, 30)
    yield Report(
        node,
        f"`{name}` gave (N, 1) on PyTorch 0.3 and gives (N,) since 0.4 (an (N, 1) label "
        f"then broadcasts to (N, N)); pass `keepdim=True` for 0.3's shape",
        Fix((edit,), SAFE) if edit is not None else None,
    )
