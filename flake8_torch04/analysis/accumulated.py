"""What an augmented assignment makes its target, for the value facts:
``step = 0`` then ``step += 1`` in a loop keeps ``step`` an ``int``.

The value at ``acc += x`` is the value ``acc`` had before it, combined with
``x``; in a loop that value is partly its own (the previous round's ``acc +=
x``).  :func:`accumulated` gathers the bindings that reach the target through
the chain of augmented assignments of it (its *starts*: ``acc = 0``, a
parameter, ...) and the amounts added, and computes the least value that holds
of every start and is kept by every addition, joining as it goes (``total =
0`` then ``total += loss.item()``: a number, of no known dtype). Where a start
or an amount is unknown, or no start reaches (a global), it is unknown.

So for ``s = s + x`` (or ``s = x + s``, ``s = s * x``): a new value each round,
not one changed in place, so a tensor's rank is what broadcasting every amount
with it keeps (``s = Variable(torch.zeros(1))`` then ``s = s + d.sum()`` in a loop
stays 1-D).
"""
from __future__ import annotations

import ast
from typing import Optional, Tuple

#: the most augmented assignments of one name followed
_MOST = 8


def accumulated(values, d, scope, depth: int):
    """The value the augmented assignment ``d`` (a :class:`~.reaching.Def`)
    binds."""
    from .values import NUMBER, TENSOR, UNKNOWN, combined, join

    flow = values._flow(scope)
    seen, todo, added, starts = {id(d)}, [d], [], []
    while todo:
        a = todo.pop()
        update = self_update(a)
        added.append((a, update))
        reach = flow.reaching(update[2]) if update is not None else None
        if not reach or len(added) > _MOST:
            return UNKNOWN
        for r in reach:
            if self_update(r) is None:
                starts.append(r)
            elif id(r) not in seen:
                seen.add(id(r))
                todo.append(r)
    if not starts:
        return UNKNOWN
    value = join([values.binding(s, scope, depth) for s in starts])
    if value.kind not in (NUMBER, TENSOR):
        return UNKNOWN
    if value.kind == TENSOR and all(a.kind == "augassign" for a, _ in added):
        return value  # (``acc += x`` of a tensor is in place: its shape and dtype stay)
    amounts = [(update[0], values.of(update[1], scope, depth)) for _, update in added]
    for _ in range(3):  # (a rank or a dtype can only be lost: it settles at once)
        grown = join([value] + [combined(op, value, amount) for op, amount in amounts])
        if grown == value:
            return value
        value = grown
    return UNKNOWN


def self_update(d) -> Optional[Tuple[ast.operator, ast.AST, ast.AST]]:
    """``(operator, amount, the read of the target)`` of ``acc += x``, ``s = s + x``
    or ``s = x + s`` (``+`` and ``*`` only, for the amount on the left), where the
    amount does not read the target; else ``None``."""
    if d.kind == "augassign" and d.value is not None:
        return d.node.op, d.value, d.node.target
    if d.kind != "assign" or not isinstance(d.value, ast.BinOp) or \
            not isinstance(d.node, ast.Assign) or len(d.node.targets) != 1:
        return None
    target, value = d.node.targets[0], d.value
    if not isinstance(target, ast.Name) or d.value is not d.node.value:
        return None
    sides = [(value.left, value.right)]
    if isinstance(value.op, (ast.Add, ast.Mult)):
        sides.append((value.right, value.left))
    for read, amount in sides:
        if isinstance(read, ast.Name) and read.id == target.id and not any(
                isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(amount)):
            return value.op, amount, read
    return None


def loop_carried(flow, d) -> bool:
    """Whether the update ``d`` (:func:`self_update`) reaches itself through the
    chain of updates of its target (a loop): else its value is exactly what its
    expression makes of the value before it."""
    seen, todo = {id(d)}, [d]
    while todo and len(seen) <= _MOST:
        update = self_update(todo.pop())
        for r in (flow.reaching(update[2]) or ()) if update is not None else ():
            if r is d:
                return True
            if id(r) not in seen and self_update(r) is not None:
                seen.add(id(r))
                todo.append(r)
    return False
