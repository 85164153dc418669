"""TV147: ``zero_grad()`` in 0.3 code that shares gradient tensors between parameters."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.era import file_is_legacy
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.lines import lines_matching
from ..analysis.nodes import walk_hits
from ..analysis.registry import rule
from ..analysis.values import DICT, LIST, NDARRAY, NUMBER, STRING, TENSOR, TUPLE, values
from . import TABLE
from .shared.calls import append_arguments

#: value kinds that have no ``zero_grad``: a receiver of one of them is not torch's
_NOT_RECEIVERS = frozenset((TENSOR, NUMBER, NDARRAY, LIST, DICT, STRING, TUPLE))
_GRADS = ("grad", "_grad")
#: a line that may assign a gradient (the rule's ``requires`` pattern, in ``rules.TABLE``)
_ASSIGNS_GRAD = re.compile(TABLE["TV147"][3][0])


def _aliasing(ctx: Context) -> Optional[ast.Assign]:
    """The first assignment in the file that makes a parameter's gradient the
    tensor another parameter's gradient is (``shared_param._grad = param.grad``),
    or ``None`` (looked for once per file)."""
    memo = ctx.memo
    if "TV147 alias" not in memo:
        found = None
        hits = lines_matching(ctx.text, _ASSIGNS_GRAD)  # (only the lines that may assign one)
        for node in walk_hits(ctx.tree, hits):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], ast.Attribute) and node.targets[0].attr in _GRADS \
                    and isinstance(node.value, ast.Attribute) and node.value.attr in _GRADS:
                if found is None or (node.lineno, node.col_offset) < (found.lineno,
                                                                      found.col_offset):
                    found = node
        memo["TV147 alias"] = found
    return memo["TV147 alias"]  # type: ignore[return-value]


def _own_zero_grad(ctx: Context) -> bool:
    """Whether a function of the file is named ``zero_grad`` (a class's own, whose
    parameters are not torch's)."""
    memo = ctx.memo
    if "TV147 own" not in memo:
        memo["TV147 own"] = any(
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "zero_grad"
            for node in walk_hits(ctx.tree, lines_matching(ctx.text, "zero_grad")))
    return bool(memo["TV147 own"])


@rule("TV147")
def shared_gradients(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``zero_grad()`` in 0.3 code that shares gradient tensors between parameters.

    ## What it does
    In 0.3 code (the file itself shows 0.3 idioms, or the configuration says
    so: see ``analysis/era.py``; the file that shares the gradients is the
    one whose era counts), flags ``X.zero_grad()`` called without
    ``set_to_none`` (an optimizer's or a module's) in a file that makes one
    parameter's gradient the very tensor of another's: ``shared_param._grad =
    param.grad``, the A3C idiom copied into most asynchronous actor-critic
    code of 2017 (``ensure_shared_grads``).  Not flagged: a file without such
    an assignment (a copy, ``param.grad.clone()``, shares nothing), a receiver
    the value facts know to be no optimizer or module, a file that defines a
    ``zero_grad`` of its own, and code written for 0.4 and later.  The
    assignment must be in the same file as the call.  Position: the call.

    ## Why is this bad?
    PyTorch 0.3 (and every version before 2.0) zeroed the gradients in place.
    Since 2.0 ``zero_grad()`` defaults to ``set_to_none=True``: each gradient
    becomes ``None``.  Where the shared model's gradient *is* the worker's
    gradient tensor, 0.3's ``optimizer.zero_grad()`` on the shared parameters
    also zeroed the worker's gradients; now it only drops the shared
    references, the worker's gradients keep accumulating from one update to
    the next, and the shared model is trained on their running sum: other
    numbers, without an error or a warning.

    ## Example
    ```python
    def ensure_shared_grads(model, shared_model):
        for param, shared_param in zip(model.parameters(), shared_model.parameters()):
            if shared_param.grad is not None:
                return
            shared_param._grad = param.grad

    optimizer.zero_grad()
    loss.backward()
    ensure_shared_grads(model, shared_model)
    optimizer.step()
    ```

    Use instead:
    ```python
    optimizer.zero_grad(set_to_none=False)
    loss.backward()
    ensure_shared_grads(model, shared_model)
    optimizer.step()
    ```

    ## Fix safety
    ``set_to_none=False`` zeroes the gradients in place, as every PyTorch
    before 2.0 did: the fix is *safe* (the same numbers as 0.3; gradients
    that were ``None`` stay ``None``).
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "zero_grad") \
            or node.args or node.keywords:
        return  # (``zero_grad(set_to_none=...)``: the code says what it wants)
    if ctx.resolve(func) is not None:
        return  # (a module's function, not a method)
    alias = _aliasing(ctx)
    if alias is None or _own_zero_grad(ctx) or not file_is_legacy(ctx):
        return
    if values(ctx).of(func.value).kind in _NOT_RECEIVERS:
        return
    src = ctx.source
    receiver = src.quote(func.value, 30)
    edit = append_arguments(ctx, node, "set_to_none=False")
    yield Report(
        node,
        f"`{receiver}.zero_grad()` sets the gradients to None since PyTorch 2.0 (0.3 zeroed "
        f"them in place), and this file shares gradient tensors (`{src.quote(alias, 40)}`, "
        f"line {alias.lineno}): the shared ones are no longer zeroed and accumulate "
        f"across updates; use `{receiver}.zero_grad(set_to_none=False)`",
        Fix((edit,), SAFE) if edit is not None else None,
    )
