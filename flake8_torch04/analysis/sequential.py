"""The layers of an ``nn.Sequential``, for the value facts (:mod:`.values`).

``nn.Sequential(nn.Linear(4, 8), nn.ReLU())`` has the layers it is given.  A
0.3-era VAE builds its MLPs empty and fills them::

    self.MLP = nn.Sequential()
    for i, (in_size, out_size) in enumerate(zip(sizes[:-1], sizes[1:])):
        self.MLP.add_module(name="L%i" % i, module=nn.Linear(in_size, out_size))
        self.MLP.add_module(name="A%i" % i, module=nn.ReLU())

:func:`sequential` gives such a module the layers that the ``add_module``
calls on its binding add, after the ones it is given, where nothing else can
change them (see :func:`_added`): the Sequential is bound once, to a name (in a
function, or at the top of the module) or to ``self.X`` in an ``__init__``, and
every ``add_module`` is a statement of its own in the same block after the
binding, or inside statements there.  An ``add_module`` in a loop or a branch
may add its module any number of times, or not at all: such a layer must keep
its input's rank (:data:`~.value_tables.SAME_RANK_MODULES`), and a ``Linear``
among them its output features unknown (``last``); a layer added straight on
keeps its place.  Names that are not distinct string constants (``"L%i" % i``)
may replace a layer in its place: then every layer is taken as such.

Unknown (the Sequential's layers are not known), where an added module is not
evidently a module, where ``add_module`` is called otherwise (a starred argument,
on the binding elsewhere: another function, another method, before the binding),
where the Sequential is handed on (an argument, an alias, stored, returned by
another function or before an ``add_module``), or changed otherwise (``del
X[i]``, ``X[i] = m``, ``X.name = m``).  Reads that leave it as it is are allowed:
calling it, indexing it, iterating it, ``len(X)`` and ``print(X)`` (the builtins
of :data:`_READERS`), the methods of :data:`_READS` and of
:data:`~.value_tables.MODULE_ITSELF` (``X.cuda()``, as a statement of its own),
and ``return X`` after every ``add_module`` (a builder function's; what its
callers do with the module is theirs, as for any module a function returns).

A Sequential given its layers is read the same way (``del X[0]`` or handing it
on leaves them unknown) in a file that says ``add_module``; in any other file
its uses are not read (a limit, for the cost: ``del X[0]`` there is not seen,
pinned in ``tests/test_values.py``), and an empty one has no layers to find.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from .nodes import enclosing, function_around
from .value_tables import MODULE, MODULE_ITSELF, SAME_RANK_MODULES

SEQUENTIAL = "torch.nn.Sequential"
#: methods of a module that read it (or return it, as ``cuda()`` does: then only
#: as statements of their own, see :func:`_use`)
_READS = frozenset(("parameters", "named_parameters", "children", "named_children",
                    "modules", "named_modules", "buffers", "named_buffers", "state_dict",
                    "zero_grad", "forward", "extra_repr", "__len__"))
#: builtins that read a module they are given
_READERS = frozenset(("print", "len", "repr", "str", "isinstance", "type", "id"))
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)
#: statements whose body runs once, straight on
_STRAIGHT = (ast.With, ast.AsyncWith)
#: what :func:`_added` answers where the Sequential is not bound to a name or ``self.X``
_UNBOUND: List[Tuple[ast.AST, ast.AST, bool]] = []


def sequential(values, node: ast.Call, scope, depth: int):
    """The value of ``nn.Sequential(...)`` (``node``, read in ``scope``): a module
    with its layers as ``parts`` where they are known (see the module's text)."""
    from .values import Value

    given = [values.of(a, scope, depth) for a in node.args]
    if node.keywords or not all(layer.kind == MODULE for layer in given):
        return Value(MODULE, name=SEQUENTIAL)
    added = _added(values.ctx, node) if "add_module" in values.ctx.text \
        else _UNBOUND  # (nothing adds to it: the layers given, if any)
    if added is None:
        return Value(MODULE, name=SEQUENTIAL)
    names = [a[0] for a in added]
    distinct = all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in names) \
        and len({n.value for n in names} | {str(i) for i in range(len(given))}) \
        == len(names) + len(given)  # (a name given again replaces a layer in its place)
    layers = [(layer, distinct) for layer in given]
    if added:
        where = function_around(values.ctx.file_parents(), node, values.ctx.tree)  # (its calls')
        layers += [(values.of(module, where, depth), distinct and straight)
                   for _, module, straight in added]
    found = []
    for layer, certain in layers:
        if layer.kind != MODULE:
            return Value(MODULE, name=SEQUENTIAL)
        if not certain:  # (here any number of times: its rank, not its features)
            if layer.name not in SAME_RANK_MODULES:
                return Value(MODULE, name=SEQUENTIAL)
            layer = Value(MODULE, name=layer.name)
        found.append(layer)
    return Value(MODULE, name=SEQUENTIAL, parts=tuple(found) or None)


