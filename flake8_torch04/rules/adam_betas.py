"""TV158: ``betas`` of ``Adam``/``AdamW`` with an int: a ValueError since PyTorch 2.6."""
from __future__ import annotations

import ast
from typing import Iterator, List

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import NUMBER, values
from ..source.text import Edit
from .shared.calls import argument, plain_arguments

#: the optimizers whose betas must be both floats (or both tensors) since 2.6
_OPTIMIZERS = frozenset(("torch.optim.Adam", "torch.optim.AdamW",
                         "torch.optim.adam.Adam", "torch.optim.adamw.AdamW"))
#: where ``betas`` stands among their arguments
_BETAS = 2


@rule("TV158")
def adam_betas(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags an int among the ``betas`` of ``torch.optim.Adam`` and ``AdamW``.

    ## What it does
    Flags ``torch.optim.Adam`` and ``torch.optim.AdamW`` (resolved through
    imports) given ``betas`` as a tuple or list of two where one is an int: a
    literal (``betas=(0, 0.9)``, the WGAN-GP paper's setting), or a value the
    value facts make an int, or a number that may be one (an option of
    ``argparse`` with ``type=float`` and an int ``default``: argparse applies
    ``type`` to the strings of the command line only, so ``args.beta1`` is ``0``
    when the option is not given).  Position: the int.

    ## Why is this bad?
    PyTorch 0.3's Adam took any numbers.  Since PyTorch 2.6 (which added tensor
    betas) ``Adam`` and ``AdamW`` require both betas to be floats or both tensors:
    ``torch.optim.Adam(params, betas=(0, 0.9))`` raises ``ValueError: betas must be
    either both floats or both Tensors``, before the first step.

    ## Example
    ```python
    optimizerD = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0, 0.9))
    ```

    Use instead:
    ```python
    optimizerD = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
    ```

    ## Fix safety
    The fix writes an int literal as a float (``0`` -> ``0.0``) and wraps any
    other value in ``float(...)``: the same number, so the same updates: *safe*.
    """
    if ctx.resolve(node.func) not in _OPTIMIZERS or not plain_arguments(node):
        return
    betas = argument(node, _BETAS, "betas")
    if not isinstance(betas, (ast.Tuple, ast.List)) or len(betas.elts) != 2:
        return
    facts = values(ctx)
    found: List[ast.AST] = []
    for beta in betas.elts:
        if isinstance(beta, ast.Constant):
            if type(beta.value) is int:
                found.append(beta)
            continue
        value = facts.of(beta)
        if value.kind == NUMBER and value.dtype != "float":
            found.append(beta)
    src = ctx.source
    name = src.quote(node.func, 30).rsplit(".", 1)[-1]
    for beta in found:
        text = src.text(beta)
        literal = isinstance(beta, ast.Constant)
        new = f"{beta.value}.0" if literal else f"float({text})"  # type: ignore[attr-defined]
        what = "is an int" if literal or facts.of(beta).dtype == "int" else "may be an int"
        start, end = src.start(beta), src.end(beta)
        yield Report(
            beta,
            f"`{src.quote(beta, 30)}` {what}: since PyTorch 2.6 `{name}` raises "
            f"ValueError unless both betas are floats; use `{new}`",
            Fix((Edit(start, end, new),), SAFE) if "\n" not in text else None,
        )
