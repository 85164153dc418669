"""TV102: ``retain_variables=``, renamed ``retain_graph=`` in PyTorch 0.4."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import Report
from ..analysis.registry import rule
from .shared.calls import keyword, rename_keyword

#: functions that took ``retain_variables=`` (``E.backward`` is matched by name)
_FUNCTIONS = ("torch.autograd.backward", "torch.autograd.grad")


@rule("TV102")
def retain_variables(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``retain_variables=`` in ``backward`` and ``torch.autograd.grad`` calls.

    ## What it does
    Flags the keyword ``retain_variables=`` in a ``.backward(...)`` call (any
    receiver: the keyword is torch's own and no other library's ``backward``
    took it) and in ``torch.autograd.backward(...)`` and
    ``torch.autograd.grad(...)``, resolved through imports.  The same keyword
    given to a project's own function, and ``retain_graph=``, are left alone.

    ## Why is this bad?
    ``retain_variables`` was renamed ``retain_graph`` in PyTorch 0.4 and the
    old name was removed since: ``loss.backward(retain_variables=True)``
    raises ``TypeError: backward() got an unexpected keyword argument
    'retain_variables'`` on current PyTorch, and the program stops.

    ## Example
    ```python
    d_loss.backward(retain_variables=True)
    grads = torch.autograd.grad(y, x, retain_variables=True)
    ```

    Use instead:
    ```python
    d_loss.backward(retain_graph=True)
    grads = torch.autograd.grad(y, x, retain_graph=True)
    ```

    ## Fix safety
    Renaming the keyword is *safe*: the argument means the same under its new
    name.  A call that already passes ``retain_graph=`` gets no automatic fix
    (the message says to drop one of the two).
    """
    kw = keyword(node, "retain_variables")
    if kw is None:
        return
    func = node.func
    if not (
        (isinstance(func, ast.Attribute) and func.attr == "backward")
        or ctx.resolve(func) in _FUNCTIONS
    ):
        return
    if keyword(node, "retain_graph") is not None:
        yield Report(kw, "`retain_variables=` was removed in PyTorch 0.4 (TypeError); "
                         "the call also passes `retain_graph=`: drop `retain_variables=`")
        return
    yield Report(
        kw,
        "`retain_variables=` was renamed in PyTorch 0.4 and now raises TypeError; "
        "use `retain_graph=`",
        rename_keyword(ctx, kw, "retain_graph"),
    )
