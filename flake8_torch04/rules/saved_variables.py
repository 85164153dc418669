"""TV127: ``ctx.saved_variables`` and ``nn.Container``."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import rename

_FUNCTION = "torch.autograd.Function"
_FUNCTION_NAMES = (_FUNCTION, "torch.autograd.function.Function")
_CONTAINER = ("torch.nn.Container", "torch.nn.modules.container.Container",
              "torch.nn.modules.Container")


def _static_ctx(ctx: Context, name: ast.Name) -> bool:
    """``name`` is the first parameter of a ``@staticmethod`` of a subclass of
    torch's ``Function`` (a new-style Function's ``ctx``)."""
    scope = ctx.scope.function()
    if scope is None or ctx.scope.kind != "function":
        return False
    func = scope.node
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    params = func.args.posonlyargs + func.args.args
    if not params or params[0].arg != name.id:
        return False
    if not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list):
        return False
    parent = scope.parent
    if parent is None or parent.kind != "class":
        return False
    return any(_resolves_to(parent, base, _FUNCTION_NAMES) for base in parent.node.bases)


def _resolves_to(scope, node: ast.AST, names) -> bool:
    from ..analysis.resolve import resolve

    return resolve(node, scope) in names


def _init_passes_arguments(cls: ast.ClassDef) -> bool:
    """An ``__init__`` call in the class that passes anything to the base."""
    for node in ast.walk(cls):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "__init__"):
            explicit = not (isinstance(node.func.value, ast.Call)
                            and isinstance(node.func.value.func, ast.Name)
                            and node.func.value.func.id == "super")
            if node.keywords or len(node.args) > (1 if explicit else 0):
                return True
    return False


@rule("TV127")
def saved_variables(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``ctx.saved_variables`` in a new-style Function and ``nn.Container``.

    ## What it does
    Flags ``ctx.saved_variables`` where ``ctx`` is the first parameter of a
    ``@staticmethod`` of a class derived from torch's ``autograd.Function``
    (position: the attribute), and ``nn.Container`` resolved through imports,
    as a base class or a call (position: the name).  ``self.saved_variables``
    of an old-style Function is TV104's, and a project's own ``Container`` is
    left alone.

    ## Why is this bad?
    Both names are leftovers of PyTorch 0.3.  On PyTorch 2.13 reading
    ``ctx.saved_variables`` warns ``DeprecationWarning: 'saved_variables' is
    deprecated; use 'saved_tensors'``, and building an ``nn.Container`` warns
    ``FutureWarning: `nn.Container` is deprecated. All of its functionality is
    now implemented in `nn.Module`. Subclass that instead.``

    ## Example
    ```python
    class Net(nn.Container):
        ...
    input, weight = ctx.saved_variables
    ```

    Use instead:
    ```python
    class Net(nn.Module):
        ...
    input, weight = ctx.saved_tensors
    ```

    ## Fix safety
    Both fixes are *safe*: ``saved_variables`` returns ``saved_tensors``, and
    ``Container`` is an ``nn.Module`` whose ``__init__`` only warns and adds the
    keyword arguments it is given as submodules.  So ``nn.Container(a=m)``
    gets no fix (``nn.Module`` takes no such arguments), and the base-class
    fix is *unsafe* when the class passes arguments to the base ``__init__``.
    """
    if isinstance(node, ast.Attribute) and node.attr == "saved_variables":
        if isinstance(node.value, ast.Name) and _static_ctx(ctx, node.value):
            src = ctx.source
            made = rename(ctx, node, "saved_tensors", "")
            fix = Fix((made[0],), SAFE) if made is not None else None
            yield Report(node, f"`{src.quote(node)}` is deprecated since PyTorch 0.4 "
                               f"(DeprecationWarning on 2.13); use "
                               f"`{src.text(node.value)}.saved_tensors`", fix)
        return
    if not isinstance(node.ctx, ast.Load) or ctx.resolve(node) not in _CONTAINER:
        return
    if isinstance(node, ast.Name) and isinstance(ctx.parent, ast.Attribute):
        return  # the head of a longer name
    report = _container(ctx, node)
    if report is not None:
        yield report


def _container(ctx: Context, node: ast.AST) -> Optional[Report]:
    parent = ctx.parent
    src = ctx.source
    message = (f"`{src.quote(node)}` is a pre-0.4 name (FutureWarning on "
               "2.13); use `nn.Module`")
    safety: Optional[str] = SAFE
    if isinstance(parent, ast.Call) and parent.func is node:
        if parent.args or parent.keywords:
            return Report(node, message + " and `add_module()` for each submodule")
    elif isinstance(parent, ast.ClassDef) and node in parent.bases:
        if _init_passes_arguments(parent):
            safety = UNSAFE
    else:
        return None  # a reference (``{nn.Module, nn.Container}``) builds nothing
    made = rename(ctx, node, "Module", "torch.nn")
    fix = Fix((made[0],), safety, made[1]) if made is not None and safety else None
    return Report(node, message, fix)
