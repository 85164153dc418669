"""Whether a value leaves the function that makes it: returned, yielded, stored
in an attribute, an item or a container, bound to a ``global`` (TV002 asks it
of the ``Variable`` a ``volatile=`` is given to: a region or a decorator there
would end before the code that uses the value)."""
from __future__ import annotations

import ast
from typing import List, Set, Tuple

from ...analysis.context import Context

#: nodes through which a value stays the same tensor (or a container of it)
CARRIERS = (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred, ast.IfExp, ast.ListComp,
            ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension)
STORES = frozenset(("append", "extend", "insert", "add", "appendleft", "put", "setdefault",
                    "update", "setattr"))


def handed_back(ctx: Context, function: ast.AST, call: ast.Call) -> bool:
    """Whether the ``Variable`` ``call`` makes leaves ``function`` (returned, stored)."""
    nodes, parents = function_body(ctx, function)
    return escapes(call, parents, escaping_names(nodes))


def returned(ctx: Context, function: ast.AST, call: ast.Call) -> bool:
    """Whether ``function`` returns or yields the ``Variable`` ``call`` makes (as it
    is, in a tuple or a list, or through a name bound to it): a helper's result,
    a batch iterator's batch."""
    nodes, parents = function_body(ctx, function)
    cache = ctx.memo.setdefault("returned names", {})
    names = cache.get(id(function))  # type: ignore[union-attr]
    if names is None:
        names = cache[id(function)] = set()  # type: ignore[index]
        for sub in nodes:
            if isinstance(sub, (ast.Return, ast.Yield, ast.YieldFrom)) and sub.value is not None:
                names.update(carried_names(sub.value))
    child: ast.AST = call
    while True:
        parent = parents.get(id(child))
        if isinstance(parent, CARRIERS) or isinstance(parent, ast.Attribute) or (
                isinstance(parent, ast.Call) and parent.func is child):
            child = parent  # (``Variable(...).cuda()``, a tuple of it)
            continue
        if isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(parent, ast.Assign) and all(names_only(t) for t in parent.targets):
            bound: Set[str] = set()
            for target in parent.targets:
                bound |= carried_names(target)
            return bool(bound & names)  # type: ignore[operator]
        return False


def function_body(ctx: Context, function: ast.AST) -> Tuple[List[ast.AST], dict]:
    """The nodes of the function's own body and ``id(node) -> parent`` for them
    (a top statement's parent is the function), made once per function."""
    from ...analysis.nodes import body_parents

    bodies = ctx.memo.setdefault("TV002-bodies", {})
    found = bodies.get(id(function))  # type: ignore[union-attr]
    if found is None:
        found = bodies[id(function)] = body_parents(function)  # type: ignore[index]
    return found  # type: ignore[no-any-return]


def escaping_names(nodes: List[ast.AST]) -> Set[str]:
    """Names whose value leaves the function as it is: returned, yielded, stored
    in an attribute, item or container, or declared ``global``/``nonlocal``
    (``nodes``: those of the function's own body)."""
    names: Set[str] = set()
    for sub in nodes:
        roots: List[ast.AST] = []
        if isinstance(sub, (ast.Global, ast.Nonlocal)):
            names.update(sub.names)  # bound here, seen outside
        elif isinstance(sub, (ast.Return, ast.Yield, ast.YieldFrom)) and sub.value is not None:
            roots.append(sub.value)
        elif isinstance(sub, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            if sub.value is not None and not all(names_only(t) for t in targets):
                roots.append(sub.value)
        elif (isinstance(sub, ast.Call) and isinstance(sub.func, (ast.Attribute, ast.Name))
              and (sub.func.attr if isinstance(sub.func, ast.Attribute) else sub.func.id)
              in STORES):
            roots.extend(sub.args)
        for root in roots:
            names.update(carried_names(root))
    return names


def names_only(target: ast.AST) -> bool:
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(names_only(elt) for elt in target.elts)
    if isinstance(target, ast.Starred):
        return names_only(target.value)
    return False


def carried_names(expr: ast.AST) -> Set[str]:
    """Names whose value ``expr`` is or holds (``x``, ``(x, y)``, ``[x]``, ``x.cuda()``)."""
    names: Set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, CARRIERS):
            stack.extend(ast.iter_child_nodes(node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            stack.append(node.func.value)  # x.cuda(), x.float(): the same tensor
        elif isinstance(node, ast.Attribute) and node.attr == "data":
            stack.append(node.value)
    return names


def escapes(call: ast.Call, parents: dict, escaped: Set[str]) -> bool:
    """Whether the wrapped value itself leaves the function (``return Variable(...)``,
    ``self.x = Variable(...)``, a bound name that does)."""
    child: ast.AST = call
    while True:
        parent = parents.get(id(child))
        if parent is None:
            return True
        if isinstance(parent, CARRIERS):
            child = parent
            continue
        if isinstance(parent, ast.Attribute):  # Variable(...).cuda()
            child = parent
            continue
        if isinstance(parent, ast.Call):
            if parent.func is child:
                child = parent
                continue
            func = parent.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            return name in STORES  # consumed by the call, unless stored
        if isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if not all(names_only(t) for t in targets):
                return True
            bound: Set[str] = set()
            for target in targets:
                bound |= carried_names(target)
            return bool(bound & escaped)
        if isinstance(parent, (ast.BinOp, ast.Compare, ast.UnaryOp, ast.BoolOp, ast.Expr,
                               ast.keyword, ast.Subscript)):
            return False
        return True
