"""Where a ``volatile=`` took effect when the ``Variable`` it is given to is not
used where it is made (TV001, TV002): a helper that takes ``volatile`` as a
parameter (:func:`never_true`: no caller passes a true one; :func:`true_callers`:
the functions that do), a function or iterator that hands the value back
(:func:`handed_back_advice`), a lambda, whose body runs where it is called
(:func:`lambda_around`, :func:`lambda_calls`).  0.3's ``volatile`` took effect
where the model ran on the value: a ``no_grad`` region at the constructor of a
fresh tensor does nothing."""
from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from ...analysis.callers import reaching_arguments
from ...analysis.context import Context
from ...analysis.grad import decorated_grad_off
from ...analysis.nodes import innermost
from ...analysis.reaching import params_of

#: methods that hand out a data loader's batches
_ITERATOR_METHODS = frozenset(("__iter__", "__next__", "next", "__getitem__"))


def volatile_parameter(ctx: Context, value: ast.AST) -> Optional[Tuple[ast.AST, ast.arg]]:
    """``(function, parameter)`` where ``value`` reads a parameter of the ``def``
    around the node that nothing in it rebinds before (``volatile=volatile``)."""
    if not isinstance(value, ast.Name):
        return None
    scope = ctx.scope.function()
    func = scope.node if scope is not None else None
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    param = next((a for a in params_of(func) if a.arg == value.id), None)
    if param is None or param is func.args.vararg or param is func.args.kwarg:
        return None
    defs = ctx.flow().reaching(value)
    if not defs or any(d.kind != "param" for d in defs):
        return None
    return func, param


def _passed(ctx: Context, value: ast.AST) -> Optional[Tuple[ast.AST, list]]:
    """The function whose parameter ``value`` reads, and what every call of it
    passes there (see :func:`~flake8_torch04.analysis.callers.reaching_arguments`)."""
    found = volatile_parameter(ctx, value)
    if found is None:
        return None
    func, param = found
    sites = reaching_arguments(ctx, param, func)
    return (func, sites) if sites else None


def _constant(expr: ast.AST, value: bool) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is value


def never_true(ctx: Context, value: ast.AST) -> Optional[str]:
    """The name of the helper whose parameter ``value`` reads, where every call of
    it is in view (in the file; no other file of the project can name it) and
    passes ``False`` or nothing (a default ``False``): ``volatile=volatile``
    then never did anything."""
    found = _passed(ctx, value)
    if found is None:
        return None
    func, sites = found
    if all(_constant(expr, False) for expr, _ in sites):
        return func.name  # type: ignore[attr-defined]
    return None


def true_callers(ctx: Context, value: ast.AST) -> List[str]:
    """The functions (``the top level of the module``) whose calls of the helper
    pass ``True`` for the parameter ``value`` reads, where every call is in view
    and passes a constant, but those already decorated ``@torch.no_grad()`` (by an
    earlier fix of the same run, or by their author); else none."""
    names: List[str] = []
    for scope in _true_scopes(ctx, value) or ():
        if not decorated_grad_off(scope, ctx.resolve):
            name = f"`{scope.name}()`" if hasattr(scope, "name") else "the module's top level"
            if name not in names:
                names.append(name)
    return names


def callers_without_grad(ctx: Context, value: ast.AST) -> bool:
    """Whether some call of the helper passes ``True`` for the parameter ``value``
    reads, every call is in view and passes a constant, and every one that passes
    ``True`` is in a function decorated ``@torch.no_grad()``."""
    scopes = _true_scopes(ctx, value)
    return bool(scopes) and all(decorated_grad_off(s, ctx.resolve) for s in scopes)


def _true_scopes(ctx: Context, value: ast.AST) -> Optional[List[ast.AST]]:
    """The functions (or the module) of the calls that pass ``True`` for the
    parameter ``value`` reads, where every call is in view and passes a constant."""
    found = _passed(ctx, value)
    if found is None or not all(_constant(expr, True) or _constant(expr, False)
                                for expr, _ in found[1]):
        return None
    return [scope for expr, scope in found[1] if _constant(expr, True)]


def handed_back_advice(ctx: Context, function: ast.AST, condition: str = "") -> str:
    """The advice for a ``volatile=`` given to a ``Variable`` that ``function``
    hands back: the code that uses it is elsewhere (a data loader's batches, a
    helper's result)."""
    name = function.name  # type: ignore[attr-defined]
    where = f"where {condition}, " if condition else ""
    if _iterator(ctx, function):
        what = "these batches"
    else:
        what = f"what `{name}()` returns"
    return (f"`{name}()` hands the value back, so a region here would do nothing: "
            f"{where}run the code that uses {what} under `with torch.no_grad():`")


def _iterator(ctx: Context, function: ast.AST) -> bool:
    """Whether ``function`` makes a data loader's batches: it (or a function
    around it) is a generator or an iterator's ``__next__``/``__iter__``, or a
    method of a class that defines one."""
    from ...analysis.nodes import NESTED

    around = [p for p in ctx.parents if isinstance(p, NESTED)]
    for node in around:
        if isinstance(node, ast.ClassDef):
            if any(getattr(s, "name", None) in _ITERATOR_METHODS for s in node.body):
                return True
        elif getattr(node, "name", None) in _ITERATOR_METHODS:
            return True
    if isinstance(function, ast.FunctionDef):
        from .escapes import function_body

        return any(isinstance(n, (ast.Yield, ast.YieldFrom))
                   for n in function_body(ctx, function)[0])
    return False


def lambda_around(ctx: Context) -> Optional[ast.Lambda]:
    """The innermost ``lambda`` around the node in its function (or module)."""
    return innermost(ctx.parents, ast.Lambda,
                     (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))  # type: ignore


def lambda_calls(ctx: Context, lam: ast.Lambda, condition: str = "") -> str:
    """The advice for a ``volatile=`` inside ``lam``: its body runs where it is
    called, not where it is defined; its calls are named where the lambda is
    bound to a name (``pad = lambda x: ...``)."""
    parents = list(ctx.parents)
    holder = parents[parents.index(lam) - 1] if lam in parents and parents.index(lam) else None
    calls = "the code that calls the lambda"
    if isinstance(holder, ast.Assign) and holder.value is lam and len(holder.targets) == 1 \
            and isinstance(holder.targets[0], ast.Name):
        calls = f"the calls of `{holder.targets[0].id}`"
    where = f"where {condition}, " if condition else ""
    return (f"the lambda's body runs where it is called, not where it is defined: "
            f"{where}run {calls} under `with torch.no_grad():`")
