"""TV122: ``torch.nn.utils.clip_grad_norm``, renamed ``clip_grad_norm_``."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import Report
from ..analysis.registry import rule
from .init_names import renamed_call

#: module -> {deprecated name: its successor}
RENAMES = {
    "torch.nn.utils": {"clip_grad_norm": "clip_grad_norm_"},
    "torch.nn.utils.clip_grad": {"clip_grad_norm": "clip_grad_norm_"},
}


@rule("TV122")
def clip_grad_norm(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.nn.utils.clip_grad_norm(...)``.

    ## What it does
    Flags calls of ``clip_grad_norm`` resolved through imports to
    ``torch.nn.utils`` or ``torch.nn.utils.clip_grad`` (``nn.utils.clip_grad_norm``,
    ``torch.nn.utils.clip_grad_norm``, ``from torch.nn.utils import
    clip_grad_norm``).  Position: the call.  Also flags a test's patch target
    that names it by string (``mock.patch("torch.nn.utils.clip_grad_norm")``),
    at the string.  ``clip_grad_norm_`` and a
    project's own ``clip_grad_norm`` are left alone.

    ## Why is this bad?
    PyTorch 0.4 renamed it ``clip_grad_norm_`` (it clips in place); on PyTorch
    2.13 each call warns ``FutureWarning: `torch.nn.utils.clip_grad_norm` is
    now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.``

    ## Example
    ```python
    torch.nn.utils.clip_grad_norm(model.parameters(), args.clip)
    ```

    Use instead:
    ```python
    torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
    ```

    ## Fix safety
    The fix is *safe*: the old name only warns and calls the new one with the
    same arguments, returning the same total norm.  A bare imported name
    becomes ``clip_grad_norm_`` and the fixer adds its import.
    A test that patches the old name by string (``mock.patch("torch.nn.utils.clip_grad_norm")``,
    ``patch.object(torch.nn.utils, "clip_grad_norm")``) no longer replaces what the renamed call
    calls, and a test whose target is renamed alone no longer replaces what
    an unrenamed call calls: the two go together, as *unsafe* fixes.  Such a
    target (a ``unittest.mock``/``mock`` ``patch`` or ``patch.object`` whose
    string is exactly the old name) is flagged and renamed by an unsafe fix,
    and the call's fix becomes unsafe, saying where, when a string of the
    file or of another module of the project names the old name (each
    module's text searched once per name).  ``--fix --unsafe-fixes`` over the
    project renames both; ``--fix`` alone renames neither.
    """
    for module, renames in RENAMES.items():
        report = renamed_call(ctx, node, module, renames,
                              "is deprecated since PyTorch 0.4 (FutureWarning on 2.13)")
        if report is not None:
            yield report
            return
