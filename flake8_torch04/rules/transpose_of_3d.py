"""TV153: ``x.t()`` of a tensor of three or more dimensions, which only PyTorch 0.1 ran."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import value_of
from ..source.text import shorten
from .shared.calls import append_arguments, argument, plain_arguments, rename


@rule("TV153")
def transpose_of_3d(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``x.t()`` and ``torch.t(x)`` of a tensor of evident rank 3 or more.

    ## What it does
    Flags ``x.t()`` (no arguments) and ``torch.t(x)`` (resolved through
    imports) where the value facts (``analysis/values.py``) make ``x`` evidently
    a tensor of three or more dimensions: ``torch.randn(5, 4, 2)``, a
    ``torch.stack`` of 2-D tensors, a piece of such a tensor cut by
    ``torch.split``/``torch.chunk`` (through an index, a slice or tuple
    unpacking), the output of a recurrent layer, ...  Where the rank is not
    evident, nothing is reported.  Position: the call.

    ## Why is this bad?
    PyTorch 0.1.12's ``Variable.t()`` was ``Transpose(0, 1)`` whatever the rank:
    it swapped the first two dimensions of a 3-D tensor too.  From 0.2 on,
    ``t()`` takes at most two dimensions, and on PyTorch 2.13 the call stops
    the program with ``RuntimeError: t() expects a tensor with <= 2
    dimensions, but self is 3D``.  The mixture-density heads of the first
    Sketch-RNN ports (``torch.stack(torch.split(y, 6, 1)[:-1])``, then
    ``pi.t().squeeze()`` of one of its pieces) were written that way.

    ## Example
    ```python
    params = torch.stack(torch.split(y, 6, 1)[:-1])  # (M, N, 6)
    pi, mu_x, mu_y, sigma_x, sigma_y, rho = torch.split(params, 1, 2)
    pi = F.softmax(pi.t().squeeze(), dim=1)
    ```

    Use instead:
    ```python
    params = torch.stack(torch.split(y, 6, 1)[:-1])  # (M, N, 6)
    pi, mu_x, mu_y, sigma_x, sigma_y, rho = torch.split(params, 1, 2)
    pi = F.softmax(pi.transpose(0, 1).squeeze(), dim=1)
    ```

    ## Fix safety
    The fix writes ``x.transpose(0, 1)`` (``torch.transpose(x, 0, 1)``): *safe*,
    it is what 0.1.12 computed, the only meaning the call ever had for such a
    tensor.
    """
    func = node.func
    name = ctx.resolve(func)
    if name == "torch.t":
        if len(node.args) + len(node.keywords) != 1 or not plain_arguments(node):
            return
        tensor: Optional[ast.AST] = argument(node, 0, "input")
    elif name is None and isinstance(func, ast.Attribute) and func.attr == "t" \
            and not node.args and not node.keywords:
        tensor = func.value
    else:
        return
    if tensor is None:
        return
    value = value_of(ctx, tensor)
    if not (value.tensor and value.rank is not None and value.rank >= 3):
        return
    src = ctx.source
    fix = None
    renamed = rename(ctx, func, "transpose", "torch")
    added = append_arguments(ctx, node, "dim0=0, dim1=1" if node.keywords else
                             "0, 1") if renamed is not None else None
    if renamed is not None and added is not None:
        fix = Fix((renamed[0], added), SAFE, renamed[1])
    shown = src.quote(node, 30)
    if name:
        use = f"torch.transpose({src.quote(tensor, 30)}, 0, 1)"
    else:  # (``(a + b).t()``: its own parentheses kept)
        use = f"{shorten(src.text(func)[:-1].rstrip(' .'), 30)}.transpose(0, 1)"
    yield Report(
        node,
        f"`{shown}` of a {value.rank}-D tensor raises since PyTorch 0.2 (RuntimeError: t() "
        f"expects a tensor with <= 2 dimensions); 0.1.12 swapped dims 0 and 1: use `{use}`",
        fix,
    )
