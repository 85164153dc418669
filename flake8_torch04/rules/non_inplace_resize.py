"""TV156: ``x.resize(*sizes)``, 0.3's autograd reshape, deprecated."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import values
from ..source.text import Edit
from .shared.calls import plain_arguments


@rule("TV156")
def non_inplace_resize(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``x.resize(*sizes)`` of a tensor (not ``resize_``).

    ## What it does
    Flags calls of the method ``resize`` (without the trailing ``_``) on a
    value that is evidently a tensor or a ``Variable`` (see "How values are
    followed" in docs/how-it-works.md: ``Variable(x)``, a torch constructor,
    a module's output).  Left alone: ``resize_``, numpy's ``ndarray.resize``
    and ``np.resize``, PIL's ``Image.resize`` and any receiver of unknown
    type.  Position: the call.

    ## Why is this bad?
    0.3's ``Variable.resize(*sizes)`` was an autograd reshape: the same
    elements in a new shape, an error if their number differs.  It still
    runs, but every call warns ``UserWarning: non-inplace resize is
    deprecated``.

    ## Example
    ```python
    recon_loss = F.binary_cross_entropy(x_sample, x.resize(batch_size, x_dim))
    ```

    Use instead:
    ```python
    recon_loss = F.binary_cross_entropy(x_sample, x.reshape(batch_size, x_dim))
    ```

    ## Fix safety
    ``x.reshape(*sizes)`` is *safe*: like ``resize`` (``Resize`` in
    ``torch.autograd._functions``) it gives a view of a contiguous tensor and
    a contiguous copy of any other, the same gradient, and an error where the
    number of elements differs.
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "resize") or not node.args \
            or not plain_arguments(node) or node.keywords:
        return
    if not values(ctx).of(func.value).tensor:
        return
    src = ctx.source
    start, end = src.end(func.value), src.end(func)
    between = src.text(func)[len(src.text(func.value)):]
    fix = Fix((Edit(start, end, ".reshape"),), SAFE) \
        if between.replace(" ", "") == ".resize" else None
    yield Report(node, f"`{src.quote(node, 40)}` (0.3's autograd reshape) warns on every "
                       f"call since PyTorch 0.4 (non-inplace resize is deprecated); use "
                       f"`.reshape(...)`", fix)
