"""Lists a function builds by appending: ``res = []`` then ``res.append(v)``.

The ``accuracy`` helper copied into many 0.3 projects returns such a list of
0-dim tensors (``res.append(correct_k.mul_(100.0 / batch_size))``), which its
callers index (``prec1 = accuracy(out, y)[0]``, then ``prec1[0]``).  The value
facts take the list's element from what is appended, where nothing else can
change the list: see :func:`appended`.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, List, Optional

from .nodes import body_parents, comprehension_targets, reads_any

if TYPE_CHECKING:
    from .values import Value

#: reads of the list that leave it as it is
_READS = (ast.Return, ast.For, ast.comprehension)


def appended(function: ast.AST, name: str,
             resolve: Optional[Callable[[ast.AST], Optional[str]]] = None
             ) -> Optional[List[ast.AST]]:
    """What ``function`` appends to its local list ``name`` (``name.append(v)``,
    each a statement of its own, or ``name += [v]``), or ``None`` where anything
    else could change the list or what is in it: another binding or method of
    it, a nested function, lambda or class that names it, or a use that hands
    it on (an argument, an alias, a yield).  It is bound once (``name = []``,
    also ``name, other = [], []``).  Reads that keep it are allowed: ``return
    name`` (also ``return name, other``), ``name[i]``, ``for x in name``, ``a, b
    = name``, ``len(name)``, and, with ``resolve``, an argument of a torch
    function (``torch.cat(name)``)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None  # (a module's list: any function may append to it)
    nodes, parents = body_parents(function)
    found: List[ast.AST] = []
    stores = 0
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                             ast.ClassDef)):
            if any(isinstance(sub, ast.Name) and sub.id == name for sub in ast.walk(node)):
                return None
            continue
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.AugAssign) and parent.target is node and isinstance(
                parent.op, ast.Add) and isinstance(parent.value, ast.List) and not any(
                isinstance(e, ast.Starred) for e in parent.value.elts):
            found.extend(parent.value.elts)  # (``name += [v]``: appended)
            continue
        if not isinstance(node.ctx, ast.Load):
            stores += 1
            if isinstance(parent, ast.Tuple):  # (``states, rewards = [], []``)
                parent = _paired(parent, parents.get(id(parent)))
            if stores > 1 or not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
                return None
            continue
        if isinstance(parent, ast.Attribute) and parent.attr == "append":
            call = parents.get(id(parent))
            if not (isinstance(call, ast.Call) and call.func is parent
                    and len(call.args) == 1 and not call.keywords
                    and not isinstance(call.args[0], ast.Starred)
                    and isinstance(parents.get(id(call)), ast.Expr)):
                return None
            found.append(call.args[0])
        elif isinstance(parent, ast.Subscript) and parent.value is node:
            if not isinstance(parent.ctx, ast.Load):
                return None
        elif isinstance(parent, _READS) and getattr(parent, "iter", node) is node:
            continue  # (``return name``; ``for x in name``, not the loop's body)
        elif isinstance(parent, ast.Tuple) and isinstance(parents.get(id(parent)), ast.Return):
            continue  # (``return name, other``: handed back as ``return name`` is)
        elif isinstance(parent, ast.Assign) and parent.value is node:
            if not all(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets):
                return None  # (an alias; ``first, second = name`` keeps none)
        elif not (isinstance(parent, ast.Call) and (
                isinstance(parent.func, ast.Name) and parent.func.id == "len"
                or resolve is not None and node in parent.args
                and (resolve(parent.func) or "").startswith("torch."))):
            return None
    return found


def _paired(target: ast.Tuple, stmt: Optional[ast.AST]) -> Optional[ast.AST]:
    """``stmt`` where it assigns a tuple of as many values to ``target`` (each name
    gets its own), else ``None``."""
    value = getattr(stmt, "value", None)
    if isinstance(stmt, ast.Assign) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(value.elts) == len(target.elts) and not any(
                isinstance(e, ast.Starred) for e in (*value.elts, *target.elts)):
        return stmt
    return None


