"""The classes a class of the project derives from, read where each is defined.

``class BottleSoftmax(Bottle, nn.Softmax)`` with ``class Bottle(nn.Module)``: the
project's classes of the chain (``BottleSoftmax``, ``Bottle``), each with the
:class:`~.context.Context` of its module (a base of the file, or one a module
imports from another module of the project: :func:`.foreign.project_class`), and
the classes outside the project the chain ends in (``torch.nn.Softmax``,
``torch.nn.Module``).  A class whose chain cannot be told in full (a base that is
neither a name of the file, of the project, nor resolved through an import; a
decorator or a metaclass; a chain deeper than :data:`_DEPTH`) has no hierarchy:
``None``.

TV104 asks a looser question (does any chain reach ``torch.autograd.Function``?)
through :func:`.project.classes.outside_ancestors`; this one is for a rule that
must see every class in between (what it defines before the torch class does).
"""
from __future__ import annotations

import ast
from typing import FrozenSet, List, NamedTuple, Optional, Set, Tuple

from .canonical import PROJECT
from .context import Context
from .resolve import resolve

#: how many classes deep a chain is followed
_DEPTH = 8
#: the classes outside the project a class may derive from and stay plain: they
#: bind no attribute and define no method a program of the project reads
PLAIN_BASES = frozenset(("object", "torch.nn.Module", "torch.utils.data.Dataset",
                         "torch.utils.data.dataset.Dataset"))


class Hierarchy(NamedTuple):
    #: the project's classes of the chain, the class first, each with its module's context
    classes: Tuple[Tuple[Context, ast.ClassDef], ...]
    #: the qualified names of the classes outside the project the chain ends in
    outside: FrozenSet[str]


def constructed(ctx: Context, func: ast.AST, qualname: Optional[str]
                ) -> Optional[Tuple[Context, ast.ClassDef]]:
    """The class a call of ``func`` (at the node the walker is visiting; ``qualname``:
    what ``func`` resolves to there) makes an instance of: a class defined once at
    the top of the file and bound there by nothing else, or a class of another
    module of the project imported at the top of the file (``from layers import
    BottleSoftmax``, ``layers.BottleSoftmax``); ``None`` otherwise, also where a
    function around binds the name."""
    if qualname is not None and not qualname.startswith(PROJECT):
        return None  # (cheap first: a torch name, a builtin's import, ...)
    head = func.value if isinstance(func, ast.Attribute) else func
    if not isinstance(head, ast.Name) or _bound_inside(ctx, head.id):
        return None
    module = ctx.scope.module()
    if qualname is None:
        own = ctx.defined_once().get(func.id) if isinstance(func, ast.Name) else None
        if own is not None:
            bindings = module.bindings.get(func.id, ())
            return (ctx, own) if isinstance(own, ast.ClassDef) and len(bindings) == 1 \
                and bindings[0].qualname is None else None
    if not ctx.project:
        return None
    from .foreign import project_class

    return project_class(ctx, func)


def hierarchy(ctx: Context, cls: ast.ClassDef) -> Optional[Hierarchy]:
    """The :class:`Hierarchy` of ``cls``, a class defined at the top of ``ctx``'s
    module (made once per class and file)."""
    memo = ctx.memo.setdefault("hierarchy", {})
    if id(cls) not in memo:  # type: ignore[operator]
        classes: List[Tuple[Context, ast.ClassDef]] = []
        outside: Set[str] = set()
        memo[id(cls)] = Hierarchy(tuple(classes), frozenset(outside)) \
            if _walk(ctx, cls, classes, outside, 0) else None  # type: ignore[index]
    return memo[id(cls)]  # type: ignore[index,no-any-return]


def _walk(ctx: Context, cls: ast.ClassDef, classes: List[Tuple[Context, ast.ClassDef]],
          outside: Set[str], depth: int) -> bool:
    if depth > _DEPTH or cls.decorator_list or cls.keywords:
        return False  # (a decorator or a metaclass may make anything of it)
    if any(c is cls for _, c in classes):
        return True  # (a diamond: read once)
    classes.append((ctx, cls))
    module = ctx.scope.module()
    for base in cls.bases:
        qualname = resolve(base, module)
        if qualname is not None and not qualname.startswith(PROJECT):
            outside.add(qualname)
            continue
        if isinstance(base, ast.Name):
            own = ctx.defined_once().get(base.id)
            if isinstance(own, ast.ClassDef) and qualname is None:
                if own is cls or not _walk(ctx, own, classes, outside, depth + 1):
                    return False
                continue
            if base.id == "object" and qualname is None and own is None \
                    and base.id not in module.bindings:
                outside.add("object")
                continue
        if not isinstance(base, (ast.Name, ast.Attribute)) or not ctx.project:
            return False
        from .foreign import project_class

        found = project_class(ctx, base)
        if found is None or not _walk(found[0], found[1], classes, outside, depth + 1):
            return False
    return True


def _bound_inside(ctx: Context, name: str) -> bool:
    """Whether a function (or the class) around the node being visited binds ``name``."""
    scope = ctx.scope
    innermost = True
    while scope.parent is not None:
        if (innermost or scope.kind != "class") and name in scope.bindings \
                and name not in scope.globals:
            return True
        innermost = False
        scope = scope.parent
    return False


def on_modules(ctx: Context, cls: ast.ClassDef) -> bool:
    """Whether every chain of ``cls``'s bases ends in ``torch.nn.Module`` alone, through
    classes of the project (``class VAE(Model)`` with ``class Model(nn.Module)`` in
    ``models/Model.py``)."""
    if all((ctx.resolve(b) or "").startswith("torch.") for b in cls.bases):
        return False  # (torch's classes only: ``nn.Module`` is asked first, others are not)
    found = hierarchy(ctx, cls)
    return found is not None and found.outside == frozenset(("torch.nn.Module",))
