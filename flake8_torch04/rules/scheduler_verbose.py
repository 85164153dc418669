"""TV136: ``verbose=`` given to a learning-rate scheduler, which no longer takes it."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import keyword, plain_arguments, remove_argument

_MODULE = "torch.optim.lr_scheduler."


@rule("TV136")
def scheduler_verbose(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``verbose=`` given to a ``torch.optim.lr_scheduler`` class.

    ## What it does
    Flags the ``verbose`` keyword of a call that resolves to a class of
    ``torch.optim.lr_scheduler`` through the file's imports
    (``ReduceLROnPlateau(optimizer, 'min', verbose=True)``,
    ``lr_scheduler.StepLR(opt, 30, verbose=False)``).  Position: the keyword.
    A project's own scheduler class, and ``verbose`` given to anything else,
    are left alone.

    ## Why is this bad?
    PyTorch 0.3's ``ReduceLROnPlateau`` took ``verbose`` (the other schedulers
    took it from 1.x on) to print a line when it changed the learning rate.
    PyTorch 2.2 deprecated it, and no scheduler of 2.13 has it: the call raises
    ``TypeError: ReduceLROnPlateau.__init__() got an unexpected keyword argument
    'verbose'`` before the training starts.

    ## Example
    ```python
    scheduler = ReduceLROnPlateau(optimizer, 'min', patience=2, verbose=True)
    ```

    Use instead:
    ```python
    scheduler = ReduceLROnPlateau(optimizer, 'min', patience=2)
    # print(scheduler.get_last_lr()) where the line was wanted
    ```

    ## Fix safety
    The fix removes the keyword.  It is *safe* for ``verbose=False`` (it did
    nothing) and *unsafe* otherwise: the scheduler no longer prints when it
    changes the learning rate (the numbers are the same).  A keyword next to a
    comment is left to a person.
    """
    name = ctx.resolve(node.func)
    if not name or not name.startswith(_MODULE) or not name[len(_MODULE):][:1].isupper() \
            or not plain_arguments(node):
        return
    given = keyword(node, "verbose")
    if given is None:
        return
    edit = remove_argument(ctx, node, given)
    quiet = isinstance(given.value, ast.Constant) and given.value.value is False
    cls = name[len(_MODULE):]
    yield Report(
        given,
        f"`{ctx.source.quote(given, 30)}` was removed from the schedulers (TypeError on "
        f"PyTorch 2.13: `{cls}` takes no `verbose`); remove it"
        f"{'' if quiet else ' (print `scheduler.get_last_lr()` where the line was wanted)'}",
        Fix((edit,), SAFE if quiet else UNSAFE) if edit is not None else None,
    )