def comprehended(values, node: ast.ListComp, scope, depth: int) -> Value:
    """The element of a list comprehension, where what its own names are does not
    matter: a number made by a builtin (``[ord(c) for c in text]``), by a string
    method of a name it does not bind (``[letters.find(c) for c in line]``),
    arithmetic of those, or a constant; a tensor or a module made alike for every
    element (see :mod:`.values`); any value of an element that reads none of the
    comprehension's own names."""
    from .values import MODULE, NUMBER, STRING, UNKNOWN, Value

    _INT, _FLOAT = Value(NUMBER, dtype="int"), Value(NUMBER, dtype="float")
    own = comprehension_targets(node)

    def number(elt: ast.AST) -> Optional[Value]:
        if isinstance(elt, ast.Constant) and type(elt.value) in (int, float):
            return _INT if type(elt.value) is int else _FLOAT
        if isinstance(elt, ast.UnaryOp) and isinstance(elt.op, (ast.USub, ast.UAdd)):
            return number(elt.operand)
        if isinstance(elt, ast.BinOp) and not isinstance(elt.op, ast.Div):
            sides = number(elt.left), number(elt.right)
            if sides[0] and sides[1]:
                return _INT if sides == (_INT, _INT) else _FLOAT
            return None
        if not isinstance(elt, ast.Call):
            return None
        func = elt.func
        if isinstance(func, ast.Name) and func.id in ("int", "len", "ord", "float") \
                and not values.ctx.scope.binds(func.id):
            return _FLOAT if func.id == "float" else _INT
        if isinstance(func, ast.Attribute) and func.attr in ("find", "index", "count") \
                and isinstance(func.value, ast.Name) and func.value.id not in own \
                and values.of(func.value, scope, depth).kind == STRING:
            return _INT
        return None
    found = number(node.elt)
    if found is not None:
        return found
    made = values.of(node.elt, scope, depth)  # (``[torch.FloatTensor(r) for r in rows]``)
    if made.tensor or made.kind == MODULE:  # (``[Critic(n) for ...]``)
        return made
    # an element that reads none of the comprehension's names is one value, read
    # around it (``[make_batch(pairs) for _ in range(n)]``: what the call returns)
    return UNKNOWN if reads_any(node.elt, own) else made


def builtin_of(values, name: str, node: ast.Call, scope, depth: int) -> Value:
    """``abs(x)`` and ``round(x, n)`` of a number, ``min``/``max`` of numbers
    (``min(1, step / x0)``): a number; ``sum(seq)`` (with no
    ``start`` or a number's) of a sequence whose elements are tensors of one
    rank: a tensor of that rank (``0 + t`` keeps ``t``'s rank, dtype and
    plainness), of numbers: a number (see :mod:`.values`)."""
    from .values import LIST, NUMBER, UNKNOWN, join

    first = node.args[0]
    if name in ("min", "max"):  # (of numbers: a number; of anything else, not known)
        parts = [values.of(a, scope, depth) for a in node.args]
        return join(parts) if len(parts) > 1 and not node.keywords and all(
            p.kind == NUMBER for p in parts) else UNKNOWN
    if name != "sum":
        inner = values.of(first, scope, depth)
        return inner if inner.kind == NUMBER else UNKNOWN
    start = node.args[1:] or [k.value for k in node.keywords if k.arg == "start"]
    if len(node.args) > 2 or any(k.arg != "start" for k in node.keywords) or isinstance(
            first, ast.Starred) or start and values.of(start[0], scope, depth).kind != NUMBER:
        return UNKNOWN
    if isinstance(first, (ast.GeneratorExp, ast.ListComp)):
        element = values.of(first.elt, scope, depth)
    else:
        whole = values.of(first, scope, depth)
        element = whole.parts[0] if whole.kind == LIST and whole.parts else UNKNOWN
    if element.tensor and element.rank is not None:
        return element
    return element if element.kind == NUMBER else UNKNOWN
