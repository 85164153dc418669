"""Who calls the ``forward`` of a module class of the file, and with what: the
arguments that reach a parameter of ``forward`` (for rules that follow a value
into it; the value facts themselves read ``forward`` with the arguments of one
call at a time, see :mod:`.applied`).

``torch`` calls ``forward`` when an instance is called (``ff(x)``), so its
callers are in view only where every instance is: the class is spelled in no
other file of the project that can import from the module, every reading of
its name in the file is a constructor call bound to a plain name or to
``self.name`` (also one item of a tuple assignment: ``ff, head = FF(), Head()``),
and every reading of such a name (``ff``, ``self.ff``, anywhere in the file) is
a call of it, or a method call on it whose result is not kept (``ff.eval()``;
``ff = ff.cuda()``, which rebinds the name itself).  An instance passed along,
stored in a list or an ``nn.Sequential``, a call with ``*args`` or in a lambda
or a comprehension, and the class's own ``self.forward(...)``: callers not in
view, so nothing is known.  A subclass of the file that inherits ``forward``
(``class BottleLinear(Bottle, nn.Linear)``: ``Bottle`` first, or after bases of
the file only, none defining ``forward`` itself) adds the calls of its own
instances, on the same terms; one that defines ``forward`` itself, or that
puts a base from elsewhere first, leaves the callers out of view.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from .callers import Site, method_arguments
from .nodes import children
from .value_tables import MODULE_ITSELF

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_OPAQUE = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.ClassDef)


def _walk(tree: ast.AST) -> List[tuple]:
    """Every node of ``tree`` with its parent and the function (or module) a call
    in it is read in (``None`` in a lambda, a comprehension or a class body)."""
    found, stack = [], [(tree, None, tree)]
    while stack:
        node, parent, scope = stack.pop()
        found.append((node, parent, scope))
        if isinstance(node, _FUNCTIONS):
            scope = node
        elif isinstance(node, _OPAQUE):
            scope = None
        stack += [(child, node, scope) for child in children(node)]
    return found


def _target(node: ast.AST) -> Optional[Tuple[str, str]]:
    """``("name", id)`` for a plain name, ``("self", attr)`` for ``self.attr``."""
    if isinstance(node, ast.Name):
        return "name", node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id == "self":
        return "self", node.attr
    return None


def _bound_to(call: ast.Call, parents: Dict[int, ast.AST]) -> Optional[Tuple[str, str]]:
    """What the constructor call ``call`` is bound to, where that is one plain
    name or ``self.name``."""
    parent = parents.get(id(call))
    if isinstance(parent, ast.Tuple):
        outer = parents.get(id(parent))
        if not isinstance(outer, ast.Assign) or len(outer.targets) != 1 or \
                not isinstance(outer.targets[0], ast.Tuple) or \
                len(outer.targets[0].elts) != len(parent.elts):
            return None
        return _target(outer.targets[0].elts[parent.elts.index(call)])
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        return _target(parent.targets[0])
    return None


def _calls(ctx, cls: ast.ClassDef, within: Tuple[int, ...] = ()) -> Optional[List[Site]]:
    """Every call of an instance of ``cls`` (or of a subclass that inherits its
    ``forward``), or ``None`` when not every call is in view."""
    from .project.importers import named_elsewhere

    memo = ctx.memo.setdefault("instance calls", {})
    if id(cls) not in memo:
        memo[id(cls)] = None if id(cls) in within or ctx.filename and named_elsewhere(
            ctx.filename, cls.name, imported=True) else _instance_calls(
                ctx, cls, within + (id(cls),))
    return memo[id(cls)]


def _inherits_forward(ctx, sub: ast.ClassDef, base: ast.expr) -> bool:
    """Whether ``sub``'s instances run the ``forward`` of its base ``base`` (a name
    of a class of the file): ``sub`` binds none, and every base before ``base``
    is a class the file defines once, with no base (but ``object``) and no
    ``forward``."""
    from .objects import class_binds

    if class_binds(sub, "forward"):
        return False
    for before in sub.bases[:sub.bases.index(base)]:
        cls = ctx.defined_once().get(before.id) if isinstance(before, ast.Name) else None
        if not isinstance(cls, ast.ClassDef) or class_binds(cls, "forward") or any(
                not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
            return False
    return True


def _instance_calls(ctx, cls: ast.ClassDef, within: Tuple[int, ...]
                    ) -> Optional[List[Site]]:
    walked = ctx.memo.get("instance walk")  # (one walk of the file for every class)
    if walked is None:
        nodes = _walk(ctx.tree)
        walked = ctx.memo["instance walk"] = (
            nodes, {id(node): parent for node, parent, _ in nodes})
    nodes, parents = walked
    instances: Set[Tuple[str, str]] = set()
    inherited: List[Site] = []
    for node, parent, _ in nodes:
        if isinstance(node, ast.Name) and node.id == cls.name and \
                isinstance(node.ctx, ast.Load):
            if isinstance(parent, ast.ClassDef) and node in parent.bases and \
                    parent in ctx.tree.body:  # (a subclass of the file)
                if not _inherits_forward(ctx, parent, node):
                    return None
                more = _calls(ctx, parent, within)
                if more is None:
                    return None
                inherited += more
                continue
            if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node \
                    and isinstance(parent.func, ast.Name) and parent.func.id == "super":
                continue  # (``super(Net, self)``, Python 2's ``super()``: no call of it)
            if not (isinstance(parent, ast.Call) and parent.func is node):
                return None  # (a subclass, ``isinstance``, the class passed along)
            bound = _bound_to(parent, parents)
            if bound is None:
                return None
            instances.add(bound)
    sites: List[Site] = []
    for node, parent, scope in nodes:
        if not isinstance(node, (ast.Name, ast.Attribute)) or \
                not isinstance(node.ctx, ast.Load) or _target(node) not in instances:
            continue
        if isinstance(parent, ast.Call) and parent.func is node:
            if scope is None:
                return None
            sites.append((parent, scope))
            continue
        call = parents.get(id(parent))
        if not (isinstance(parent, ast.Attribute) and isinstance(call, ast.Call) and
                call.func is parent) or parent.attr in ("forward", "__call__"):
            return None
        if parent.attr in MODULE_ITSELF:  # (the module itself: only where not kept)
            kept = parents.get(id(call))
            if not (isinstance(kept, ast.Expr) or isinstance(kept, ast.Assign) and
                    len(kept.targets) == 1 and _target(kept.targets[0]) == _target(node)):
                return None
    return sites + inherited


def forward_arguments(ctx, param: ast.arg, forward: ast.FunctionDef,
                      cls: ast.ClassDef) -> Optional[List[Site]]:
    """What reaches ``param`` of ``forward`` (of the module class ``cls`` of the
    file) from every call of an instance: ``(expression, scope to read it in)``
    per call, or ``None`` when not every call is in view (see the module's
    docstring)."""
    sites = _calls(ctx, cls)
    if not sites:
        return None
    return method_arguments(ctx, sites, forward, param)
