"""What a tensor's method returns, for the value facts (:mod:`.values`): the rank,
dtype and last size that ``x.view(...)``, ``x.sum(1)``, ``x.max(1)``, ``x.long()``,
``x.unsqueeze(0)``... make of the receiver's, and what a numpy array's or an object's
method gives (:func:`method_value`); how many dimensions a list of sizes makes
(:func:`sizes_rank`)."""
from __future__ import annotations

import ast
from typing import List, Optional, Sequence

from .objects import OBJECT, PLAIN, object_method, plain_method, type_alias
from .value import UNKNOWN, Value, _FLOAT, _INT, _NUMBER, _tensor
from .value_tables import (
    CASTS, COMPARISONS, DTYPES, INDEX, LIST, MOVES, NDARRAY, NUMBER, PAIRED, REDUCTIONS,
    RESHAPED_IN_PLACE, SAME, TENSOR, TUPLE, TYPED, WHOLE_REDUCTIONS, broadcast as _broadcast,
    kept_last, literal_size, reduced_rank, sampled, sum_dtype as _sum_dtype
)


def method_value(values, attr: str, receiver: Value, node: ast.Call, scope, depth: int,
                 args: Optional[List[ast.AST]] = None) -> Value:
    """What ``receiver.attr(*args)`` (``node``, read in ``scope``) gives, before
    :meth:`.values.Values._method` marks the result of a 0.3 tensor plain."""
    if args is None:
        args = node.args
    if attr == "item" and not args:
        if receiver.tensor:
            return Value(NUMBER, dtype=receiver.dtype if receiver.dtype in ("int", "float")
                         else None)
        return _NUMBER if receiver.kind is None else UNKNOWN
    if attr == "size" and len(args) == 1 and receiver.kind in (None, TENSOR) and \
            isinstance(args[0], ast.Constant) and type(args[0].value) is int:
        return _INT  # (``x.size(0)``: numpy's ``size`` is not called)
    if not receiver.tensor:
        if receiver.kind == OBJECT and (receiver.name or "").startswith(PLAIN):
            # (``memory.sample(n)``)
            return plain_method(values, receiver.name, attr, node, scope, depth)
        if receiver.kind in (NDARRAY, OBJECT):  # (``parser.parse_args()``)
            return object_method(receiver, attr, node, values.ctx)
        if receiver.kind is None and attr in CASTS and not args and not node.keywords:
            return _tensor(None, CASTS[attr])  # (``m.byte()``: only tensors have these)
        if receiver.kind is None and attr in WHOLE_REDUCTIONS and not args \
                and not node.keywords:  # (``a.mean()``: 0-dim if a tensor, a numpy
            return Value(None, 0)  # scalar if an array; what it is, unknown)
        if receiver.kind is None and attr in ("view", "reshape") and args:
            # (numpy's ``view`` takes a dtype; sizes give a rank, whatever the value)
            rank = sizes_rank(values, args, scope, depth)
            if attr != "view" or rank is None:
                return Value(None, rank)
            return _tensor(rank, None, literal_size(args[-1]) if len(args) > 1 else None)
        return UNKNOWN
    rank, dtype = receiver.rank, receiver.dtype
    if attr in ("split", "chunk"):  # (a tuple of pieces of its rank: how many, the sizes tell)
        return Value(LIST, parts=(_tensor(rank, dtype, plain=receiver.plain),))
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    if any(kw.arg is None for kw in node.keywords) or \
            any(isinstance(a, ast.Starred) for a in args):
        return _tensor(None)
    if attr in ("tolist",):  # (a 1-D tensor's list holds numbers)
        return _NUMBER if rank == 0 else Value(LIST, parts=(
            (_INT if dtype == "int" else _FLOAT if dtype == "float" else _NUMBER)
            if rank == 1 else UNKNOWN,))
    if attr == "numpy":
        return Value(NDARRAY, rank, dtype)
    if attr in ("size", "dim", "numel", "nelement", "ndimension") and args:
        return _INT if attr == "size" else UNKNOWN
    if attr in ("dim", "numel", "nelement", "ndimension"):
        return _INT
    last = receiver.last
    if attr in CASTS and not args:
        return _tensor(rank, CASTS[attr], last)
    if attr in COMPARISONS and len(args) == 1:
        return _tensor(_broadcast(receiver, values.of(args[0], scope, depth)), "bool")
    if attr in ("view", "reshape", "expand", "repeat") and args:
        return _tensor(sizes_rank(values, args, scope, depth), dtype,
                       literal_size(args[-1]) if len(args) > 1 and attr != "repeat" else None)
    if attr in ("view_as", "reshape_as", "expand_as") and len(args) == 1:
        other = values.of(args[0], scope, depth)
        return _tensor(other.rank if other.tensor else None, dtype)
    if attr == "unsqueeze" and len(args) == 1:
        at = args[0]
        at = at.value if isinstance(at, ast.Constant) and type(at.value) is int else None
        return _tensor(rank + 1 if rank is not None else None, dtype,
                       1 if at == -1 or at is not None and at == rank else None)
    if attr == "squeeze":  # (``squeeze(d)``: a dim of size 1 goes, other dims stay)
        return _tensor(None, dtype)
    if attr == "multinomial":  # (a row of samples for each row of probabilities)
        return _tensor(rank, "int", sampled(args, keywords))
    if attr == "t" and not args:
        return _tensor(2 if rank is None or rank == 2 else rank, dtype)
    if attr == "flatten" and not keywords:
        if not args:
            return _tensor(1, dtype)
        start = args[0]
        if len(args) == 1 and isinstance(start, ast.Constant) and type(start.value) is int \
                and start.value >= 0:
            return _tensor(start.value + 1, dtype)
        return _tensor(None, dtype)
    if attr in ("mm", "bmm", "mv", "dot") and len(args) == 1:
        # (``dot``: one number; 0.3's flattened tensors of any rank, today's 1-D ones)
        return _tensor({"mm": 2, "bmm": 3, "mv": 1, "dot": 0}[attr], dtype)
    if attr == "matmul" and len(args) == 1:
        other = values.of(args[0], scope, depth).rank
        return _tensor(rank if rank is not None and rank >= 2 and rank == other else None,
                       dtype)
    if attr in SAME:
        return _tensor(rank, dtype, None if attr in MOVES else last)
    if attr in ("to", "type") and args and not keywords:  # (``.type(ByteTensor)``, an alias)
        target = values.ctx.resolve(args[0]) or type_alias(values, args[0], scope)
        if target in DTYPES:
            return _tensor(rank, DTYPES[target], last)
        if target in TYPED:
            return _tensor(rank, TYPED[target], last)
        return _tensor(rank, None, last)
    if attr in INDEX:
        if not args and "dim" not in keywords:
            return _tensor(0, "int")
        return _tensor(reduced_rank(rank, args, keywords), "int",
                       kept_last(rank, last, args, keywords))
    if attr == "gather" and len(args) + len(keywords) == 2:  # (the index's shape)
        index = values.of(args[1] if len(args) == 2 else keywords.get("index"), scope, depth)
        return _tensor(index.rank, dtype, index.last) if index.tensor else _tensor(None, dtype)
    if attr == "topk":  # (``topk(k=3)`` too: the rank stays)
        return Value(TUPLE, parts=(_tensor(rank, dtype), _tensor(rank, "int")))
    if attr == "kthvalue":  # (``k`` first, then the dimension, the last by default)
        reduced = reduced_rank(rank, args[1:], keywords)
        return Value(TUPLE, parts=(_tensor(reduced, dtype), _tensor(reduced, "int")))
    if attr in PAIRED and (args or "dim" in keywords):
        if attr in ("max", "min") and args and values.of(args[0], scope, depth).tensor:
            return _tensor(_broadcast(receiver, values.of(args[0], scope, depth)), dtype)
        if attr in ("sort", "topk"):
            return Value(TUPLE, parts=(_tensor(rank, dtype), _tensor(rank, "int")))
        reduced = reduced_rank(rank, args, keywords)
        kept = kept_last(rank, last, args, keywords)
        return Value(TUPLE, parts=(_tensor(reduced, dtype, kept),
                                   _tensor(reduced, "int", kept)))
    if attr == "sort" or attr == "mode" and not args:  # (along the last dimension)
        shape = rank if attr == "sort" else rank - 1 if rank else None
        return Value(TUPLE, parts=(_tensor(shape, dtype), _tensor(shape, "int")))
    if attr in REDUCTIONS or attr in PAIRED:
        if attr == "norm":  # (``norm(p, dim)``: ``x.norm(2)`` is a full reduction)
            args = args[1:]
        if not args and "dim" not in keywords:
            return _tensor(0, "float" if attr in ("mean", "std", "var", "norm") and
                           dtype == "float" else (dtype if attr in ("max", "min", "median")
                                                  else _sum_dtype(dtype, attr)))
        return _tensor(reduced_rank(rank, args, keywords), dtype if attr != "mean"
                       else "float", kept_last(rank, last, args, keywords))
    if attr[-1] == "_" and attr[0] != "_" and attr not in RESHAPED_IN_PLACE:
        return _tensor(rank, dtype, last, receiver.plain)  # (``random_(0, 2)``: itself)
    return _tensor(None)


def sizes_rank(values, args: Sequence[ast.AST], scope, depth: int) -> Optional[int]:
    """How many dimensions ``zeros(*args)`` / ``view(*args)`` gives."""
    if not args or any(isinstance(a, ast.Starred) for a in args):
        return None
    if len(args) == 1:
        only = args[0]
        if isinstance(only, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in only.elts):
                return None
            return len(only.elts)
        # a name may hold a whole shape: one size only where it is a number
        return 1 if values.of(only, scope, depth).kind == NUMBER else None
    return len(args)
