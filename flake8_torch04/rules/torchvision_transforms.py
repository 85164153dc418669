"""TV112: torchvision transforms removed after their renames (``Scale``, ``RandomSizedCrop``)."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit

#: old name -> new name, in ``torchvision.transforms``
RENAMES = {
    "Scale": "Resize",
    "RandomSizedCrop": "RandomResizedCrop",
}
_MODULES = ("torchvision.transforms", "torchvision.transforms.transforms")
_OLD = {f"{module}.{old}": new for module in _MODULES for old, new in RENAMES.items()}


@rule("TV112")
def torchvision_transforms(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``transforms.Scale`` and ``transforms.RandomSizedCrop``.

    ## What it does
    Flags every use of a torchvision transform that was renamed and later
    removed (the table ``RENAMES`` in the rule's module:
    ``Scale`` -> ``Resize``, ``RandomSizedCrop`` -> ``RandomResizedCrop``),
    resolved through imports of ``torchvision.transforms``: ``transforms.Scale``,
    ``torchvision.transforms.Scale``, a name imported with ``from
    torchvision.transforms import Scale`` (flagged at the import and at each
    use).  A project's own ``Scale`` class, or ``Scale`` from another
    library, is left alone.

    ## Why is this bad?
    torchvision 0.2 renamed ``Scale`` to ``Resize`` and ``RandomSizedCrop``
    to ``RandomResizedCrop`` and kept the old names only as deprecated
    aliases; torchvision 0.4-era releases removed them.  With any torchvision
    that runs on current PyTorch, ``transforms.Scale(64)`` raises
    ``AttributeError: module 'torchvision.transforms' has no attribute
    'Scale'`` and the program stops (the import form fails with
    ``ImportError``).

    ## Example
    ```python
    transform = transforms.Compose([
        transforms.Scale(64),
        transforms.RandomSizedCrop(224),
    ])
    ```

    Use instead:
    ```python
    transform = transforms.Compose([
        transforms.Resize(64),
        transforms.RandomResizedCrop(224),
    ])
    ```

    ## Fix safety
    Renaming the attribute (``transforms.Scale`` -> ``transforms.Resize``) is
    *safe*: the old names were aliases of the new classes, with the same
    arguments.  Names imported with ``from torchvision.transforms import
    Scale`` get no automatic fix: the message says to import the new name and
    rename the uses.
    """
    if isinstance(node, ast.ImportFrom):
        module = node.module if not node.level else None
        old = [alias.name for alias in node.names if alias.name in RENAMES]
        if module in _MODULES and old:
            names = ", ".join(f"`{name}`" for name in old)
            news = ", ".join(f"`{RENAMES[name]}`" for name in old)
            yield Report(node, f"{names} removed from torchvision.transforms (ImportError); "
                               f"import {news} and rename the uses")
        return
    qualname = ctx.resolve(node)
    new = _OLD.get(qualname) if qualname else None
    if new is None:
        return
    old = qualname.rsplit(".", 1)[1]
    if isinstance(node, ast.Attribute):
        line, end = ctx.source.end(node)
        fix = Fix((Edit((line, end - len(node.attr)), (line, end), new),), SAFE)
        base = ctx.source.quote(node.value, 30)  # the user's spelling: ``T.``, ``tv.transforms.``
        yield Report(node, f"`{base}.{old}` was removed from torchvision (AttributeError); "
                           f"use `{base}.{new}`", fix)
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        yield Report(node, f"`{old}` was removed from torchvision.transforms; "
                           f"import `{new}` and use it instead")
