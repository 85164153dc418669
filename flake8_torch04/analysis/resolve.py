"""Scopes, bindings and the resolution of names to canonical qualified names.

A name counts as a torch symbol only when it resolves to one through the
file's imports.  The walker in ``_core`` feeds bindings in source order (function
bodies deferred until their enclosing scope is complete, as pyflakes does), so a
lookup sees exactly the bindings that precede the use in its own scope and all
bindings of the enclosing scopes.

Deliberately not followed (pinned by tests): assignments of modules to names
(``t = torch``), attribute access on instances, ``importlib`` and ``__import__``.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set

from .canonical import CANONICAL, PROJECT, STAR_EXPORTS, canonical


class Binding:
    """One binding of a name: ``qualname`` is set for imports, ``None`` otherwise."""

    __slots__ = ("qualname", "fallback")

    def __init__(self, qualname: Optional[str], fallback: bool = False) -> None:
        self.qualname = qualname
        # bound in an ``except ImportError`` handler: a fallback that does not
        # shadow the import it stands in for
        self.fallback = fallback

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Binding({self.qualname!r}, fallback={self.fallback})"


_NO_NAMES: frozenset = frozenset()


class Scope:
    __slots__ = ("kind", "node", "parent", "bindings", "globals", "stars", "imported")

    def __init__(self, kind: str, node: ast.AST, parent: Optional["Scope"]) -> None:
        self.kind = kind  # "module", "class", "function", "comprehension"
        self.node = node
        self.parent = parent
        self.bindings: Dict[str, List[Binding]] = {}
        self.globals: Set[str] = set()
        self.stars: List[str] = []
        #: the names an import binds here (a set once there is one): the only
        #: names a lookup can resolve, but through a star import
        self.imported: Set[str] = _NO_NAMES  # type: ignore[assignment]

    def bind(self, name: str, binding: Binding) -> None:
        bindings = self.bindings.get(name)
        if bindings is None:
            self.bindings[name] = [binding]
        else:
            bindings.append(binding)
        if binding.qualname is not None:
            if self.imported is _NO_NAMES:
                self.imported = set()
            self.imported.add(name)

    def binds(self, name: str) -> bool:
        """Whether ``name`` is bound here or in an enclosing scope that code here
        sees (a builtin such as ``type`` or ``isinstance`` is then shadowed): a
        class's body is not seen from its methods (``def next(self)`` leaves
        the builtin ``next`` to them)."""
        scope: Optional[Scope] = self
        while scope is not None:
            if name in scope.bindings and (scope is self or scope.kind != "class"):
                return True
            scope = scope.parent
        return False

    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def function(self) -> Optional["Scope"]:
        """The innermost enclosing function scope (``None`` at module level)."""
        scope: Optional[Scope] = self
        while scope is not None and scope.kind not in ("function", "module"):
            scope = scope.parent
        return scope if scope is not None and scope.kind == "function" else None


def resolvable_names(scope: Scope) -> Optional[Set[str]]:
    """The names bound around ``scope`` that may resolve to a qualified name from
    it: those an import binds in one of its scopes.  ``None`` when the module has
    a star import (a name bound only in a class around may then resolve through
    it): every bound name may.  A few names, where looking up every name bound
    in the module would make each question a pass over the whole file."""
    names: Set[str] = set()
    current: Optional[Scope] = scope
    while current is not None:
        if current.parent is None and current.stars:
            return None
        names.update(current.imported)
        current = current.parent
    return names


def _pick(bindings: List[Binding]) -> Binding:
    """The binding in force: the latest, unless it is an import fallback."""
    latest = bindings[-1]
    if latest.fallback:
        for binding in reversed(bindings):
            if binding.qualname is not None and not binding.fallback:
                return binding
    return latest


def lookup(name: str, scope: Scope) -> Optional[str]:
    """Qualified name that ``name`` resolves to from ``scope``, or ``None``."""
    current: Optional[Scope] = scope
    root = scope
    innermost = True
    while current is not None:
        if current.kind == "class" and not innermost:
            current = current.parent
            continue
        if current.globals and name in current.globals:
            current = current.module()
        bindings = current.bindings.get(name)
        if bindings:
            latest = bindings[-1]  # (:func:`_pick`, inline: the common case is no fallback)
            qualname = (_pick(bindings) if latest.fallback else latest).qualname
            if qualname is not None and qualname.startswith(PROJECT):
                return _project_name(qualname)
            return qualname
        innermost = False
        root = current  # (the last scope looked in is the module's: no class ends a chain)
        current = current.parent
    for module in root.stars:
        if module.startswith(PROJECT):  # ``from model import *`` (see ``_project``)
            from .project.lookup import star_lookup

            found, qualname = star_lookup(module, name)
            if found:
                return qualname
        elif name in STAR_EXPORTS.get(module, ()):
            return canonical(f"{module}.{name}")
    return None


def _project_name(qualname: str) -> Optional[str]:
    """What a name imported from a project module is there (built when asked)."""
    from .project.lookup import translate

    return translate(qualname)


def builtin_call(node: ast.AST, scope: Scope, name: str, count: int) -> bool:
    """Whether ``node`` calls the builtin ``name`` (not shadowed in ``scope``) with
    ``count`` plain positional arguments and nothing else."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and len(node.args) == count
        and not node.keywords
        and not any(isinstance(arg, ast.Starred) for arg in node.args)
        and not scope.binds(name)
    )


