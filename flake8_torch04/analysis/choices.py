"""What a conditional or a boolean operator may give, for the value facts: ``a if c
else b`` either branch, ``a or b`` either operand but one that is ``None``, ``c and
a`` after tests its last operand (see :func:`chosen`); and which binding a name
has after 0.3's ``if isinstance(x, Variable): x = x.data`` (:func:`unwrapped`), or
after ``if x is None: x = make()`` (:func:`defaulted`)."""
from __future__ import annotations

import ast
from typing import List, Optional, Sequence

from .canonical import VARIABLE
from .nodes import is_test
from .resolve import key


def chosen(flow, node: ast.AST) -> List[ast.AST]:
    """The expressions ``node`` may give, read with ``flow`` (the function's): both
    branches of ``a if c else b``; each operand of ``or`` but a ``None`` (``x =
    None``, then ``prev or h0``); the last of ``and`` after tests
    (``isinstance(s, tuple) and s[0] or s``: 0.1's conditional).  Anything else
    gives itself (unknown where it is not evident)."""
    if isinstance(node, ast.IfExp):
        return [*chosen(flow, node.body), *chosen(flow, node.orelse)]
    if not isinstance(node, ast.BoolOp):
        return [node]
    if isinstance(node.op, ast.And):
        *tests, last = node.values
        return chosen(flow, last) if all(is_test(t) for t in tests) else [node]
    found = [e for v in node.values for e in chosen(flow, v)]
    return [e for e in found[:-1] if not _none(flow, e)] + found[-1:]


def _none(flow, node: ast.AST) -> bool:
    """``None``, or a name every binding that reaches binds to ``None``."""
    if isinstance(node, ast.Constant):
        return node.value is None
    defs = flow.reaching(node) if isinstance(node, ast.Name) else None
    return bool(defs) and all(d.kind == "assign" and isinstance(d.value, ast.Constant)
                              and d.value.value is None for d in defs)


def unwrapped(ctx, defs: Sequence, tensors: Sequence[bool]) -> Optional[int]:
    """Of two bindings that reach a name, the index of ``x = x.data`` under ``if
    isinstance(x, Variable):`` (0.3's unwrapping of either; ``tensors[i]``: the
    binding ``i`` is a tensor): after it ``x`` is the tensor ``.data`` gives,
    0.3's plain tensor, whether ``x`` was a ``Variable`` or a tensor before.
    ``None`` where the bindings are not that."""
    for i, (d, tensor) in enumerate(zip(defs, tensors)):
        read = d.value
        if d.kind != "assign" or not tensor or not (
                isinstance(read, ast.Attribute) and read.attr == "data"
                and isinstance(read.value, ast.Name) and read.value.id == d.key):
            continue
        guard = ctx.file_parents().get(id(d.node))
        test = getattr(guard, "test", None)
        if isinstance(guard, ast.If) and isinstance(test, ast.Call) \
                and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
                and len(test.args) == 2 and key(test.args[0]) == d.key \
                and ctx.resolve(test.args[1]) == VARIABLE:
            return i
    return None


def defaulted(ctx, defs: Sequence) -> Optional[int]:
    """Of two bindings that reach a name, the index of ``x = make()`` in the body of
    ``if x is None:`` (a default made where none is given: ``if hidden is None:
    hidden = self.init_hidden(n)``): after it ``x`` is what that makes, or what the
    other binding gives when that is not ``None``.  ``None`` where the bindings
    are not that."""
    for i, d in enumerate(defs):
        if d.kind != "assign" or d.value is None or f"{d.key} is None" not in ctx.text:
            continue  # (the text first: the parents of the file's nodes cost a walk)
        guard = ctx.file_parents().get(id(d.node))
        test = getattr(guard, "test", None)
        if isinstance(guard, ast.If) and any(s is d.node for s in guard.body) \
                and isinstance(test, ast.Compare) and len(test.ops) == 1 \
                and isinstance(test.ops[0], ast.Is) and key(test.left) == d.key \
                and isinstance(test.comparators[0], ast.Constant) \
                and test.comparators[0].value is None:
            return i
    return None
