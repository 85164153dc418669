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

from .foreign import FOREIGN_CLASS, forward_of
from .value_tables import FIXED_RANK_MODULES, SAME_SHAPE_MODULES
from .remembered import CUT, remembered
from .values import FILE_CLASS, TENSOR, TUPLE, UNKNOWN, Value, Values, _ranked

#: recurrent layers: their states come as a pair (LSTM) or alone
_RECURRENT = {"torch.nn.LSTM": 2, "torch.nn.GRU": 1, "torch.nn.RNN": 1}
#: their cells (one step): the new state as a pair (LSTMCell) or alone
_CELLS = {"torch.nn.LSTMCell": 2, "torch.nn.GRUCell": 1, "torch.nn.RNNCell": 1}

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


def module_output(values: Values, module: Value, node: ast.Call, scope, depth: int) -> Value:
    """What calling ``module`` (a module value built in the file) on ``node``'s
    arguments gives: a loss module's 0-dim output, a module class's ``forward``
    (of the file, or of another module of the project) read with what the call
    passes, a torch layer's output (:func:`layer_output`)."""
    if module.rank == 0 and len(node.args) == 2 and not node.keywords:
        return Value(TENSOR, 0, "float")  # (a loss module's output)
    name = module.name
    if name is not None and name.startswith(FILE_CLASS):
        forward = values._forward_def(name[len(FILE_CLASS):])
        if forward is None:
            return UNKNOWN
        plain = values._returns_of(forward, depth) if _binds(forward, node) else UNKNOWN
        if _ranked(plain):
            return plain  # (what it returns whatever it is given)
        found = forward_applied(values, forward, node, scope, depth)
        return found if found.kind is not None else plain
    if name is not None and name.startswith(FOREIGN_CLASS):
        # (``mean, z = vae(x, y)`` with ``VAE`` imported from the project's ``models``)
        defined = values._method_def(module, "forward")
        found = forward_applied(values, defined[1], node, scope, depth, defined[0]) \
            if defined is not None else UNKNOWN
        if found.kind is not None:
            return found
        return forward_of(name, depth) if (
            _binds(defined[1], node) if defined is not None else len(node.args) == 1
        ) and not node.keywords else UNKNOWN
    stateful = name in _RECURRENT or name in _CELLS
    if not node.args or len(node.args) > (2 if stateful else 1) or node.keywords \
            or name is None:
        return UNKNOWN  # (a recurrent layer also takes its first state: ``lstm(x, hidden)``)
    return layer_output(module, values.of(node.args[0], scope, depth))


def _binds(forward: ast.FunctionDef, call: ast.Call) -> bool:
    """Whether ``call`` passes ``forward`` (a method) as many positional arguments
    as it takes, and nothing else: what it returns whatever it is given is then
    what this call gives."""
    arguments = forward.args
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args) or \
            any(d is None for d in arguments.kw_defaults):
        return False
    params = len(arguments.posonlyargs) + len(arguments.args) - 1  # (``self`` aside)
    return params - len(arguments.defaults) <= len(call.args) <= params or (
        arguments.vararg is not None and len(call.args) >= params - len(arguments.defaults))


def forward_applied(values: Values, forward: ast.FunctionDef, call: ast.Call, scope,
                    depth: int, owner: Values = None) -> Value:
    """What ``forward`` (a module class's, of ``owner``'s file: ``values``' by
    default) returns for the positional arguments of ``call`` (read in
    ``values``' file), or :data:`~.values.UNKNOWN` where no argument is a tensor
    of known rank (nothing to gain) or the call cannot be bound."""
    owner = owner or values
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
    memo: Dict[Tuple[int, tuple], Value] = owner.ctx.memo.setdefault("applied", {})
    key = (id(forward), passed)
    if key not in memo and len(memo) >= _MOST:
        CUT[0] += 1  # (the file's readings are full: this answer depends on the others)
        return UNKNOWN
    # (a reading cut short waits with the asker's cut-short returns, see :mod:`.remembered`)
    return remembered(memo, values._pending_returns, key, 0, lambda: Applied(
        owner.ctx, {id(p): v for p, v in zip(params, passed)})._returns_of(forward, depth + 1),
        UNKNOWN)


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
    if name in _RECURRENT:
        return _recurrent_output(_RECURRENT[name], inner, rank)
    if name in _CELLS:  # (``h, c = cell(x, (h, c))``: as the input, 2-D on 0.3)
        state = Value(TENSOR, 1 if rank == 1 else 2, "float")
        return state if _CELLS[name] == 1 else Value(TUPLE, parts=(state, state))
    return UNKNOWN


def _recurrent_output(states: int, inner: Value, rank) -> Value:
    """``output, h_n`` (``output, (h_n, c_n)`` for an LSTM): the output as the
    input (a tensor of its rank, 3-D where that is not known: 0.3 took no other;
    a ``PackedSequence`` for one), the states 3-D (layers and directions, batch,
    features), 2-D only for an unbatched 2-D input, which 0.3 did not take."""
    output = Value(TENSOR, 2 if rank == 2 else 3, "float") if inner.tensor else UNKNOWN
    state = Value(TENSOR, 2 if rank == 2 else 3, "float")
    hidden = state if states == 1 else Value(TUPLE, parts=(state, state))
    return Value(TUPLE, parts=(output, hidden))
