"""Regions where autograd records nothing (``torch.no_grad()`` and its spellings)."""
from __future__ import annotations

import ast
from typing import Callable, Optional, Sequence

from .nodes import FUNCTIONS, LOOPS, NESTED

# ---------------------------------------------------------------------------
# regions where autograd records nothing

GRAD_OFF = frozenset((
    "torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad",
    "torch.inference_mode", "torch.autograd.inference_mode",
    "torch.autograd.grad_mode.inference_mode",
))
GRAD_SET = frozenset(("torch.set_grad_enabled", "torch.autograd.set_grad_enabled",
                      "torch.autograd.grad_mode.set_grad_enabled"))


def _turns_grad_off(expr: ast.AST, resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    call = expr if isinstance(expr, ast.Call) else None
    name = resolve(call.func if call else expr)
    if name in GRAD_OFF:
        return True
    if call is not None and name in GRAD_SET and call.args:
        arg = call.args[0]
        return isinstance(arg, ast.Constant) and arg.value is False
    return False


def grad_disabled(parents: Sequence[ast.AST],
                  resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    """Whether the node below ``parents`` runs under ``with torch.no_grad():``
    (or ``inference_mode``, ``set_grad_enabled(False)``) within its function, or
    in a function decorated with one of them."""
    for node in reversed(parents):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            if any(_turns_grad_off(item.context_expr, resolve) for item in node.items):
                return True
        elif isinstance(node, FUNCTIONS):
            return decorated_grad_off(node, resolve)
        elif isinstance(node, ast.ClassDef):
            return False
    return False


def decorated_grad_off(func: ast.AST, resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    """Whether the function ``func`` is decorated ``@torch.no_grad()`` (or another of
    the spellings that turn grad off)."""
    return any(_turns_grad_off(d, resolve) for d in getattr(func, "decorator_list", ()))


def enclosing_loop(parents: Sequence[ast.AST], node: ast.AST) -> Optional[ast.AST]:
    """The innermost ``for``/``while`` of the same function whose body holds ``node``."""
    child = node
    for parent in reversed(parents):
        if isinstance(parent, NESTED):
            return None
        if isinstance(parent, LOOPS) and _in_body(parent, child):
            return parent
        if isinstance(parent, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return None
        child = parent
    return None


def _in_body(loop: ast.AST, child: ast.AST) -> bool:
    """``child in loop.body``, by a binary search on positions (a body can be long)."""
    body = loop.body
    where = (getattr(child, "lineno", 0), getattr(child, "col_offset", 0))
    lo, hi = 0, len(body)
    while lo < hi:
        mid = (lo + hi) // 2
        if (body[mid].lineno, body[mid].col_offset) < where:
            lo = mid + 1
        else:
            hi = mid
    return lo < len(body) and body[lo] is child
