"""The exact value of an integer written as a constant somewhere and read elsewhere:
``layers = 1`` then ``nn.LSTM(n, m, layers)``, or a parameter every call of its
function passes ``1`` for (the calls of the file and of the project's modules, as
:func:`.callers.passed_arguments` finds them; the default where a call leaves it).

The value facts (:mod:`.values`) say *that* a value is an int; this says *which*,
where every binding that reaches the read agrees on one.  Anything else (an
argument parsed from the command line, an attribute, arithmetic) is unknown.
"""
from __future__ import annotations

import ast
from typing import Optional, Set

from .callers import passed_arguments
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
