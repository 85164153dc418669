"""TV172: a ``PackedSequence`` unpacked into two names, as 0.3's two fields."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.nodes import if_tests
from ..analysis.registry import rule
from ..analysis.resolve import builtin_call

_PACKED = "torch.nn.utils.rnn.PackedSequence"
#: the calls that make one
_PACKERS = frozenset((_PACKED, "torch.nn.utils.rnn.pack_padded_sequence",
                      "torch.nn.utils.rnn.pack_sequence"))


@rule("TV172")
def packed_pair(ctx: Context, node: ast.Assign) -> Iterator[Report]:
    """Flags a ``PackedSequence`` unpacked into two names: ``data, batch_sizes = packed``.

    ## What it does
    Flags an assignment of a value to a tuple (or list) of exactly two targets,
    where the value is evidently a ``torch.nn.utils.rnn.PackedSequence``
    (resolved through imports): a name whose every reaching binding is a call of
    ``pack_padded_sequence``, ``pack_sequence`` or ``PackedSequence``, such a call
    itself, or a name the assignment is guarded by ``isinstance(name,
    PackedSequence)`` for (the ``if`` test, or a flag bound to that test:
    ``is_packed = isinstance(input, PackedSequence)`` then ``if is_packed:``),
    the name not bound again in between.  Position: the value.  Not flagged:
    three or more targets, a starred target, a value of unknown type, a project's
    own ``PackedSequence``.

    ## Why is this bad?
    PyTorch 0.3's ``PackedSequence`` was a named tuple of two fields, ``data`` and
    ``batch_sizes`` (a list of ints); code that took a packed input apart -- an
    RNN of its own, copied from 0.3's ``torch/nn/_functions/rnn.py`` -- wrote
    ``input, batch_sizes = input``.  Since 0.4.1 it has four fields
    (``sorted_indices`` and ``unsorted_indices`` were added), and on 2.13 the
    assignment raises ``ValueError: too many values to unpack (expected 2)``.

    ## Example
    ```python
    if isinstance(input, PackedSequence):
        input, batch_sizes = input
    ```

    Use instead:
    ```python
    if isinstance(input, PackedSequence):
        input, batch_sizes = input[:2]
    ```

    ## Fix safety
    The fix slices the first two fields, ``value[:2]``: *safe*, the same ``data``
    and ``batch_sizes`` the two-field tuple gave, where the assignment raised.
    ``batch_sizes`` is a 1-D integer tensor now, not a list: its elements index
    and slice as ints do (``__index__``).
    """
    targets = node.targets
    if len(targets) != 1 or not isinstance(targets[0], (ast.Tuple, ast.List)):
        return
    elts = targets[0].elts
    if len(elts) != 2 or any(isinstance(e, ast.Starred) for e in elts):
        return
    value = node.value
    if not (_made_packed(ctx, value) or _guarded(ctx, node, value)):
        return
    src = ctx.source
    shown = src.quote(value, 30)
    sliced = f"{src.text(value)}[:2]" if isinstance(value, (ast.Name, ast.Attribute)) \
        else f"({src.text(value)})[:2]"
    yield Report(
        value,
        f"`{shown}` is a `PackedSequence`, of four fields since PyTorch 0.4.1 (0.3's had "
        f"two, data and batch_sizes): unpacking it into two names raises ValueError; use "
        f"`{src.quote(value, 30)}[:2]`",
        Fix((src.replace(value, sliced),), SAFE),
    )


def _made_packed(ctx: Context, value: ast.AST) -> bool:
    """``value`` is a call that makes a ``PackedSequence``, or a name every reaching
    binding of which is one."""
    if isinstance(value, ast.Call):
        return ctx.resolve(value.func) in _PACKERS
    if not isinstance(value, ast.Name):
        return False
    defs = ctx.flow().reaching(value)
    return bool(defs) and all(d.kind == "assign" and isinstance(d.value, ast.Call)
                              and ctx.resolve(d.value.func) in _PACKERS for d in defs)


def _guarded(ctx: Context, node: ast.AST, value: ast.AST) -> bool:
    """The assignment ``node`` sits in the body of an ``if`` of its function whose
    test says ``value`` (a name) is a ``PackedSequence``."""
    if not isinstance(value, ast.Name):
        return False
    flow = ctx.flow()
    here = _bindings(flow, value)
    if here is None:
        return False
    for test in if_tests([*ctx.parents, node]):
        subject = _packed_test(ctx, test, value.id)
        if subject is not None and _bindings(flow, subject) == here:
            return True
    return False


def _packed_test(ctx: Context, test: ast.AST, name: str) -> Optional[ast.Name]:
    """The name ``isinstance(name, PackedSequence)`` reads in ``test`` (the test
    itself, a part of an ``and``, or a flag every reaching binding of which is that
    call), or ``None``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return next((found for part in test.values
                     for found in [_packed_test(ctx, part, name)] if found is not None), None)
    if isinstance(test, ast.Name):
        defs = ctx.flow().reaching(test)
        if not defs or len(defs) != 1 or defs[0].kind != "assign":
            return None
        test = defs[0].value
    if builtin_call(test, ctx.scope, "isinstance", 2):
        subject, kind = test.args  # type: ignore[attr-defined]
        if isinstance(subject, ast.Name) and subject.id == name \
                and ctx.resolve(kind) == _PACKED:
            return subject
    return None


def _bindings(flow, name: ast.Name) -> Optional[frozenset]:
    defs = flow.reaching(name)
    return frozenset(id(d) for d in defs) if defs else None
