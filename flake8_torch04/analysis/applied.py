"""What a module gives for what a call passes it: a torch ``nn`` layer
(:func:`layer_output`), or a module class of the file (:func:`forward_applied`).

``probs, value = model(state)`` where ``model = Policy()`` and ``Policy.forward``
runs ``state`` through ``Linear`` layers: the output has the rank of the input.
The value facts read ``forward``'s returns once with its parameters unknown (see
:meth:`.values.Values.forward`); where a call passes tensors whose rank is known,
:func:`forward_applied` reads them again with ``forward``'s parameters bound to
what that call passes, in facts of their own (:class:`Applied`: the file's
answers for every other node are not touched), remembered per class and
arguments for the file.

Only positional arguments are bound, each to its parameter (``self`` aside);
a call with ``*args``, ``**kwargs`` or keywords, or with more arguments than
``forward`` has parameters, is not read this way, and a parameter the call does
not pass stays what the file says of it (unknown).
"""
from __future__ import annotations

import ast
from typing import Dict, Tuple

from .value_tables import FIXED_RANK_MODULES, SAME_SHAPE_MODULES
from .values import TENSOR, UNKNOWN, Value, Values

#: the most arguments' worth of readings kept per file
_MOST = 64


class Applied(Values):
    """The file's value facts, with some parameters bound to given values."""

    def __init__(self, ctx, bound: Dict[int, Value]) -> None:
        super().__init__(ctx)
        self.bound = bound

    def binding(self, d, scope, depth: int) -> Value:
        if d.kind == "param" and id(d.node) in self.bound:
            return self.bound[id(d.node)]
        return super().binding(d, scope, depth)


def forward_applied(values: Values, forward: ast.FunctionDef, call: ast.Call, scope,
                    depth: int) -> Value:
    """What ``forward`` (a module class's, of ``values``' file) returns for the
    positional arguments of ``call``, or :data:`~.values.UNKNOWN` where no argument
    is a tensor of known rank (nothing to gain) or the call cannot be bound."""
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return UNKNOWN
    arguments = forward.args
    params = [*arguments.posonlyargs, *arguments.args][1:]  # (``self`` aside)
    if not call.args or len(call.args) > len(params):
        return UNKNOWN
    # (kind, rank and dtype alone: what forward makes of them, remembered for
    # every call that passes the same)
    passed = tuple(Value(v.kind, v.rank, v.dtype) for v in (
        values.of(a, scope, depth) for a in call.args))
    if not any(v.kind == TENSOR and v.rank is not None for v in passed):
        return UNKNOWN
    memo: Dict[Tuple[int, tuple], Value] = values.ctx.memo.setdefault("applied", {})
    key = (id(forward), passed)
    found = memo.get(key)
    if found is None:
        if len(memo) >= _MOST:
            return UNKNOWN
        memo[key] = UNKNOWN  # (a forward that calls its own class)
        bound = {id(p): v for p, v in zip(params, passed)}
        found = memo[key] = Applied(values.ctx, bound)._returns_of(forward, depth + 1)
    return found


def layer_output(module: Value, inner: Value) -> Value:
    """The output of ``module`` (a torch ``nn`` module) on a tensor ``inner``."""
    name = module.name
    rank = inner.rank if inner.tensor else None
    if name == "torch.nn.Sequential" and module.parts:
        for layer in module.parts:
            inner = layer_output(layer, inner)
            if inner.kind is None:
                break
        return inner
    if name == "torch.nn.Linear":
        return Value(TENSOR, rank, "float", last=module.last)
    if name in SAME_SHAPE_MODULES:
        return Value(TENSOR, rank, "float", last=inner.last if inner.tensor else None)
    if name in FIXED_RANK_MODULES:
        return Value(TENSOR, FIXED_RANK_MODULES[name], "float")
    if name == "torch.nn.Embedding":
        return Value(TENSOR, rank + 1 if rank is not None else None, "float")
    return UNKNOWN
