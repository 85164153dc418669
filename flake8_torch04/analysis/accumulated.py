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
"""
from __future__ import annotations

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
        added.append(a)
        reach = flow.reaching(a.node.target)
        if not reach or len(added) > _MOST:
            return UNKNOWN
        for r in reach:
            if r.kind != "augassign":
                starts.append(r)
            elif id(r) not in seen:
                seen.add(id(r))
                todo.append(r)
    if not starts:
        return UNKNOWN
    value = join([values.binding(s, scope, depth) for s in starts])
    if value.kind not in (NUMBER, TENSOR):
        return UNKNOWN
    if value.kind == TENSOR:
        return value  # (``acc += x`` of a tensor is in place: its shape and dtype stay)
    amounts = [(a.op, values.of(a.value, scope, depth)) for a in added]
    for _ in range(3):  # (a rank or a dtype can only be lost: it settles at once)
        grown = join([value] + [combined(op, value, amount) for op, amount in amounts])
        if grown == value:
            return value
        value = grown
    return UNKNOWN
