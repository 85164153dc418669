"""TV109: ``torch.normal(means=...)``, renamed ``mean=`` in PyTorch 0.4."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import Report
from ..analysis.registry import rule
from .shared.calls import keyword, rename_keyword


@rule("TV109")
def normal_means(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags the keyword ``means=`` of ``torch.normal``.

    ## What it does
    Flags ``means=`` in a call of ``torch.normal`` (resolved through imports:
    ``from torch import normal`` counts, a project's own ``normal`` or
    ``np.random.normal`` does not).

    ## Why is this bad?
    PyTorch 0.3's ``torch.normal(means, std)`` named its first argument
    ``means``; since 0.4 it is ``mean``, and ``torch.normal(means=m, std=s)``
    raises ``TypeError: normal() received an invalid combination of
    arguments`` on current PyTorch: the program stops.

    ## Example
    ```python
    noise = torch.normal(means=torch.zeros(8, 4), std=0.1 * torch.ones(8, 4))
    ```

    Use instead:
    ```python
    noise = torch.normal(mean=torch.zeros(8, 4), std=0.1 * torch.ones(8, 4))
    ```

    ## Fix safety
    Renaming the keyword is *safe*: the argument means the same under its new
    name.  A call that also passes ``mean=`` gets no automatic fix.
    """
    kw = keyword(node, "means")
    if kw is None or ctx.resolve(node.func) != "torch.normal":
        return
    if keyword(node, "mean") is not None:
        yield Report(kw, "`means=` was removed in PyTorch 0.4 (TypeError); "
                         "the call also passes `mean=`: drop `means=`")
        return
    yield Report(
        kw,
        "`torch.normal(means=...)` raises TypeError since PyTorch 0.4; use `mean=`",
        rename_keyword(ctx, kw, "mean"),
    )
