"""Free names: what a function reads and does not bind (see :func:`free_name`)."""
from __future__ import annotations

import ast
from typing import Optional, Sequence, Tuple

#: the statements whose bodies may hold a function reading a free name
_SCOPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def free_name(values, node: ast.Name, flow, depth: int):
    """What ``node``, a name the function of ``flow`` reads but does not bind, is
    (asked by :class:`~.values.Values`): what every binding of it in the nearest
    enclosing function that binds it (a closure), or at the top of the module,
    gives, the function being possibly run after any of them; unknown where the
    function rebinds it or some function declares it global or nonlocal, or a
    binding is of another kind (a loop's, a ``with``'s...).  A class body is no
    scope of the functions in it."""
    from .values import UNKNOWN, join

    found = enclosing_bindings(values.ctx, node, flow)
    if found is None:
        return UNKNOWN
    outer, defs = found
    kinds = ("assign", "unpack", "import") + (("param",) if outer is not values.ctx.tree else ())
    if not defs or any(d.kind not in kinds for d in defs):
        return UNKNOWN
    return join([values.binding(d, outer, depth) for d in defs])


def enclosing_bindings(ctx, node: ast.Name, flow) -> Optional[Tuple[ast.AST, Sequence]]:
    """The nearest scope around the function of ``flow`` that binds ``node``'s
    name (a function, or the module), and every binding of it there; ``None``
    where the function binds it itself, some function declares it global or
    nonlocal, or a lambda or comprehension is in the way."""
    outer, parents = flow.node, ctx.statement_parents()
    if outer is ctx.tree or node.id in flow.bound or node.id in _declared(ctx):
        return None
    while outer is not ctx.tree and (outer is flow.node or isinstance(outer, ast.ClassDef)
                                     or node.id not in ctx.flow_of(outer).bound):
        outer = parents.get(id(outer))
        if not isinstance(outer, _SCOPES):
            return None  # (a lambda's, a comprehension's)
    return outer, ctx.flow_of(outer).defs(node.id)


def _declared(ctx) -> frozenset:
    """The names some ``global`` or ``nonlocal`` statement of the file declares."""
    found = ctx.memo.get("values globals")
    if found is None:
        text = ctx.text
        found = ctx.memo["values globals"] = frozenset(
            name for node in (ast.walk(ctx.tree) if "global" in text or
                              "nonlocal" in text else ())
            if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names)
    return found