def _added(ctx, node: ast.Call) -> Optional[List[Tuple[ast.AST, ast.AST, bool]]]:
    """``(name, module, straight)`` of every ``add_module`` on the binding of the
    Sequential ``node`` makes, in source order (``straight``: not in a loop or a
    branch); ``[]`` where ``node`` is not assigned (``return nn.Sequential(...)``,
    an argument: it has the layers it is given); ``None`` where its layers may
    change otherwise, or it is assigned to anything but a name or ``self.X`` of an
    ``__init__``."""
    parents = ctx.file_parents()
    stmt = parents.get(id(node))
    if isinstance(stmt, (ast.AnnAssign, ast.NamedExpr)):
        return None  # (not followed)
    if not (isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1):
        return _UNBOUND if not isinstance(stmt, ast.Assign) else None
    target = stmt.targets[0]
    function = enclosing(parents, stmt, _SCOPES)
    if isinstance(target, ast.Name) and isinstance(function, (*_FUNCTIONS, ast.Module)):
        if len(ctx.flow_of(function).defs(target.id)) != 1:
            return None
        uses = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == target.id]
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
            and target.value.id == "self" and isinstance(function, _FUNCTIONS) \
            and function.name == "__init__":
        uses = _self_uses(ctx, function, target.attr)
        if uses is None:
            return None
    else:
        return None  # (bound where other code may reach it: ``obj.seq = ...``)
    found: list = []
    returned: List[ast.Return] = []
    for use in uses:
        if use is target:
            continue
        verdict = _use(parents, use, ctx.scope.module().bindings)
        if verdict is False:
            return None
        if isinstance(verdict, ast.Return):  # (handed back when every call is made)
            returned.append(verdict)
        elif verdict is not True:  # (an ``add_module`` call)
            straight = _after(parents, verdict, stmt, function)
            if straight is None:
                return None
            found.append((*_arguments(verdict.value), straight, verdict.end_lineno))
    last = max([stmt.end_lineno or stmt.lineno, *(f[3] for f in found)])
    if any(r.lineno <= last or enclosing(parents, r, _SCOPES) is not function
           for r in returned):
        return None
    return [f[:3] for f in found]


def _self_uses(ctx, init: ast.FunctionDef, attr: str) -> Optional[List[ast.AST]]:
    """The attributes ``attr`` of the file that may be the one ``self.attr = ...`` of
    ``init`` binds: ``self.attr`` in the class (bound there once) and in the classes
    of the file on it, ``x.attr`` of any other ``x``; ``None`` where that is not the
    one binding of ``self.attr`` in the class."""
    parents = ctx.file_parents()
    cls = parents.get(id(init))
    if not isinstance(cls, ast.ClassDef):
        return None
    from .values import values as values_of

    if len(values_of(ctx).attributes(cls).get(attr) or ()) != 1:
        return None
    found = []
    for node in _attributes(ctx).get(attr, ()):
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            owner = enclosing(parents, node, ast.ClassDef)
            if owner is not cls and owner is not None and not any(
                    isinstance(b, ast.Name) and b.id == cls.name for b in owner.bases):
                continue  # (another class's own ``self.attr``)
        found.append(node)
    return found


