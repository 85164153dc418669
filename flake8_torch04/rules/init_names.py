"""TV121: ``torch.nn.init`` functions under their pre-0.4 names."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import rename
from .shared.patches import patched_elsewhere, patched_name
from .shared.tables import INIT_RENAMES

_MODULE = "torch.nn.init"
RENAMES = INIT_RENAMES  # (shared with TV004: see ``_tables``)


def renamed_call(ctx: Context, node: ast.Call, module: str, renames: dict, code_why: str):
    """The report for a call of ``module.<old>`` in ``renames`` (shared by TV121, TV122)."""
    qualname = ctx.resolve(node.func)
    if not qualname or not qualname.startswith(module + "."):
        return patched_name(ctx, node, module, renames)  # ``mock.patch("torch...")``
    old = qualname[len(module) + 1:]
    new = renames.get(old)
    if new is None:
        return None
    src = ctx.source
    made = rename(ctx, node.func, new, module)
    fix = Fix((made[0],), SAFE, made[1]) if made is not None else None
    spelled = made[0].text if isinstance(node.func, ast.Name) else src.text(node.func)[
        :len(src.text(node.func)) - len(old)] + new
    fix, message = patched_elsewhere(
        ctx, fix, module, old,
        f"`{src.quote(node.func)}` {code_why}; use `{' '.join(spelled.split())}`")
    return Report(node, message, fix)


@rule("TV121")
def init_names(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.nn.init`` functions called by their names without the trailing ``_``.

    ## What it does
    Flags calls of ``xavier_uniform``, ``xavier_normal``, ``kaiming_uniform``,
    ``kaiming_normal``, ``uniform``, ``normal``, ``constant``, ``eye``,
    ``dirac``, ``orthogonal`` and ``sparse`` that resolve to
    ``torch.nn.init`` through the file's imports (``nn.init.normal``,
    ``init.normal``, ``from torch.nn.init import normal``).  Position: the
    call.  Also flags a test's patch target that names one by string
    (``mock.patch("torch.nn.init.normal")``), at the string.  A project's
    own ``normal``, ``np.random.normal`` and the ``_`` names are left alone.

    ## Why is this bad?
    PyTorch 0.4 renamed the initializers after the in-place convention; on
    PyTorch 2.13 every call of an old name warns ``FutureWarning:
    `nn.init.xavier_uniform` is now deprecated in favor of
    `nn.init.xavier_uniform_`.`` (once per call site).

    ## Example
    ```python
    init.xavier_uniform(self.conv.weight, gain=init.calculate_gain('relu'))
    nn.init.constant(m.bias, 0)
    ```

    Use instead:
    ```python
    init.xavier_uniform_(self.conv.weight, gain=init.calculate_gain('relu'))
    nn.init.constant_(m.bias, 0)
    ```

    ## Fix safety
    The fix is *safe*: the old name only warns and calls the new one with the
    same arguments.  A bare name imported with ``from torch.nn.init import
    normal`` becomes ``normal_``, and the fixer adds ``from torch.nn.init
    import normal_`` (the old import is left for you to remove).  When the
    argument is ``m.weight.data``, TV004's fix rewrites the call whole
    (``init.normal_(m.weight)``); the two fixes touch the same name, so the
    fixer applies one per round and the result is the same.
    A test that patches the old name by string (``mock.patch("torch.nn.init.normal")``)
    goes with the calls, as for TV122: its target is renamed by an *unsafe*
    fix, and the call's fix becomes *unsafe*, saying where, when a string of
    the file or of its project names the old name.
    """
    report = renamed_call(
        ctx, node, _MODULE, RENAMES,
        "is deprecated since PyTorch 0.4 (FutureWarning on 2.13)",
    )
    if report is not None:
        yield report
