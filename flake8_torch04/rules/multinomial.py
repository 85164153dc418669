"""TV108: ``multinomial`` without ``num_samples``, required since PyTorch 0.4."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit, has_comment


@rule("TV108")
def multinomial(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``E.multinomial()`` and ``torch.multinomial(p)`` without ``num_samples``.

    ## What it does
    Flags a call of ``torch.multinomial`` (resolved through imports) with fewer
    than two positional arguments and no ``num_samples=``, and a method call
    ``E.multinomial(...)`` with no positional argument and no
    ``num_samples=``.  The method call is flagged only in a file that works
    with torch (it imports torch, or uses ``Variable`` or ``.backward(``), and
    not when ``E`` is an imported module or class (``np.random.multinomial``,
    ``torch.Tensor.multinomial``): a project's own ``.multinomial()`` method
    in a file that does not touch torch is left alone.  Calls that pass
    ``*args`` or ``**kwargs`` are left alone too.

    ## Why is this bad?
    In PyTorch 0.3 ``num_samples`` defaulted to ``1`` (REINFORCE examples
    sampled an action with ``probs.multinomial()``).  Since 0.4 it is
    required: ``probs.multinomial()`` raises ``TypeError: multinomial()
    missing 1 required positional arguments: "num_samples"`` and the program
    stops.

    ## Example
    ```python
    action = probs.multinomial()
    word = torch.multinomial(weights)
    ```

    Use instead:
    ```python
    action = probs.multinomial(num_samples=1)
    word = torch.multinomial(weights, num_samples=1)
    ```

    ## Fix safety
    Adding ``num_samples=1``, 0.3's default, is *safe*: the call draws the
    same one sample as before.
    """
    func = node.func
    qualname = ctx.resolve(func)
    if qualname == "torch.multinomial":
        wanted = 2
    elif (
        qualname is None
        and isinstance(func, ast.Attribute)
        and func.attr == "multinomial"
        and ctx.uses_torch
        and ctx.resolve(func.value) is None
    ):
        wanted = 1
    else:
        return
    if len(node.args) >= wanted or any(kw.arg in ("num_samples", None) for kw in node.keywords):
        return
    if any(isinstance(a, ast.Starred) for a in node.args):
        return
    yield Report(
        node,
        "`num_samples` has no default since PyTorch 0.4 (TypeError); "
        "pass `num_samples=1` (0.3's default)",
        _add_num_samples(ctx, node),
    )


def _add_num_samples(ctx: Context, node: ast.Call) -> Optional[Fix]:
    """``num_samples=1`` after the last argument, or inside the empty parentheses."""
    src = ctx.source
    parts = [*node.args, *node.keywords]
    if parts:
        last = max(parts, key=lambda p: src.end(p))
        at = src.end(last)
        text = ", num_samples=1"
    else:
        at = src.end(node)
        at = (at[0], at[1] - 1)  # before the closing parenthesis
        text = "num_samples=1"
    if has_comment(src.between(src.end(node.func), src.end(node))):
        return None
    return Fix((Edit(at, at, text),), SAFE)
