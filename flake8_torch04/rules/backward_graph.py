"""TV173: autograd run inside a Function's ``backward``, which records no graph since 0.4."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit
from .shared.functions import function_subclass, static

_GRAD = frozenset(("torch.autograd.grad", "torch.autograd.backward"))
#: what turns grad mode on already
_ENABLED = re.compile(r"\benable_grad\b|\bset_grad_enabled\b")


@rule("TV173")
def backward_graph(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags autograd run inside a ``torch.autograd.Function``'s ``backward``.

    ## What it does
    Flags ``torch.autograd.grad(...)``, ``torch.autograd.backward(...)`` and
    ``y.backward(...)`` called in the ``backward`` static method of a subclass of
    ``torch.autograd.Function`` (resolved through imports; also through a class of
    the file or of the project), or in another static method of the class that its
    ``backward`` calls (``RevBlock._grad(...)``): a Function that recomputes its
    forward pass to save memory (a reversible network, a checkpoint of its own)
    and differentiates it there.  Not flagged where grad mode is turned on
    already: the function or its ``backward`` says ``enable_grad`` or
    ``set_grad_enabled``.  Position: the call.

    ## Why is this bad?
    PyTorch 0.3 ran a new-style Function's ``backward`` on Variables with the
    graph recorded, so a ``backward`` could rebuild part of the graph and call
    ``torch.autograd.grad`` on it.  Since 0.4 autograd runs ``backward`` in grad
    mode only when the outer call asks for ``create_graph=True``: the rebuilt
    computation records nothing, and on 2.13 the call raises ``RuntimeError:
    element 0 of tensors does not require grad and does not have a grad_fn``.

    ## Example
    ```python
    class Rev(Function):
        @staticmethod
        def backward(ctx, dy):
            x, = ctx.saved_tensors
            x = x.detach().requires_grad_()
            y = f(x)
            return torch.autograd.grad(y, x, dy)
    ```

    Use instead:
    ```python
    class Rev(Function):
        @staticmethod
        @torch.enable_grad()
        def backward(ctx, dy):
            ...
    ```

    ## Fix safety
    The fix decorates the function that runs autograd with ``@torch.enable_grad()``
    (below its other decorators): *safe*, it records the graph 0.3 recorded there,
    and the gradients are the same numbers.
    """
    func = node.func
    name = ctx.resolve(func)
    if name not in _GRAD and not (
            isinstance(func, ast.Attribute) and func.attr == "backward" and name is None):
        return
    method = _method_of(ctx)
    if method is None:
        return
    src = ctx.source
    if _enabled(src, method):
        return
    cls = ctx.statement_parents().get(id(method))
    if not isinstance(cls, ast.ClassDef) or not function_subclass(ctx, cls):
        return
    if method.name != "backward":
        backward = next((s for s in cls.body if isinstance(s, ast.FunctionDef)
                         and s.name == "backward" and static(s)), None)
        if backward is None or f".{method.name}(" not in src.text(backward).replace(" ", "") \
                or _enabled(src, backward):
            return
    from .type_comparison import torch_name

    torch, imports = torch_name(ctx)
    at = (method.lineno, src.char_col(method.lineno, method.col_offset))
    indent = src.lines[method.lineno - 1][:at[1]]
    where = f"`{cls.name}.backward`" if method.name == "backward" else \
        f"`{cls.name}.{method.name}` (called by its `backward`)"
    yield Report(
        node,
        f"`{src.quote(node, 30)}` in {where} builds no graph since PyTorch 0.4 (a Function's "
        f"backward runs without grad mode; 0.3 recorded it), so it raises RuntimeError; "
        f"decorate `{method.name}` with `@{torch}.enable_grad()`",
        Fix((Edit(at, at, f"@{torch}.enable_grad()\n{indent}"),), SAFE, imports)
        if not indent.strip() else None,
    )


def _method_of(ctx: Context) -> Optional[ast.FunctionDef]:
    """The static method the node visited is in (not in a nested function)."""
    scope = ctx.scope.function()
    if scope is None or ctx.scope.kind != "function":
        return None
    func = scope.node
    if not isinstance(func, ast.FunctionDef) or not static(func):
        return None
    return func


def _enabled(src, func: ast.FunctionDef) -> bool:
    """``func`` or its decorators turn grad mode on (``enable_grad``, ``set_grad_enabled``)."""
    return bool(_ENABLED.search(src.text(func))) or any(
        _ENABLED.search(src.text(d)) for d in func.decorator_list)
