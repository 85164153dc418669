"""TV138: ``range=`` of torchvision's ``make_grid``/``save_image``, renamed ``value_range=``."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import Report
from ..analysis.registry import rule
from .shared.calls import keyword, rename_keyword

#: the functions that took ``range=`` (``save_image`` hands its keywords to ``make_grid``)
_FUNCTIONS = ("torchvision.utils.make_grid", "torchvision.utils.save_image")


@rule("TV138")
def grid_value_range(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``range=`` given to torchvision's ``make_grid`` or ``save_image``.

    ## What it does
    Flags the keyword ``range=`` in a call of ``torchvision.utils.make_grid``
    or ``torchvision.utils.save_image``, resolved through imports:
    ``vutils.save_image(...)`` after ``import torchvision.utils as vutils``,
    ``utils.make_grid(...)`` after ``from torchvision import utils``, a
    ``save_image`` imported with ``from torchvision.utils import save_image``,
    ``tv.utils.save_image(...)`` after ``import torchvision as tv``.  A
    project's own ``save_image`` or ``make_grid`` (defined in the file or
    imported from the project's ``utils``), another library's function of the
    same name, and a call that already says ``value_range=`` only are left
    alone.  A ``range=`` hidden in ``**kwargs`` is not seen.

    ## Why is this bad?
    In torchvision 0.2 (the PyTorch 0.3 era) the keyword was
    ``make_grid(..., normalize=False, range=None, ...)``, and ``save_image``
    took it too.  torchvision 0.9 renamed it ``value_range`` and read the old
    keyword from ``**kwargs`` with a warning (``range will be deprecated,
    please use value_range instead.``; in 0.12 and 0.13: ``The parameter
    'range' is deprecated since 0.12 and will be removed in 0.14.``).  In 0.14
    and 0.15 ``make_grid`` still accepted ``**kwargs`` but ignored
    ``range``, so the images were normalized by their own minimum and maximum
    instead of the given range.  Since 0.16 ``make_grid`` has no ``**kwargs``:
    with the torchvision of PyTorch 2.13 (0.28), ``make_grid(x,
    normalize=True, range=(0, 1))`` raises ``TypeError: make_grid() got an
    unexpected keyword argument 'range'`` and the program stops;
    ``save_image`` passes its other keywords on to ``make_grid``, so
    ``save_image(x, 'out.png', range=(-1, 1))`` raises the same error, naming
    ``make_grid``.

    ## Example
    ```python
    import torchvision.utils as vutils

    vutils.save_image(fake.data, 'out.png', normalize=True, range=(-1, 1))
    grid = vutils.make_grid(x, normalize=True, range=(0, 1))
    ```

    Use instead:
    ```python
    import torchvision.utils as vutils

    vutils.save_image(fake.data, 'out.png', normalize=True, value_range=(-1, 1))
    grid = vutils.make_grid(x, normalize=True, value_range=(0, 1))
    ```

    ## Fix safety
    Renaming the keyword to ``value_range=`` is *safe*: it is the same
    argument under its new name (a ``(min, max)`` tuple that the images are
    clamped to and scaled from, when ``normalize=True``).  A call that also
    passes ``value_range=`` gets no automatic fix (the message says to keep
    the one meant, as ``value_range=``), nor does a call that also unpacks
    ``**kwargs``, which may hold a ``value_range`` of its own.
    """
    kw = keyword(node, "range")
    if kw is None or ctx.resolve(node.func) not in _FUNCTIONS:
        return
    called = ctx.source.quote(node.func, 30)
    if keyword(node, "value_range") is not None:
        yield Report(kw, f"`range=` of `{called}` was removed in torchvision 0.16 (TypeError); "
                         "the call also passes `value_range=`: keep the one you mean, "
                         "as `value_range=`, and drop the other")
        return
    new = f"value_range={ctx.source.quote(kw.value, 30)}"
    if any(k.arg is None for k in node.keywords):
        yield Report(kw, f"`range=` of `{called}` was renamed in torchvision 0.9 and removed "
                         f"in 0.16 (TypeError); use `{new}` (not fixed: the call also "
                         "unpacks `**kwargs`, check that it holds no `value_range`)")
        return
    yield Report(kw, f"`range=` of `{called}` was renamed in torchvision 0.9 and removed in "
                     f"0.16 (TypeError); use `{new}`",
                 rename_keyword(ctx, kw, "value_range"))
