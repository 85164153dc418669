"""Detaching constructs and the keys an expression reads."""
from __future__ import annotations

import ast
from typing import Callable, Iterator, Optional

from .nodes import NESTED, children
from .resolve import key  # noqa: F401  (re-exported: the rules take it from here)

# ---------------------------------------------------------------------------
# detaching constructs and the keys an expression reads

#: methods whose result no longer carries autograd history
DETACHING_METHODS = frozenset(("item", "detach", "tolist", "numpy", "detach_"))
#: builtins whose result is a plain Python number
NUMBER_BUILTINS = frozenset(("float", "int", "bool", "len", "round"))


def detaches(node: ast.AST) -> bool:
    """``x.item()``, ``x.detach()``, ``x.data``, ``float(x)``: no history past here."""
    if isinstance(node, ast.Attribute):
        return node.attr == "data"
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr in DETACHING_METHODS
        return isinstance(func, ast.Name) and func.id in NUMBER_BUILTINS
    return False


_NOT_TENSOR_CALLS = frozenset((
    "list", "dict", "set", "tuple", "str", "bytes", "bytearray", "float", "int", "len",
    "sorted", "range", "bool", "round", "sum", "zip", "enumerate", "map", "filter",
))
_NOT_TENSOR_NODES = (
    ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.JoinedStr,
)
#: modules whose values are never torch tensors
FOREIGN_MODULES = frozenset(("numpy", "pandas", "scipy", "math", "chainer", "cupy"))


def plainly_not_tensor(node: ast.AST, resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    """A literal, a comprehension, a builtin container or number, ``x.item()``, or
    a value built by numpy/pandas/math (``np.zeros(3).astype(f)``)."""
    if isinstance(node, _NOT_TENSOR_NODES):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in _NOT_TENSOR_CALLS:
            return True
        if isinstance(func, ast.Attribute) and func.attr in ("item", "tolist"):
            return True
    root = node
    while isinstance(root, (ast.Call, ast.Attribute, ast.Subscript)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if root is not node and isinstance(root, ast.Name):
        name = resolve(root) or ""
        return name.split(".", 1)[0] in FOREIGN_MODULES
    return False


def read_keys(expr: ast.AST, through_detach: bool = True) -> Iterator[str]:
    """Keys of the ``Name``/``Attribute`` chains ``expr`` reads (prefixes included).

    With ``through_detach=False`` the walk stops at :func:`detaches` constructs,
    so ``total.item()`` reads nothing that keeps history.
    """
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, NESTED):
            continue
        if not through_detach and detaches(node):
            continue
        if isinstance(node, (ast.Name, ast.Attribute)):
            k = key(node)
            if k is not None:
                yield k
        stack += children(node)


def scalar_terms(expr: ast.AST) -> Iterator[str]:
    """Keys that must hold one element for ``expr.backward()`` to work without a
    gradient: ``expr`` itself, and the terms of ``(a + b - c * k)``."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)
        ):
            stack += (node.left, node.right)
        elif isinstance(node, ast.UnaryOp):
            stack.append(node.operand)
        else:
            k = key(node)
            if k is not None:
                yield k
