"""The ancestors of a class the project defines: the classes outside the project
(``torch.autograd.Function``) that it derives from, through its modules' imports,
star imports and classes (stdlib ``ast`` on the modules' summaries)."""
from __future__ import annotations

import ast
from typing import FrozenSet, List, Optional, Set, Tuple

from ..canonical import PROJECT as PREFIX, canonical
from .summary import module, parse

#: how many classes deep a chain is followed
_DEPTH = 8


def outside_ancestors(reference: str) -> Optional[FrozenSet[str]]:
    """The qualified names outside the project that the class ``reference``
    (``PREFIX + path + "." + name``, a name a file imports from a project module)
    derives from, or ``None`` when a base cannot be told."""
    try:
        path, _, name = reference[len(PREFIX):].rpartition(".")
        found: Set[str] = set()
        if not path.endswith(".py") or not _ancestors(path, name, found, frozenset(), 0):
            return None
        return frozenset(found)
    except Exception:  # (an unreadable project tells nothing; never raise from a rule)
        return None


def _ancestors(path: str, name: str, found: Set[str], seen: FrozenSet[Tuple[str, str]],
               depth: int) -> bool:
    """Add the outside ancestors of ``name`` in the module ``path`` to ``found``;
    ``False`` when one cannot be told (``seen``: the chain that led here)."""
    if depth > _DEPTH or (path, name) in seen:
        return False
    seen = seen | {(path, name)}
    summary = module(path)
    if summary is None:
        return False
    if name in summary.names:
        what = summary.names[name]
        if what is None:
            return _class_bases(path, name, found, seen, depth)
        return _reference(what, found, seen, depth)
    for star in reversed(summary.stars):
        if star.startswith(PREFIX):
            inner = module(star[len(PREFIX):])
            if inner is not None and (name in inner.names or inner.stars):
                return _ancestors(star[len(PREFIX):], name, found, seen, depth + 1)
    return False


def _reference(what: str, found: Set[str], seen: FrozenSet[Tuple[str, str]],
               depth: int) -> bool:
    """A base that is ``what``: a name of another project module, or outside."""
    if what.startswith(PREFIX):
        path, _, name = what[len(PREFIX):].rpartition(".")
        if not path.endswith(".py"):
            return False
        return _ancestors(path, name, found, seen, depth + 1)
    found.add(canonical(what))
    return True


def _class_bases(path: str, name: str, found: Set[str], seen: FrozenSet[Tuple[str, str]],
                 depth: int) -> bool:
    """The bases of the class ``name`` defined at the top of the module ``path``."""
    parsed = parse(path)
    summary = module(path)
    if parsed is None or summary is None:
        return False
    classes = [s for s in parsed[1].body if isinstance(s, ast.ClassDef) and s.name == name]
    if len(classes) != 1:
        return False  # (not a class, or one defined twice)
    for base in classes[0].bases:
        parts: List[str] = []
        while isinstance(base, ast.Attribute):
            parts.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in summary.names:
            return False
        what = summary.names[base.id]
        if what is None:
            if parts or not _class_bases(path, base.id, found, seen, depth + 1):
                return False
            continue
        dotted = ".".join([what, *reversed(parts)])  # (``nn.Module``, ``models.Base``)
        if not _reference(dotted, found, seen, depth):
            return False
    return True