_Name = ast.Name
_Attribute = ast.Attribute


def key(node: ast.AST) -> Optional[str]:
    """``"a.b.c"`` for a ``Name``/``Attribute`` chain, else ``None``."""
    cls = node.__class__
    if cls is _Name:  # (the common cases, without the list)
        return node.id  # type: ignore[attr-defined,no-any-return]
    if cls is _Attribute and node.value.__class__ is _Name:  # type: ignore[attr-defined]
        return node.value.id + "." + node.attr  # type: ignore[attr-defined,no-any-return]
    if cls is not _Attribute and not isinstance(node, _Attribute):
        return node.id if isinstance(node, _Name) else None  # type: ignore[attr-defined]
    parts: List[str] = []
    while isinstance(node, _Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, _Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def resolve(node: ast.AST, scope: Scope) -> Optional[str]:
    """Canonical qualified name of a ``Name``/``Attribute`` chain, or ``None``.

    The head name is looked up before the dotted spelling is built: most
    chains start with a name that is not an import (``self``, a local)."""
    cls = node.__class__
    if cls is _Name:
        base = lookup(node.id, scope)  # type: ignore[attr-defined]
        return None if base is None else CANONICAL.get(base, base)
    if cls is _Attribute and node.value.__class__ is _Name:  # type: ignore[attr-defined]
        base = lookup(node.value.id, scope)  # type: ignore[attr-defined]  (``F.relu``)
        if base is None:
            return None
        dotted = base + "." + node.attr  # type: ignore[attr-defined]
        if base.startswith(PROJECT):  # an attribute of a project module
            return _project_name(dotted)
        return CANONICAL.get(dotted, dotted)
    attrs: List[str] = []
    while isinstance(node, _Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, _Name):
        return None
    base = lookup(node.id, scope)
    if base is None:
        return None
    if not attrs:
        return CANONICAL.get(base, base)
    attrs.append(base)
    dotted = ".".join(reversed(attrs))
    if base.startswith(PROJECT):  # an attribute of a project module
        return _project_name(dotted)
    return CANONICAL.get(dotted, dotted)


def import_bindings(node: ast.AST) -> List[tuple]:
    """``(bound name, qualified name)`` pairs for an import statement.

    ``import torch.nn`` binds ``torch``; ``import torch.nn as nn`` binds ``nn`` to
    ``torch.nn``; a relative ``from . import x`` binds ``x`` to no qualified
    name (it is the project's own code).
    """
    pairs = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                pairs.append((alias.asname, alias.name))
            else:
                top = alias.name.split(".", 1)[0]
                pairs.append((top, top))
    elif isinstance(node, ast.ImportFrom):
        module = None if node.level else node.module
        for alias in node.names:
            if alias.name == "*":
                continue
            qualname = canonical(f"{module}.{alias.name}") if module else None
            pairs.append((alias.asname or alias.name, qualname))
    return pairs
