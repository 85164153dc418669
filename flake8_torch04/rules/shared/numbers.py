"""What was a Python number on PyTorch 0.3: the 0-dim tensors an expression is made of,
where their numbers are read, and the ``.item()`` each gets (TV144 and its return forms)."""
from __future__ import annotations

import ast
from typing import List, Optional

from ...analysis.context import Context
from ...analysis.nodes import body_nodes
from ...analysis.resolve import key
from ...analysis.values import NUMBER, Value, values
from .calls import method_edit
from ...source.text import Edit


#: the arithmetic through which a number 0.3 gave stays one
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def number_in_03(value: Value) -> bool:
    """A 0-dim plain tensor: a reduction or an element of a 0.3 ``Tensor``, which 0.3
    returned as a Python number."""
    return value.tensor and value.rank == 0 and value.plain


def source_of(facts, node: ast.AST) -> ast.AST:
    """The 0-dim tensor in ``node`` that 0.3 gave as a number, through arithmetic with
    Python numbers (``norm ** 2``); ``node`` itself where it has several
    (:func:`sources_of`)."""
    found = sources_of(facts, node)
    return found[0] if len(found) == 1 else node


def sources_of(facts, node: ast.AST) -> List[ast.AST]:
    """The 0-dim tensors in ``node`` that 0.3 gave as numbers, combined with each
    other and with Python numbers: each gets its ``.item()``, since 0.3 did that
    arithmetic on numbers, in double precision (``lam * a.sum() + (1 - lam) *
    b.sum()``: one ``.item()`` around it would add float32 tensors)."""
    if isinstance(node, ast.UnaryOp) and number_in_03(facts.of(node.operand)):
        return sources_of(facts, node.operand)
    if not isinstance(node, ast.BinOp):
        return [node]
    found: List[ast.AST] = []
    for side in (node.left, node.right):
        value = facts.of(side)
        if value.kind == NUMBER:
            continue
        if not number_in_03(value):
            return [node]
        found += sources_of(facts, side)
    return found or [node]


def item_edit(ctx: Context, node: ast.AST) -> Optional[Edit]:
    return method_edit(ctx.source, node, "item()")


def number_leaves(ctx: Context, facts, node: ast.AST, depth: int, seen: set, scope=None) -> list:
    """The numbers 0.3 gave that ``node`` is computed from, through arithmetic and
    the names of its function (``(reward_div + reward_rep) * 0.5``: each
    reduction), ``None`` standing for a Python number among them; ``[]`` where
    one of its parts is neither (then no fix is evident)."""
    if depth > 6 or id(node) in seen:
        return []
    seen.add(id(node))
    value = facts.of(node, scope)
    if value.kind == NUMBER:
        return [None]  # (a Python number: nothing to change)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        parts = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        parts = [node.operand]
    elif isinstance(node, ast.Name):
        defs = (ctx.flow() if scope is None else ctx.flow_of(scope)).reaching(node)
        if not defs or not all(d.kind == "assign" and d.value is not None for d in defs):
            return []
        parts = [d.value for d in defs]
    elif number_in_03(value) and not read_through_data(ctx, node, scope):
        return [node]
    else:
        return []
    found: list = []
    for part in parts:
        got = number_leaves(ctx, facts, part, depth + 1, seen, scope)
        if not got:
            return []
        found += [g for g in got if g not in found]
    return found


def literal_number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def read_in(ctx: Context, leaf: ast.AST, function: ast.AST) -> bool:
    """Whether ``leaf`` reads ``.data`` in ``function`` itself (or a name of it bound
    to what does: ``_, pred = torch.max(out.data, 1)``): a 0.3 number whatever the
    callers pass.  A number that is one only for what a caller passes (a plain
    tensor where another caller, or the same one before TV001's fix, gives a
    ``Variable``) stays the caller's finding."""
    flow = ctx.flow_of(function)
    for node in ast.walk(leaf):
        if isinstance(node, ast.Attribute) and node.attr == "data":
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for d in flow.reaching(node) or ():
                if d.value is not None and d.kind in ("assign", "unpack") and any(
                        isinstance(n, ast.Attribute) and n.attr == "data"
                        for n in ast.walk(d.value)):
                    return True
    return False


def put_in(function: ast.AST, name: str) -> list:
    """What ``function`` puts in its list ``name`` (``name.append(v)``, ``name +=
    [v]``): one tensor among them is enough for json to refuse the list, whatever
    else is done with it."""
    found: list = []
    for node in body_nodes(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "append" and key(node.func.value) == name \
                and len(node.args) == 1:
            found.append(node.args[0])
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                and key(node.target) == name and isinstance(node.value, ast.List):
            found += node.value.elts
    return [v for v in found if not isinstance(v, ast.Starred)]


def read_through_data(ctx: Context, node: ast.AST, scope=None) -> bool:
    """A name bound only to elements read through ``.data`` (``first = x.data[0]``),
    or to ``sum()`` of 0.3 numbers (``norm = sum(p.data.norm() for p in ps)``):
    those get their ``.item()`` where they are made (:func:`_data_element`,
    :func:`_summed`, or TV003 for a loss), not again where the name is used."""
    defs = (ctx.flow() if scope is None else ctx.flow_of(scope)).reaching(node) \
        if isinstance(node, ast.Name) else None
    return bool(defs) and all(
        d.kind == "assign" and (element_through_data(d.value) or summed_numbers(ctx, d.value))
        for d in defs)


def element_through_data(node: ast.AST) -> bool:
    """``x.data[i]``: an element read through ``.data``."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
        and node.value.attr == "data"


def as_number(ctx: Context, node: ast.AST, parent: Optional[ast.AST]) -> bool:
    """``node`` is made a number where it is used: ``float(...)``, ``int(...)``,
    formatted as a number (``'%.6f' %``,
    ``'{:.6f}'.format``): there a 0-dim tensor shows as 0.3's number did, to its last
    digits (a parameter checksum a script prints)."""
    if isinstance(parent, ast.Tuple):
        node, parent = parent, ctx.parents[-2] if len(ctx.parents) > 1 else None
    if isinstance(parent, ast.Call):
        func = parent.func
        return isinstance(func, ast.Name) and func.id in ("float", "int") \
            or isinstance(func, ast.Attribute) and func.attr == "format" \
            and isinstance(func.value, ast.Constant)
    return isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mod) \
        and parent.right is node and isinstance(parent.left, ast.Constant) \
        and isinstance(parent.left.value, str) and "%s" not in parent.left.value \
        and "%r" not in parent.left.value


def summed_numbers(ctx: Context, node: Optional[ast.AST]) -> bool:
    """``sum(E for ...)`` (no start) where ``E`` is a number on 0.3: :func:`_summed`'s."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "sum" and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp))
            and not ctx.scope.binds("sum")):
        return False
    return number_in_03(values(ctx).of(node.args[0].elt))
