"""TV124: ``F.upsample*`` and 0.3-era bilinear ``nn.Upsample``."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional

from ..analysis.context import Context
from ..analysis.era import legacy
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import append_arguments, argument, plain_arguments, rename
from .shared.patches import patched_elsewhere, patched_name

_F = "torch.nn.functional"
_FUNCTIONS = {f"{_F}.upsample", f"{_F}.upsample_nearest", f"{_F}.upsample_bilinear"}
#: the names the fix calls instead (for the patch targets of tests)
_RENAMES = {"upsample": "interpolate", "upsample_nearest": "interpolate",
            "upsample_bilinear": "interpolate"}
_MODULES = ("torch.nn.Upsample", "torch.nn.modules.upsampling.Upsample",
            "torch.nn.modules.Upsample")
#: the interpolating modes of PyTorch 0.3, which behaved as ``align_corners=True``
_OLD_LINEAR = ("bilinear", "trilinear")


def _mode(call: ast.Call, index: int) -> Optional[object]:
    """The constant mode (``"nearest"`` when absent), or ``None`` when not constant."""
    given = argument(call, index, "mode")
    if given is None:
        return "nearest"
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return given.value
    return None


@rule("TV124")
def upsample(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``F.upsample`` and its relatives, and 0.3-era bilinear ``nn.Upsample``.

    ## What it does
    Flags calls of ``torch.nn.functional.upsample``, ``upsample_nearest`` and
    ``upsample_bilinear`` (resolved through imports), and, in 0.3 code,
    ``nn.Upsample(mode='bilinear')`` or ``mode='trilinear'`` without
    ``align_corners``.  Position: the call.  Also flags a test's patch target
    that names one of the functions by string
    (``mock.patch("torch.nn.functional.upsample")``), at the string.
    ``F.interpolate`` did not exist
    before 0.4.1, so it is never flagged; nor is ``nn.UpsamplingBilinear2d``
    (which keeps ``align_corners=True``).  "0.3 code" is a file of a project
    with evidence that it was written for PyTorch 0.3 — in the file or in any
    other module of the project: torch's ``Variable``, ``volatile=True``,
    ``.data[0]`` —, or any file when the setting ``target-version = "0.3"``
    says so (see ``flake8_torch04/analysis/era.py``).

    ## Why is this bad?
    On PyTorch 2.13 each call of the functions warns ``UserWarning:
    `nn.functional.upsample` is deprecated. Use `nn.functional.interpolate`
    instead.``  And since PyTorch 0.4 the bilinear and trilinear modes default
    to ``align_corners=False``, while 0.3 computed what ``align_corners=True``
    computes now: a 0.3 program silently gets different numbers from
    ``F.upsample(x, mode='bilinear')`` and ``nn.Upsample(mode='bilinear')``.
    ``upsample_bilinear`` still means ``align_corners=True``.

    ## Example
    ```python
    from torch.autograd import Variable
    out = F.upsample(score, size=x.size()[2:], mode='bilinear')
    up = nn.Upsample(scale_factor=2, mode='bilinear')
    y = F.upsample_bilinear(x, scale_factor=2)
    ```

    Use instead:
    ```python
    out = F.interpolate(score, size=x.size()[2:], mode='bilinear', align_corners=True)
    up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
    y = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=True)
    ```

    ## Fix safety
    The fixes are *safe*: ``F.upsample`` becomes ``F.interpolate`` with the
    same arguments (the same numbers), ``upsample_bilinear(x, ...)`` becomes
    ``interpolate(x, ..., mode='bilinear', align_corners=True)``, which is what
    it calls, and in 0.3 code a constant bilinear or trilinear mode without
    ``align_corners`` gets ``align_corners=True``, which gives the numbers 0.3
    gave.  Where neither the file nor its project is 0.3 code
    ``F.upsample`` is only renamed (the numbers of today are kept; the
    message says that 0.3 used ``align_corners=True``).  When the mode is not
    a constant, the renaming fix is *unsafe* in 0.3 code: add
    ``align_corners=True`` yourself if the mode is bilinear.
    A test that patches the old name by string (``mock.patch("torch.nn.functional.upsample")``)
    goes with the calls, as for TV122: its target is renamed by an *unsafe*
    fix, and the call's fix becomes *unsafe*, saying where, when a string of
    the file or of its project names the old name.
    """
    qualname = ctx.resolve(node.func)
    if qualname is not None and qualname.startswith(("unittest.mock.", "mock.")):
        report = patched_name(ctx, node, _F, _RENAMES)  # ``mock.patch("torch...upsample")``
        if report is not None:
            yield report
    elif qualname in _FUNCTIONS:
        if node.args or node.keywords:
            yield from _function(ctx, node, qualname.rsplit(".", 1)[1])
    elif qualname in _MODULES and legacy(ctx) and plain_arguments(node):
        mode = _mode(node, 2)
        if mode in _OLD_LINEAR and argument(node, 3, "align_corners") is None:
            edit = append_arguments(ctx, node, "align_corners=True")
            fix = Fix((edit,), SAFE) if edit is not None else None
            yield Report(node, f"`{ctx.source.quote(node.func, 30)}(mode='{mode}')` defaults to "
                               "align_corners=False since PyTorch 0.4, unlike 0.3; "
                               "pass `align_corners=True` for 0.3's numbers", fix)


def _function(ctx: Context, node: ast.Call, name: str) -> Iterator[Report]:
    src = ctx.source
    made = rename(ctx, node.func, "interpolate", _F)
    edits: Optional[List] = [made[0]] if made is not None else None
    imports = made[1] if made is not None else ()
    safety = SAFE
    added = ""
    note = ""
    if not plain_arguments(node):
        edits = None
    elif name == "upsample_bilinear":
        added = "mode='bilinear', align_corners=True"
    elif name == "upsample" and argument(node, 4, "align_corners") is None:
        mode = _mode(node, 3)
        if mode in _OLD_LINEAR:
            if legacy(ctx):
                added = "align_corners=True"
            else:
                note = " (0.3 computed align_corners=True)"
        elif mode is None and legacy(ctx):
            safety = UNSAFE
            note = " and align_corners=True if the mode is bilinear"
    if added and edits is not None:
        edit = append_arguments(ctx, node, added)
        edits = edits + [edit] if edit is not None else None
    fix = Fix(tuple(edits), safety, imports) if edits else None
    new = "interpolate(..." + (f", {added})" if added else ")")
    fix, message = patched_elsewhere(
        ctx, fix, _F, name,
        f"`{src.quote(node.func, 30)}` is deprecated since PyTorch 0.4.1 (warns on 2.13); "
        f"use `{new}`{note}")
    yield Report(node, message, fix)
