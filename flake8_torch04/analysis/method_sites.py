"""The calls of a method of a class from the project's other modules, where they
are all evidently on instances of it: ``self.crf.loss(feats, mask)`` in
``seqmodel.py`` of ``CRF.loss`` in ``crf.py``, once ``SeqModel`` binds
``self.crf = CRF(...)``.

A method is reached through any object passed around, so every other module
that spells its name is read (not only the importers): each must spell it only
as ``R.name(`` (or as the ``def`` of a method of its own classes), and each
receiver ``R`` must be, by that module's value facts, an instance of the class
(a call site) or of another class that defines the method itself (not ours,
and not one it inherits from the class); any other receiver leaves the
method's parameters unknown."""
from __future__ import annotations

import ast
import os
import re
from typing import Optional

from .foreign import FOREIGN_CLASS, module_context
from .nodes import children
from .project.summary import cached_text

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
    from .project.importers import spellers

    paths = spellers(ctx.filename, name) if ctx.filename else None
    if paths is None or len(paths) > MOST:
        return None
    ours = f"{FOREIGN_CLASS}{os.path.abspath(ctx.filename)}\0{cls.name}"
    found: list = []
    try:
        for path in paths:
            if not _only_called(path, name):
                return None
            other = module_context(path)
            if other is None:
                return None
            sites = _sites(other, name, ours)
            if sites is None:
                return None
            found += [(other, call, scope) for call, scope in sites]
    except (OSError, ValueError, RecursionError):  # (an unreadable project: unknown)
        return None
    return found


def _only_called(path: str, name: str) -> bool:
    """Whether ``path``'s text spells ``name`` only as ``.name(`` or ``def name(``
    (or maybe in a comment or a string), cheap, before the module is read."""
    text = cached_text(path)
    if text is None:
        return False
    for match in re.finditer(rf"\b{re.escape(name)}\b", text):
        before = text[max(0, match.start() - 8):match.start()]
        after = text[match.end():match.end() + 8]
        if (before.rstrip().endswith(".") or re.search(r"\bdef\s+$", before)) and \
                after.lstrip().startswith("("):
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        if not re.search(r"[#'\"]", text[start:match.start()]):
            return False
    return True


def _sites(other, name: str, ours: str) -> Optional[list]:
    """The calls ``R.name(...)`` of ``other`` on instances of the class ``ours``
    names; ``None`` where a receiver is neither that nor another class's instance
    that defines the method itself."""
    from .values import MODULE, values

    facts = values(other)
    found = []
    stack = [(other.tree, other.tree)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == name:
            receiver = facts.of(node.func.value, scope)
            if receiver.kind == MODULE and _same(receiver.name, ours):
                found.append((node, scope))
            elif not (receiver.kind == MODULE and defines(other, facts, receiver.name, name)):
                return None
        inner = node if isinstance(node, _FUNCTIONS) else scope
        stack += [(child, inner) for child in children(node)]
    return found


def _same(module: Optional[str], ours: str) -> bool:
    """Whether the :data:`FOREIGN_CLASS` value name ``module`` names the class ``ours`` does."""
    if not module or not module.startswith(FOREIGN_CLASS):
        return False
    path, _, cls_name = module[len(FOREIGN_CLASS):].rpartition("\0")
    return f"{FOREIGN_CLASS}{os.path.abspath(path)}\0{cls_name}" == ours


def defines(other, facts, module: Optional[str], name: str) -> bool:
    """Whether the module class ``module`` names (of ``other``'s file, or of
    another module) defines the method ``name`` in its own body."""
    from .values import FILE_CLASS

    if not module:
        return False
    if module.startswith(FILE_CLASS):
        cls = facts.module_classes().get(module[len(FILE_CLASS):])
    elif module.startswith(FOREIGN_CLASS):
        path, _, cls_name = module[len(FOREIGN_CLASS):].rpartition("\0")
        where = module_context(path)
        cls = where.defined_once().get(cls_name) if where is not None else None
    else:
        return False
    return isinstance(cls, ast.ClassDef) and any(
        isinstance(s, _FUNCTIONS) and s.name == name for s in cls.body)
