"""What a function returns for one call that passes it constants.

``loss, RE, KL = self.calculate_loss(x, average=True)`` where the method ends
``if average: RE = torch.mean(RE)`` then ``return loss, RE, KL``: read once for
every call, its returns join the 1-D ``RE`` and the 0-dim mean, and the rank is
lost.  :func:`call_returns` reads the function again for a call that gives a
parameter a constant (or leaves it at a constant default), with every ``if`` of
the function's own body that tests such a parameter decided (``if average:``,
``if not average:``, ``if mode == 'train':``, ``if h is None:``): only the branch
that runs is walked (:class:`~.reaching.ReachingDefinitions`), and only the
``return`` statements a path then reaches count.  A parameter the function rebinds is not decided.
The readings are facts of their own (:class:`Decided`), remembered per function
and decided branches for the file.
"""
from __future__ import annotations

import ast
from typing import Dict, Optional

from .applied import Applied
from .callers import argument
from .flow import Flow
from .nodes import body_nodes, statements
from .objects import crossed
from .reaching import params_of
from .remembered import CUT, remembered
from .values import UNKNOWN, Value, Values, _ranked, join

#: the most readings kept per file
_MOST = 64


def call_returns(caller: Values, owner: Values, definition: ast.AST, call: ast.Call, scope,
                 depth: int, bound: bool) -> Value:
    """What ``definition`` (read by ``owner``, the facts of its module) returns for
    ``call`` (read by ``caller`` in ``scope``; ``bound``: a method called on an
    instance, its first parameter the receiver).  A reading with branches
    decided also binds the parameters the call passes tensors of known rank to
    (their kind, rank, dtype and whether 0.3 made them plain tensors: see
    :mod:`.applied`).  What a function of another
    module returns is :func:`~.objects.crossed` from there."""
    found = _returned(caller, owner, definition, call, scope, depth, bound)
    return found if owner.ctx is caller.ctx else crossed(found, owner.ctx)


def _returned(caller: Values, owner: Values, definition: ast.AST, call: ast.Call, scope,
              depth: int, bound: bool) -> Value:
    decided = _decided(owner.ctx, definition, call, bound)
    plain = owner._returns_of(definition, depth) if not decided else UNKNOWN
    if not decided and (_ranked(plain) or not call.args and not call.keywords):
        return plain
    passed = _passed(caller, definition, call, scope, depth, bound)
    if not decided and not passed:
        return plain
    memo: Dict[tuple, Value] = owner.ctx.memo.setdefault("decided returns", {})
    k = (id(definition), tuple(sorted(decided.items())), tuple(sorted(passed.items())))
    if k not in memo and len(memo) >= _MOST:
        CUT[0] += 1  # (the file's readings are full: this answer depends on the others)
        return owner._returns_of(definition, depth)
    found = remembered(memo, owner._pending_returns, k, 0, lambda: Decided(
        owner.ctx, definition, decided, passed)._returns_of(definition, depth + 1), UNKNOWN)
    return found if decided or found.kind is not None else plain


def _passed(caller: Values, definition: ast.AST, call: ast.Call, scope, depth: int,
            bound: bool) -> Dict[int, Value]:
    """``id(parameter) -> the tensor`` ``call`` passes it: of known rank, or a plain
    0.3 tensor (``accuracy(output.data, target)``: its reductions and elements
    were numbers, whatever its rank)."""
    found = {}
    for param, given in _given(definition, call, bound):
        if given is not None and not given[1]:  # (a default is none of the call's)
            value = caller.of(given[0], scope, depth)
            if value.tensor and (value.rank is not None or value.plain):
                found[id(param)] = Value(value.kind, value.rank, value.dtype, plain=value.plain)
    return found


def _given(definition: ast.AST, call: ast.Call, bound: bool) -> list:
    """Each parameter of ``definition`` with what ``call`` gives it (see
    :func:`~.callers.argument`)."""
    return [(p, argument(call, definition, p, method=bound)) for p in params_of(definition)]