def _attributes(ctx) -> Dict[str, List[ast.Attribute]]:
    """The file's attribute nodes, by attribute name (made once)."""
    found = ctx.memo.get("sequential attributes")
    if found is None:
        found = ctx.memo["sequential attributes"] = {}
        for node in ast.walk(ctx.tree):
            if isinstance(node, ast.Attribute):
                found.setdefault(node.attr, []).append(node)
    return found


def _use(parents: Dict[int, ast.AST], use: ast.AST, bound=frozenset()):
    """``True`` where ``use`` (the Sequential's name or ``self.X``) leaves its layers
    as they are, the ``ast.Expr`` statement where it calls ``add_module`` (with
    a name and a module, plainly passed), the ``ast.Return`` that returns it,
    ``False`` otherwise (``bound``: the names the module binds)."""
    parent = parents.get(id(use))
    if not isinstance(use.ctx, ast.Load):
        return False
    if isinstance(parent, ast.Return):
        return parent  # (see :func:`_added`: after every ``add_module``)
    if isinstance(parent, ast.Call):  # (applied; ``print(model)``: a builtin that reads)
        return parent.func is use or (isinstance(parent.func, ast.Name) and parent.func.id
                                      in _READERS and parent.func.id not in bound)
    if isinstance(parent, ast.Subscript):
        return parent.value is use and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, (ast.For, ast.AsyncFor)):
        return parent.iter is use
    if not (isinstance(parent, ast.Attribute) and isinstance(parent.ctx, ast.Load)):
        return False
    call = parents.get(id(parent))
    called = isinstance(call, ast.Call) and call.func is parent
    if parent.attr == "add_module":
        stmt = parents.get(id(call))
        return stmt if called and isinstance(stmt, ast.Expr) and \
            _arguments(call) is not None else False
    if parent.attr in MODULE_ITSELF:  # (``self.MLP.cuda()``: the same module, not kept)
        return called and isinstance(parents.get(id(call)), ast.Expr)
    return parent.attr in _READS


def _arguments(call: ast.Call) -> Optional[Tuple[ast.AST, ast.AST]]:
    """The name and the module ``add_module(name, module)`` passes, or ``None``."""
    if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > 2:
        return None
    given = dict(zip(("name", "module"), call.args))
    for kw in call.keywords:
        if kw.arg not in ("name", "module") or kw.arg in given:
            return None
        given[kw.arg] = kw.value
    return (given["name"], given["module"]) if len(given) == 2 else None


def _after(parents: Dict[int, ast.AST], stmt: ast.stmt, binding: ast.stmt,
           function: ast.AST) -> Optional[bool]:
    """Whether ``stmt`` runs straight on after ``binding`` (in its block, or in a
    ``with`` there), ``False`` where it is in a loop or a branch after it there,
    ``None`` where it is not after it in its block (or in another function)."""
    block = parents.get(id(binding))
    straight = True
    while True:
        above = parents.get(id(stmt))
        if above is None or above is function and block is not function:
            return None
        if above is block and _same_block(above, stmt, binding):
            return straight if stmt.lineno > binding.lineno else None
        if above is function or isinstance(above, _SCOPES):
            return None
        straight = straight and isinstance(above, _STRAIGHT)
        stmt = above


def _same_block(holder: ast.AST, stmt: ast.stmt, binding: ast.stmt) -> bool:
    """Whether ``stmt`` and ``binding`` are in the same list of statements of ``holder``."""
    for name in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(holder, name, None)
        if isinstance(block, list) and any(s is binding for s in block):
            return any(s is stmt for s in block)
    return False
