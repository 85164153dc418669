"""TV135: ``nn.utils.weight_norm`` and ``torch.qr``, which warn on PyTorch 2.13."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.saved import whole_module_save
from ..analysis.values import value_of
from ..source.text import has_comment
from .shared.calls import plain_arguments
from .shared.patches import patched_elsewhere
from .type_comparison import torch_name

_WEIGHT_NORM = "torch.nn.utils.weight_norm"
_WEIGHT_NORM_NAMES = (_WEIGHT_NORM, "torch.nn.utils.weight_norm.weight_norm")
_QR = "torch.qr"


def _mode(some: Optional[ast.AST]) -> Optional[str]:
    """``torch.linalg.qr``'s ``mode`` argument for ``torch.qr``'s ``some`` (``""``:
    none needed), or ``None`` when ``some`` is not a constant."""
    if some is None:
        return ""
    if isinstance(some, ast.Constant) and isinstance(some.value, bool):
        return "" if some.value else ", mode='complete'"
    return None


def _qr(ctx: Context, node: ast.Call, qualname: Optional[str]) -> Optional[Report]:
    """``torch.qr(A, some)`` or ``A.qr(some)`` (``qualname``: what the call resolves
    to): ``torch.linalg.qr(A, mode=...)``."""
    func = node.func
    if isinstance(func, ast.Attribute) and qualname is None:  # (``A.qr()``: a tensor's)
        matrix: Optional[ast.AST] = func.value
        rest = node.args
        if not value_of(ctx, matrix).tensor:
            return None
    elif qualname == _QR:
        matrix = node.args[0] if node.args else next(
            (kw.value for kw in node.keywords if kw.arg == "input"), None)
        rest = node.args[1:]
    else:
        return None
    src = ctx.source
    quoted = src.quote(node, 60)
    why = "is deprecated since PyTorch 1.9 (UserWarning on 2.13)"
    torch, imports = torch_name(ctx)
    keywords = [kw for kw in node.keywords if kw.arg != "input"]
    some = rest[0] if rest else next((kw.value for kw in keywords if kw.arg == "some"), None)
    mode = _mode(some)
    if matrix is None or not plain_arguments(node) or mode is None or len(rest) > 1 or any(
            kw.arg not in ("some",) for kw in keywords):
        return Report(node, f"`{quoted}` {why}; use `{torch}.linalg.qr(A, mode=...)` "
                            "(`mode='reduced'` for `some=True`, `'complete'` for `some=False`)")
    new = f"{torch}.linalg.qr({src.text(matrix)}{mode})"
    fix = None
    if not has_comment(src.text(node)):
        fix = Fix((src.replace(node, new),), SAFE, imports)
    fix, message = patched_elsewhere(ctx, fix, "torch", "qr", f"`{quoted}` {why}; use `{new}`")
    return Report(node, message, fix)


@rule("TV135")
def moved_functions(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``nn.utils.weight_norm(...)`` and ``torch.qr(...)``, deprecated since 0.3.

    ## What it does
    Flags calls that resolve to ``torch.nn.utils.weight_norm`` through the file's
    imports (``nn.utils.weight_norm(nn.Conv1d(...))``, ``from torch.nn.utils import
    weight_norm``), and calls of ``torch.qr(A)`` and of ``A.qr()`` where ``A`` is
    evidently a tensor (see "How values are followed" in docs/how-it-works.md).
    Position: the call.  ``torch.nn.utils.parametrizations.weight_norm``,
    ``torch.linalg.qr``, numpy's and a project's own ``qr`` or ``weight_norm`` are
    left alone.

    ## Why is this bad?
    Both are PyTorch 0.3 functions that moved.  On PyTorch 2.13
    ``nn.utils.weight_norm`` warns ``FutureWarning: `torch.nn.utils.weight_norm` is
    deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`.`` at each
    call, and the first ``torch.qr`` (or ``Tensor.qr``) of a process warns
    ``UserWarning: torch.qr is deprecated in favor of torch.linalg.qr and will be
    removed in a future PyTorch release.``  The new functions compute the same
    numbers (checked on 2.13: a ``Linear`` under either weight norm gives the
    same outputs from the same seed, its parameters in the same order).

    ## Example
    ```python
    conv = nn.utils.weight_norm(nn.Conv1d(16, 16, 3))
    q, r = torch.qr(a)
    ```

    Use instead:
    ```python
    conv = torch.nn.utils.parametrizations.weight_norm(nn.Conv1d(16, 16, 3))
    q, r = torch.linalg.qr(a)
    ```

    ## Fix safety
    ``torch.qr(A)`` and ``A.qr()`` become ``torch.linalg.qr(A)`` (``some=False``:
    ``mode='complete'``): *safe*, the same results; with another ``some`` the
    message only.  The ``weight_norm`` fix is *unsafe*: the module's parameters
    are renamed (``weight_g`` and ``weight_v`` become
    ``parametrizations.weight.original0`` and ``original1``), so code that reads
    ``.weight_g``, ``nn.utils.remove_weight_norm`` (now
    ``torch.nn.utils.parametrize.remove_parametrizations(m, 'weight')``) and
    state dicts saved under the old names no longer fit.  Where a string of the
    project names the old function (a ``mock.patch`` target), the fix is unsafe
    and the message says where.  Where the file or a module of the project saves a
    whole ``nn.Module`` (``torch.save(model, f)``), the message says so and there
    is no fix: on 2.13 ``torch.save`` of a module holding a parametrized one raises
    ``RuntimeError: Serialization of parametrized modules is only supported
    through state_dict()``.
    """
    qualname = ctx.resolve(node.func)
    if qualname not in _WEIGHT_NORM_NAMES:
        if isinstance(node.func, (ast.Attribute, ast.Name)) and (
                node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "qr":
            report = _qr(ctx, node, qualname)
            if report is not None:
                yield report
        return
    src = ctx.source
    torch, imports = torch_name(ctx)
    new = f"{torch}.nn.utils.parametrizations.weight_norm"
    fix = None
    if "\n" not in src.text(node.func) and not has_comment(src.text(node.func)):
        fix = Fix((src.replace(node.func, new),), UNSAFE, imports)
    fix, message = patched_elsewhere(
        ctx, fix, "torch.nn.utils", "weight_norm",
        f"`{src.quote(node.func)}` is deprecated since PyTorch 2.1 (FutureWarning on 2.13); "
        f"use `{new}` (it names the parameters `parametrizations.weight.original0`/`1`, "
        f"not `weight_g`/`weight_v`)")
    saved = whole_module_save(ctx)
    if saved is not None:  # (a parametrized module cannot be pickled whole)
        fix = None
        message += (f"; but `{saved}` saves a whole model with `torch.save`, which refuses "
                    f"a parametrized module (RuntimeError): save its `state_dict()` there, "
                    f"and load it back with `load_state_dict`")
    yield Report(node, message, fix)
