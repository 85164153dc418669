"""TV169: ``loader.batch_size = n`` on a made ``DataLoader``: ValueError since 1.x."""
from __future__ import annotations

import ast
import re
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.resolve import key
from .shared.schedulers import made_by

_LOADERS = frozenset(("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"))
#: the attributes a made loader refuses, and whether 0.3's loader read the assigned
#: value again (``dataset``: its iterator took the loader's dataset, with the sampler
#: built for the old one) or kept what it was built with (the batch sampler)
_REFUSED = {"batch_size": False, "drop_last": False, "sampler": False,
            "batch_sampler": False, "dataset": True}


@rule("TV169")
def loader_attribute(ctx: Context, node: ast.Assign) -> Iterator[Report]:
    """Flags ``loader.batch_size = n`` and the other attributes a made ``DataLoader`` refuses.

    ## What it does
    Flags an assignment to the ``batch_size``, ``drop_last``, ``sampler``,
    ``batch_sampler`` or ``dataset`` attribute of a name every binding of which
    is a ``torch.utils.data.DataLoader(...)`` call (in the function, at the top
    of the module, or passed by every caller of the function, in this module or
    another of the project).  Position: the assignment.

    ## Why is this bad?
    Since PyTorch 1.x a ``DataLoader`` refuses them once it is made: on 2.13
    ``ValueError: batch_size attribute should not be set after DataLoader is
    initialized``.  PyTorch 0.3 took the assignment and ignored it: the batch
    sampler was built by the constructor, so ``loader.batch_size = 1`` in a
    2017 ``predict(model, loader)`` changed nothing but the attribute (a
    ``dataset`` assigned was read by the next iterator, with the sampler of the
    old one).

    ## Example
    ```python
    def predict(model, loader):
        loader.batch_size = 1
        for x, _ in loader:
            ...
    ```

    Use instead:
    ```python
    def predict(model, loader):
        for x, _ in loader:
            ...
    ```

    ## Fix safety
    The fix deletes the assignment of ``batch_size``, ``drop_last``, ``sampler``
    or ``batch_sampler``, which 0.3 ignored: *safe* where the loader is made in
    the file and the file never reads that attribute (then nothing it computes
    changes), *unsafe* where it does (0.3 read the assigned value there; the
    loader's own is read now) or the loader is a parameter (its maker may read it).  For
    ``dataset`` the message says to make a new ``DataLoader`` over it (0.3
    batched the new dataset with the old one's sampler: no fix can choose).
    """
    if len(node.targets) != 1:
        return
    target = node.targets[0]
    if not (isinstance(target, ast.Attribute) and target.attr in _REFUSED
            and isinstance(target.value, ast.Name)):
        return
    scope = (ctx.scope.function() or ctx.scope.module()).node
    if not made_by(ctx, target.value, scope, _LOADERS.__contains__):
        return
    src = ctx.source
    attr, owner = target.attr, target.value.id
    where = (f"`{src.quote(node, 40)}` raises ValueError since PyTorch 1.x ({attr} attribute "
             f"should not be set after DataLoader is initialized)")
    if _REFUSED[attr]:
        yield Report(node, where + f"; make a new `DataLoader` over it (0.3 read the new "
                                   f"{attr} with the sampler of the old one)")
        return
    edit = src.remove_lines(node)
    defs = ctx.flow_of(scope).reaching(target.value) or ()
    # (read again in the file, or a loader made elsewhere, whose attribute may be read there)
    read = len(re.findall(rf"\.[\s\\]*{attr}\b", ctx.text)) > 1 or \
        any(d.kind != "assign" for d in defs)
    yield Report(
        node,
        where + f"; 0.3 ignored it (`{owner}` batches as it was built): delete it",
        Fix((edit,), UNSAFE if read else SAFE) if edit is not None and key(target) else None,
    )
