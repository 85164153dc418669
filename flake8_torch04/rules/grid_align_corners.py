"""TV133: ``F.grid_sample`` / ``F.affine_grid`` without ``align_corners``."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.era import legacy
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import append_arguments, argument, plain_arguments

#: the functions, and the position of ``align_corners`` among their arguments
_FUNCTIONS = {
    "torch.nn.functional.grid_sample": 4,
    "torch.nn.functional.affine_grid": 2,
}


@rule("TV133")
def grid_align_corners(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``F.grid_sample`` and ``F.affine_grid`` without ``align_corners``.

    ## What it does
    Flags calls of ``torch.nn.functional.grid_sample`` and
    ``torch.nn.functional.affine_grid`` (resolved through imports) that do not
    pass ``align_corners``, by keyword or position.  Position: the call.

    ## Why is this bad?
    PyTorch 0.3 to 1.2 sampled as ``align_corners=True`` does now; since 1.3 the
    default is ``align_corners=False``.  On PyTorch 2.13 each such call warns
    ``UserWarning: Default grid_sample and affine_grid behavior has changed to
    align_corners=False since 1.3.0. Please specify align_corners=True if the
    old behavior is desired.`` and samples other points: a spatial transformer
    written for 0.3 computes other numbers (every mode, ``nearest`` included).

    ## Example
    ```python
    grid = F.affine_grid(theta, x.size())
    x = F.grid_sample(x, grid)
    ```

    Use instead:
    ```python
    grid = F.affine_grid(theta, x.size(), align_corners=True)
    x = F.grid_sample(x, grid, align_corners=True)
    ```

    ## Fix safety
    In 0.3 code (the file or its project shows 0.3 idioms, or the configuration
    says ``target-version = "0.3"``: see ``analysis/era.py``) the fix appends
    ``align_corners=True``, which gives the numbers 0.3 gave: it is *safe*.
    Elsewhere the code may have been written for PyTorch 1.3 or later, whose
    numbers ``align_corners=False`` keeps: the message names both and there is
    no fix.
    """
    position = _FUNCTIONS.get(ctx.resolve(node.func) or "")
    if position is None or not plain_arguments(node) or not (node.args or node.keywords):
        return
    if argument(node, position, "align_corners") is not None:
        return
    name = ctx.source.quote(node.func, 30)
    if legacy(ctx):
        edit = append_arguments(ctx, node, "align_corners=True")
        yield Report(
            node,
            f"`{name}` defaults to align_corners=False since PyTorch 1.3 (warns on 2.13), "
            f"unlike 0.3; pass `align_corners=True` for 0.3's numbers",
            Fix((edit,), SAFE) if edit is not None else None,
        )
        return
    yield Report(
        node,
        f"`{name}` defaults to align_corners=False since PyTorch 1.3 (warns on 2.13); pass "
        f"`align_corners=True` for the numbers of PyTorch 0.3-1.2, or `align_corners=False` "
        f"for today's",
    )
