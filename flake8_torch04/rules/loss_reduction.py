"""TV120: ``size_average=`` / ``reduce=`` in torch's losses."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import keyword, remove_argument

_LEGACY = ("size_average", "reduce")
_FUNCTIONAL = "torch.nn.functional."
_MODULES = ("torch.nn.", "torch.nn.modules.loss.")
_NOT_GIVEN = object()


def _loss(qualname: Optional[str]) -> bool:
    """A function of ``torch.nn.functional`` or a ``torch.nn`` class named ``...Loss``
    (or ``NLLLoss2d``)."""
    if not qualname:
        return False
    if qualname.startswith(_FUNCTIONAL):
        return "." not in qualname[len(_FUNCTIONAL):]
    for prefix in _MODULES:
        if qualname.startswith(prefix):
            name = qualname[len(prefix):]
            if "." not in name and name.endswith(("Loss", "Loss2d")) and not name.startswith("_"):
                return True
    return False


def _constant(kw: Optional[ast.keyword]):
    """The value of a constant keyword (``None`` given is ``None``), ``_NOT_GIVEN``
    when absent; raises ``ValueError`` for a value that is not a constant."""
    if kw is None:
        return _NOT_GIVEN
    if isinstance(kw.value, ast.Constant) and type(kw.value.value) in (bool, int, type(None)):
        return kw.value.value
    raise ValueError


def reduction(size_average, reduce) -> str:
    """``torch.nn._reduction.legacy_get_string``: ``None`` (or absent) counts as ``True``."""
    size_average = True if size_average in (None, _NOT_GIVEN) else size_average
    reduce = True if reduce in (None, _NOT_GIVEN) else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


@rule("TV120")
def loss_reduction(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``size_average=`` and ``reduce=`` given to torch's losses.

    ## What it does
    Flags the keywords ``size_average=`` and ``reduce=`` in calls of
    ``torch.nn.functional`` functions (``F.nll_loss``, ``F.mse_loss``,
    ``F.cross_entropy``...) and of ``torch.nn`` classes named ``...Loss``
    (``nn.CrossEntropyLoss``, ``nn.MSELoss``...) or ``nn.NLLLoss2d``,
    resolved through imports.
    Position: the first of the two keywords.  Not flagged: a project's own
    loss, ``reduction=`` alone, both keywords given as ``None`` (which torch
    ignores without a warning), and a wrapper handing its own parameters on
    (``size_average=size_average, reduce=reduce``).

    ## Why is this bad?
    Since PyTorch 0.4.1 one ``reduction=`` keyword replaces both; on PyTorch
    2.13 each call (each construction of a loss module) warns
    ``UserWarning: size_average and reduce args will be deprecated, please use
    reduction='sum' instead.``  Torch still maps the old pair to a reduction:
    ``reduce=False`` gives ``'none'`` (whatever ``size_average``), else
    ``size_average=False`` gives ``'sum'``, else ``'mean'``; a missing or
    ``None`` keyword counts as ``True``.  The old pair wins over a
    ``reduction=`` given with it.

    ## Example
    ```python
    criterion = nn.CrossEntropyLoss(size_average=False)
    loss = F.nll_loss(output, target, size_average=False, reduce=False)
    ```

    Use instead:
    ```python
    criterion = nn.CrossEntropyLoss(reduction='sum')
    loss = F.nll_loss(output, target, reduction='none')
    ```

    ## Fix safety
    The fix is *safe*: it writes the reduction torch itself derives from the
    old keywords, so the loss is the same.  It is offered only when every
    old keyword is a constant (``True``, ``False``, ``None``, ``0``, ``1``) and
    no ``reduction=`` is given; otherwise the message names the mapping.
    """
    found = [keyword(node, name) for name in _LEGACY]
    present = [kw for kw in found if kw is not None]
    if not present:
        return
    if all(isinstance(kw.value, ast.Name) and kw.value.id == kw.arg for kw in present):
        return  # a wrapper handing its caller's arguments on
    if not _loss(ctx.resolve(node.func)):
        return
    try:
        values = [_constant(kw) for kw in found]
    except ValueError:
        values = None
    if values is not None and all(v in (None, _NOT_GIVEN) for v in values):
        return  # torch ignores them: no warning, no change
    src = ctx.source
    present.sort(key=lambda kw: (kw.lineno, kw.col_offset))
    first = present[0]
    quoted = ", ".join(src.text(kw) for kw in present)
    why = "deprecated since PyTorch 0.4.1 (warns on 2.13)"
    if values is None or keyword(node, "reduction") is not None:
        yield Report(first, f"`{quoted}` is {why}; use `reduction=` ('none' if reduce is "
                            "false, else 'sum' if size_average is false, else 'mean')")
        return
    new = f"reduction='{reduction(*values)}'"
    edits = [src.replace(first, new)]
    for kw in present:
        if kw is not first:
            edit = remove_argument(ctx, node, kw)
            if edit is None:
                edits = None
                break
            edits.append(edit)
    fix = Fix(tuple(edits), SAFE) if edits else None
    yield Report(first, f"`{quoted}` is {why}; use `{new}`", fix)
