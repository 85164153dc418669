"""Intra-function data-flow facts, shared by the rules that need evidence about values.

A :class:`Flow` is computed lazily, at most once per function (or module body),
by one walk over that body that does not enter nested functions or classes.
Expressions are keyed by their dotted spelling (``loss``, ``self.loss``); other
expressions have no key and no facts.
"""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Set


def key(node: ast.AST) -> Optional[str]:
    """``"a.b.c"`` for a ``Name``/``Attribute`` chain, else ``None``."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def body_nodes(scope_node: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function's (or module's) own body, nested scopes excluded."""
    if isinstance(scope_node, ast.Lambda):
        stack: List[ast.AST] = [scope_node.body]
    else:
        stack = list(reversed(getattr(scope_node, "body", [])))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


class Flow:
    """Facts about the names of one function body.

    - ``assigned[k]``: the value nodes assigned to ``k`` (``=``, ``+=``, ``:=``),
      in source order;
    - ``backward``: keys on which ``.backward(...)`` is called;
    - ``requires_grad``: keys that were ``.requires_grad_()``-ed or had
      ``.requires_grad = True`` set.
    """

    def __init__(self, scope_node: ast.AST, ctx=None) -> None:
        self.node = scope_node
        self.assigned: Dict[str, List[ast.AST]] = {}
        self.backward: Set[str] = set()
        self.requires_grad: Set[str] = set()
        for node in body_nodes(scope_node):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._assign(target, node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
                if node.value is not None:
                    self._assign(node.target, node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                attr = node.func.attr
                if attr == "backward":
                    k = key(node.func.value)
                    if k:
                        self.backward.add(k)
                elif attr == "requires_grad_":
                    k = key(node.func.value)
                    if k:
                        self.requires_grad.add(k)
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and target.attr == "requires_grad"
                        and isinstance(node.value, ast.Constant)
                        and node.value.value is True
                    ):
                        k = key(target.value)
                        if k:
                            self.requires_grad.add(k)

    def _assign(self, target: ast.AST, value: ast.AST) -> None:
        k = key(target)
        if k is not None:
            self.assigned.setdefault(k, []).append(value)

    def values(self, node: ast.AST) -> List[ast.AST]:
        k = key(node)
        return self.assigned.get(k, []) if k else []
