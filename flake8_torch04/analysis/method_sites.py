"""The calls of a method of a class from the project's other modules, where they
are all evidently on instances of it: ``self.crf.loss(feats, mask)`` in
``seqmodel.py`` of ``CRF.loss`` in ``crf.py``, once ``SeqModel`` binds
``self.crf = CRF(...)``.

A method is reached through any object passed around, so every other module
that spells its name is read (not only the importers): each must read it only
as ``R.name(...)`` (a docstring or a comment that uses the word is no matter;
``getattr(obj, 'name')`` or ``f = obj.name`` is), and each receiver ``R`` must
be, by that module's value facts, an instance of the class (a call site) or of
another class that defines the method itself (not ours, and not one it
inherits from the class); any other receiver leaves the method's parameters
unknown."""
from __future__ import annotations

import ast
import os
from typing import Optional, Tuple

from .foreign import FOREIGN_CLASS, module_context

#: the most other modules read for one method
MOST = 24
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def method_sites(ctx, cls: ast.ClassDef, method: ast.AST) -> Optional[list]:
    """``(module context, call, scope)`` of every call of ``method`` of ``cls``
    (a module-level class of ``ctx``'s file) from the project's other modules, or
    ``None`` where not every use there is evidently one (remembered per file)."""
    memo = ctx.memo.setdefault("method sites", {})
    if id(method) not in memo:
        memo[id(method)] = _read(ctx, cls, method.name)  # type: ignore[attr-defined]
    return memo[id(method)]


def _read(ctx, cls: ast.ClassDef, name: str) -> Optional[list]:
    from .importing import remote_sites
    from .project.importers import spellers

    paths = spellers(ctx.filename, name) if ctx.filename else None
    if paths is None or len(paths) > MOST:
        return None
    ours = f"{os.path.abspath(ctx.filename)}\0{cls.name}"
    return remote_sites(paths, lambda other: _sites(other, name, ours))


def _sites(other, name: str, ours: str) -> Optional[list]:
    """The calls ``R.name(...)`` of ``other`` on instances of the class ``ours``
    names; ``None`` where a receiver is neither that nor another class's instance
    that defines the method itself."""
    from .callers import file_method_callers
    from .values import MODULE, OBJECT, values

    calls = file_method_callers(other)
    if calls.read_otherwise(name):
        return None  # (``f = obj.name``, ``getattr(obj, 'name')``: passed around)
    facts = values(other)
    found = []
    for node, scope in calls.attribute_calls().get(name, ()):
        receiver = facts.of(node.func.value, scope)  # type: ignore[attr-defined]
        if receiver.kind in (MODULE, OBJECT) and _same(receiver.name, ours):
            found.append((node, scope))
        elif not (receiver.kind in (MODULE, OBJECT)
                  and defines(other, facts, receiver.name, name)):
            return None
    return found


def _class_named(name: Optional[str]) -> Optional[Tuple[str, str]]:
    """``(module path, class name)`` of a value name of another module's class
    (:data:`FOREIGN_CLASS`) or of a plain class's instance (:data:`~.objects.PLAIN`)."""
    from .objects import PLAIN

    for prefix in (FOREIGN_CLASS, PLAIN):
        if name and name.startswith(prefix):
            path, _, cls_name = name[len(prefix):].rpartition("\0")
            return path, cls_name
    return None


def _same(name: Optional[str], ours: str) -> bool:
    """Whether the value name ``name`` names the class ``ours`` does (``path\0class``)."""
    found = _class_named(name)
    return found is not None and f"{os.path.abspath(found[0])}\0{found[1]}" == ours


def defines(other, facts, module: Optional[str], name: str) -> bool:
    """Whether the class the value name ``module`` names (a module class of
    ``other``'s file or of another module, or a plain class) defines the method
    ``name`` in its own body."""
    from .values import FILE_CLASS

    named = _class_named(module)
    if module and module.startswith(FILE_CLASS):
        cls = facts.module_classes().get(module[len(FILE_CLASS):])
    elif named is not None:
        path, cls_name = named
        where = other if path == other.filename else module_context(path)
        cls = where.defined_once().get(cls_name) if where is not None else None
    else:
        return False
    return isinstance(cls, ast.ClassDef) and any(
        isinstance(s, _FUNCTIONS) and s.name == name for s in cls.body)
