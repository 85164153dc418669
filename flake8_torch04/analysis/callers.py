"""Who calls a function of the file, and with what: the arguments that reach a
parameter (for the value facts, :mod:`.values`).

A parameter's value is known only where every caller is in view: the function
is defined once at the top of the module, undecorated, and its name is never
read but as the callee of a plain call (not passed as a callback, stored, or
rebound), and no other file of the project spells its name (asked of
:func:`~.project.importers.named_elsewhere`).  Methods are not followed:
``obj.method(...)`` may call another class's.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from .nodes import children
from .reaching import params_of

#: one call site: (the call, the scope the call is read in: a function or the module)
Site = Tuple[ast.Call, ast.AST]
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: scopes whose calls are not followed
_OPAQUE = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Callers:
    """The call sites of the file's module-level functions (one walk per file)."""

    def __init__(self, tree: ast.AST, defined: Dict[str, ast.AST]) -> None:
        self.tree = tree
        self.defined = defined  # (the file's functions and classes defined once)
        self._sites: Optional[Dict[str, Optional[List[Site]]]] = None

    def sites(self, func: ast.AST) -> Optional[List[Site]]:
        """Every call of the module-level function ``func``, or ``None`` when not
        every use of its name is in view as a plain call."""
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or func.decorator_list or self.defined.get(func.name) is not func:
            return None
        if self._sites is None:
            self._sites = self._index()
        return self._sites.get(func.name)

    def _index(self) -> Dict[str, Optional[List[Site]]]:
        sites: Dict[str, Optional[List[Site]]] = {
            name: [] for name, d in self.defined.items() if not isinstance(d, ast.ClassDef)}
        tree = self.tree
        # (node, its parent, the function or module a call in it is read in:
        # ``None`` inside a lambda, a comprehension or a class body, scopes the
        # value facts do not follow)
        stack: List[tuple] = [(tree, None, tree)]
        while stack:
            node, parent, scope = stack.pop()
            cls = node.__class__
            if cls is ast.Name:
                found = sites.get(node.id, ())
                if found is None or found == ():
                    continue
                if node.ctx.__class__ is ast.Load and parent.__class__ is ast.Call \
                        and parent.func is node and scope is not None:
                    found.append((parent, scope))
                else:
                    sites[node.id] = None  # (read otherwise, or rebound)
                continue
            if cls is ast.alias:
                bound = (node.asname or node.name).split(".")[0]
                if bound in sites:
                    sites[bound] = None  # (an import rebinds it)
                continue
            if cls is ast.Global or cls is ast.Nonlocal:
                for name in node.names:
                    sites.pop(name, None)
                    sites[name] = None
            elif cls in _DEFINITIONS:
                if node.name in sites and parent is not tree:
                    sites[node.name] = None  # (a nested definition shadows it somewhere)
                scope = node if cls is not ast.ClassDef else None
            elif cls in _OPAQUE:
                scope = None
            stack += [(child, node, scope) for child in reversed(children(node))]
        return sites


def argument(call: ast.Call, func: ast.AST,
             param: ast.arg) -> Optional[Tuple[ast.AST, bool]]:
    """The expression ``call`` passes for ``param`` of ``func``, and whether it is
    the parameter's default (read at the top of the module) because the call
    passes none; ``None`` when that is not evident (``*args``, ``**kw``)."""
    if any(isinstance(a, ast.Starred) for a in call.args) \
            or any(kw.arg is None for kw in call.keywords):
        return None
    args = func.args  # type: ignore[attr-defined]
    positional = [*getattr(args, "posonlyargs", []), *args.args]
    if param not in params_of(func) or param is args.vararg or param is args.kwarg:
        return None
    if param in positional:
        i = positional.index(param)
        if i < len(call.args):
            return call.args[i], False
        defaults = args.defaults
        first_default = len(positional) - len(defaults)
        default = defaults[i - first_default] if i >= first_default else None
    else:
        i = args.kwonlyargs.index(param)
        default = args.kw_defaults[i]
    if len(call.args) > len(positional):
        return None  # (more positionals than parameters: not this function's call)
    for kw in call.keywords:
        if kw.arg == param.arg:
            return kw.value, False
    return (default, True) if default is not None else None


def reaching_arguments(ctx, param: ast.arg, func: ast.AST) -> Optional[List[Site]]:
    """What reaches ``param`` of ``func`` from every caller: ``(expression, scope to
    read it in)`` per call site (a default is read at the top of the module), or
    ``None`` when not every caller is in view (see the module's docstring)."""
    from .project.importers import named_elsewhere

    name = getattr(func, "name", None)
    if name is None or ctx.defined_once().get(name) is not func:
        return None
    if ctx.filename and named_elsewhere(ctx.filename, name):
        return None  # (another module may import it: its callers are not in view)
    callers = ctx.memo.get("callers")
    if callers is None:
        callers = ctx.memo["callers"] = Callers(ctx.tree, ctx.defined_once())
    sites = callers.sites(func)
    if not sites:
        return None
    found: List[Site] = []
    for call, scope in sites:
        got = argument(call, func, param)
        if got is None:
            return None
        expr, default = got
        found.append((expr, ctx.tree if default else scope))  # type: ignore[arg-type]
    return found
