"""The exact value of an integer written as a constant somewhere and read elsewhere:
``layers = 1`` then ``nn.LSTM(n, m, layers)``, or a parameter every call of its
function passes ``1`` for (the calls of the file and of the project's modules, as
:func:`.callers.passed_arguments` finds them; the default where a call leaves it).

The value facts (:mod:`.values`) say *that* a value is an int; this says *which*,
where every binding that reaches the read agrees on one.  Anything else (an
argument parsed from the command line, an attribute, arithmetic) is unknown.

:func:`may_hold` asks the other question: whether *some* run evidently gives the
read a given int, and where it comes from: a binding of the literal, a parameter
whose default is that int (where a call leaves it, or where not every caller is
in view: the signature says it is the usual value), a call passing it, or a
command-line option (``add_argument('--layers', type=int, default=1)``, read as
``args.layers``; :func:`.options.option_default`).
"""
from __future__ import annotations

import ast
from typing import Optional, Set

from .callers import default_of, passed_arguments
from .free import enclosing_bindings

#: steps through assignments and calls before the answer is "unknown"
_DEPTH = 8


def int_value(ctx, node: ast.AST, scope: Optional[ast.AST] = None) -> Optional[int]:
    """The int ``node`` evidently holds, read in ``scope`` (the function being
    visited by default), or ``None``."""
    return _value(ctx, node, scope, 0)


def _value(ctx, node: ast.AST, scope, depth: int) -> Optional[int]:
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    if not isinstance(node, ast.Name) or depth >= _DEPTH:
        return None
    flow = ctx.flow() if scope is None else ctx.flow_of(scope)
    defs = flow.reaching(node)
    where = flow.node
    if defs is not None and not defs:  # (a name of the module, or of a function around)
        found = enclosing_bindings(ctx, node, flow)
        if found is None:
            return None
        where, defs = found
    if not defs:
        return None
    seen: Set[int] = set()
    for d in defs:
        if d.kind == "assign" and d.value is not None:
            got = _value(ctx, d.value, where, depth + 1)
        elif d.kind == "param":
            sites = passed_arguments(ctx, d.node, where)
            if not sites:
                return None
            got = _agreed([_value(other, expr, at, depth + 1) for other, expr, at in sites])
        else:
            return None
        if got is None:
            return None
        seen.add(got)
    return _agreed(list(seen))


def _agreed(found: list) -> Optional[int]:
    return found[0] if found and None not in found and len(set(found)) == 1 else None


def may_hold(ctx, node: ast.AST, wanted: int, scope: Optional[ast.AST] = None) -> Optional[str]:
    """Where ``node`` (read in ``scope``, the function being visited by default)
    evidently holds ``wanted`` in some run: a short phrase naming the source, for a
    message, or ``None`` (see the module's docstring)."""
    return _may(ctx, node, wanted, scope, 0)


def _may(ctx, node: ast.AST, wanted: int, scope, depth: int) -> Optional[str]:
    if isinstance(node, ast.Constant):
        return "written" if type(node.value) is int and node.value == wanted else None
    if depth >= _DEPTH:
        return None
    if isinstance(node, ast.Attribute):
        return _option(ctx, node, wanted, scope)
    if not isinstance(node, ast.Name):
        return None
    flow = ctx.flow() if scope is None else ctx.flow_of(scope)
    defs = flow.reaching(node)
    where = flow.node
    if defs is not None and not defs:
        found = enclosing_bindings(ctx, node, flow)
        if found is None:
            return None
        where, defs = found
    for d in defs or ():
        if d.kind == "assign" and d.value is not None:
            got = _may(ctx, d.value, wanted, where, depth + 1)
            got = f"`{node.id} = {wanted}`" if got == "written" else got
        elif d.kind == "param" and isinstance(d.node, ast.arg):
            got = _param(ctx, d.node, where, wanted, depth)
        else:
            got = None
        if got is not None:
            return got
    return None


def _param(ctx, param: ast.arg, func: ast.AST, wanted: int, depth: int) -> Optional[str]:
    sites = passed_arguments(ctx, param, func)
    if sites is None:  # (not every caller in view: the default is the usual value)
        default = default_of(func, param)
        return f"`{param.arg}` defaults to {wanted}" if isinstance(default, ast.Constant) \
            and type(default.value) is int and default.value == wanted else None
    for other, expr, at in sites:
        got = _may(other, expr, wanted, at, depth + 1)
        if got is not None:
            return got if got != "written" else f"a call passes {wanted} for `{param.arg}`"
    return None


def _option(ctx, node: ast.Attribute, wanted: int, scope) -> Optional[str]:
    from .objects import NAMESPACE, OBJECT
    from .options import option_default
    from .values import values

    owner = values(ctx).of(node.value, scope)
    if owner.kind == OBJECT and owner.name == NAMESPACE \
            and option_default(owner, node.attr) == wanted:
        return f"the option `{node.attr}` defaults to {wanted}"
    return None