def _decided(ctx, definition: ast.AST, call: ast.Call, bound: bool) -> Dict[int, bool]:
    """``id(if) -> the branch that runs`` for the ``if`` statements of
    ``definition``'s own body whose test is decided by a constant ``call`` gives
    a parameter (see :func:`_truth`)."""
    constants = _constants(definition, call, bound)
    tested = _tested(ctx, definition) if constants else None
    if not tested:
        return {}
    found = {}
    for node, names in tested:
        if names <= constants.keys():
            truth = _truth(node.test, constants)  # type: ignore[attr-defined]
            if truth is not None:
                found[id(node)] = truth
    return found


def _tested(ctx, definition: ast.AST) -> list:
    """The ``if`` statements of ``definition``'s own body that test only its
    parameters (ones it never rebinds), each with their names (remembered)."""
    memo = ctx.memo.setdefault("tested parameters", {})
    found = memo.get(id(definition))
    if found is None:
        found = memo[id(definition)] = []
        args = definition.args  # type: ignore[attr-defined]
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        flow = None
        for node in statements(definition):  # (a nested function's are never asked)
            if node.__class__ is not ast.If:
                continue
            names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}  # type: ignore
            if not names or not names <= params:
                continue
            flow = flow or ctx.flow_of(definition)
            if all(d.kind == "param" for n in names for d in flow.defs(n)):
                found.append((node, frozenset(names)))
    return found


def _constants(definition: ast.AST, call: ast.Call, bound: bool) -> Dict[str, object]:
    """The parameters of ``definition`` to which ``call`` gives a constant, or
    whose constant default it leaves, with their values."""
    args = definition.args  # type: ignore[attr-defined]
    if len(call.args) > len(args.posonlyargs) + len(args.args) - bound:
        return {}  # (not this function's call)
    return {p.arg: given[0].value for p, given in _given(definition, call, bound)
            if given is not None and isinstance(given[0], ast.Constant)}


def _truth(test: ast.AST, constants: Dict[str, object]) -> Optional[bool]:
    """Whether ``test`` holds with its names bound to ``constants``: a name, ``not``,
    ``and``/``or``, ``==``/``!=`` against a constant, ``is``/``is not`` against
    ``None``, ``True`` or ``False``; ``None`` for anything else."""
    if isinstance(test, ast.Name):
        return bool(constants[test.id])
    if isinstance(test, ast.BoolOp):  # (an operand that decides it is enough)
        truths = [_truth(v, constants) for v in test.values]
        stop = isinstance(test.op, ast.Or)  # (the value that decides an ``or``)
        if stop in truths:
            return stop
        return None if None in truths else not stop
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth(test.operand, constants)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
            isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant):
        a, b, op = constants[test.left.id], test.comparators[0].value, test.ops[0]
        if isinstance(op, (ast.Eq, ast.NotEq)) and type(a) is type(b):
            return (a == b) == isinstance(op, ast.Eq)
        if isinstance(op, (ast.Is, ast.IsNot)) and b in (None, True, False) and \
                type(b) is type(a) or b is None:
            return (a is b) == isinstance(op, ast.Is)
    return None


class Decided(Applied):
    """The file's value facts, with the ``if`` statements of one function decided
    and some of its parameters bound."""

    def __init__(self, ctx, definition: ast.AST, decided: Dict[int, bool],
                 bound: Dict[int, Value]) -> None:
        super().__init__(ctx, bound)
        self.definition = definition
        self.decided = decided
        self.decided_flow = Flow(definition, ctx, decided)

    def _flow(self, scope: Optional[ast.AST]):
        return self.decided_flow if scope is self.definition else super()._flow(scope)

    def _read_returns(self, definition: ast.AST, depth: int) -> Value:
        if definition is not self.definition:
            return super()._read_returns(definition, depth)
        if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in body_nodes(definition)):
            return UNKNOWN
        returns = self.decided_flow._reach().returns  # (those the decided branches reach)
        if any(r.value is None for r in returns):
            return UNKNOWN
        return join([self.of(r.value, definition, depth) for r in returns])  # type: ignore
