"""The :class:`Value` record: what one expression is, as :mod:`.values` answers it;
the join of several values, and what a binary operator makes of two."""
from __future__ import annotations

import ast
from typing import Optional, Sequence

from ..source.record import record
from .value_tables import (
    LIST, NDARRAY, NUMBER, STRING, TENSOR, TUPLE, binop_dtype as _binop_dtype,
    broadcast as _broadcast
)

#: the ``name`` prefix of a module whose class is defined in the file
FILE_CLASS = "<file>."
SPELLED = "<spelled>"  # (the ``name`` of a tensor by its spelling only: ``x.data``, ``x`` unknown)


class Value(record("kind rank dtype parts name last plain",
                   defaults=(None, None, None, None, None, None, False))):
    """``kind`` (``None``: unknown); ``rank`` and ``dtype`` of tensors and arrays
    (``None``: unknown); ``parts``, the values of a tuple's items, or the one value of
    every element of a list (a 1-tuple), or the layers of an ``nn.Sequential``; a dict
    literal's ``(key, entry)`` pairs; ``name``, the class of a module or
    :data:`~.objects.OBJECT` (``torch.nn.Linear``; a class of the file: :data:`FILE_CLASS`
    + its name), or :data:`SPELLED`; ``last``, the size of a tensor's last dimension,
    or the output features of a module (``nn.Linear(8, 1)``: 1), where a constant makes
    it evident; ``plain``: a tensor that was a plain ``torch.Tensor`` in 0.3 code, not a
    ``Variable`` (read through ``.data``, made by a 0.3 constructor, computed from one or an
    element of one: 0.3 refused to mix the two), whose reductions and elements were numbers."""

    __slots__ = ()

    @property
    def tensor(self) -> bool:
        return self.kind == TENSOR

    def element(self) -> "Value":
        """The value of ``self[i]`` for an integer ``i`` (plain as ``self`` is)."""
        if self.kind == TENSOR or self.kind == NDARRAY:
            if self.rank is not None and self.rank >= 1:
                return Value(self.kind, self.rank - 1, self.dtype, plain=self.plain)
            return Value(self.kind, None, self.dtype, plain=self.plain)
        if self.kind == LIST and self.parts:
            return self.parts[0]
        return UNKNOWN


UNKNOWN = Value()
BOTTOM = Value(name="<reloaded>")  # (a reload adding nothing: :func:`.saved.reloaded`)
_NUMBER = Value(NUMBER)
_INT = Value(NUMBER, dtype="int")
_FLOAT = Value(NUMBER, dtype="float")


def join(values: Sequence[Value]) -> Value:
    """What holds of every one of ``values``: a fact they disagree on is unknown."""
    if not values:
        return UNKNOWN
    first = values[0]
    kind, rank, dtype, parts, name, last, plain = first
    for v in values[1:]:
        if v.kind != kind:
            return UNKNOWN
        if v.rank != rank:
            rank = None
        if v.dtype != dtype:
            dtype = None
        if v.parts != parts:
            parts = None
        if v.name != name:
            name = None
        if v.last != last:
            last = None
        plain = plain and v.plain
    return Value(kind, rank, dtype, parts, name, last, plain)


def _tensor(rank: Optional[int], dtype: Optional[str] = None,
            last: Optional[int] = None, plain: bool = False) -> Value:
    return Value(TENSOR, rank, dtype, last=last, plain=plain)


def combined(op: ast.operator, left: Value, right: Value) -> Value:
    """What ``left op right`` is (a binary operator of numbers, tensors, arrays)."""
    if left.kind == NUMBER and right.kind == NUMBER:
        if isinstance(op, ast.Div) or "float" in (left.dtype, right.dtype):
            return _FLOAT
        if left.dtype == right.dtype == "int" and \
                isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
            return _INT
        return _NUMBER
    if left.tensor or right.tensor:
        if not all(v.kind in (TENSOR, NUMBER) or v.kind is None and v.rank == 0
                   for v in (left, right)):  # (``s + (a * b).sum()``: a 0-dim value)
            return _tensor(None)
        dtype = _binop_dtype(op, left, right)
        lasts = {v.last for v in (left, right) if v.tensor}
        return _tensor(_broadcast(left, right), dtype,
                       lasts.pop() if len(lasts) == 1 else None,
                       left.plain or right.plain)
    if NDARRAY in (left.kind, right.kind):
        return Value(NDARRAY)
    if left.kind == STRING and isinstance(op, ast.Mod):
        return Value(STRING)
    return UNKNOWN


def concatenated(parts: Sequence[Value]) -> Optional[Value]:
    """``torch.cat`` of a display of ``parts``: the rank of those whose rank is known
    (the others must have it, or the call raises; a 0-dim one had one element on
    0.3, as 1-D), the dtype where they agree; ``None`` where a part is evidently no
    tensor or none is one."""
    if not all(p.tensor or p.kind is None for p in parts) or not any(p.tensor for p in parts):
        return None
    ranks = {max(p.rank, 1) for p in parts if p.tensor and p.rank is not None}
    dtypes = {p.dtype for p in parts if p.tensor and p.dtype is not None}
    return Value(TENSOR, ranks.pop() if len(ranks) == 1 else None,
                 dtypes.pop() if len(dtypes) == 1 else None, plain=all(p.plain for p in parts))


def unpacked(whole: Value, path) -> Value:
    """The item at ``path`` of ``whole`` (``(1, 0)``: ``h`` of ``out, (h, c)``)."""
    for index in path:
        if whole.kind == TUPLE and whole.parts and index < len(whole.parts):
            whole = whole.parts[index]
        else:  # (``a, b = row`` of a tensor or an array: its elements along dim 0)
            whole = whole.element() if whole.kind in (LIST, TENSOR, NDARRAY) else UNKNOWN
    return whole
