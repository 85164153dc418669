"""What a name imported from a project module is there, through star imports."""
from __future__ import annotations

import ast
import re
from typing import Dict, List, Optional, Set, Tuple

from ..canonical import PROJECT as PREFIX, STAR_EXPORTS, canonical
from .modules import find, submodule_path
from .summary import STAR_IMPORT, cached_text, file_stamp, module

#: the answers of :func:`attribute`, by (path, name); cleared when a file changes
_ATTRIBUTES: Dict[Tuple[str, str], Tuple[Optional[Tuple[int, int]], bool, Optional[str]]] = {}
#: (path, name) pairs being looked up (an import cycle stops there)
_BUSY: Set[Tuple[str, str]] = set()


def attribute(path: str, name: str, star: bool = False) -> Tuple[bool, Optional[str]]:
    """``(found, what)``: what ``name`` is in the project module ``path`` (a
    canonical qualified name, ``PREFIX + path`` of a project module, or ``None``
    for a local definition); ``star``: as ``from module import *`` takes it.

    astroid builds the module only when its text mentions ``name`` (or has a
    star import, or ``__all__``): a name cannot come from a module otherwise.
    """
    key = (path, name, star)
    stamp = file_stamp(path)
    cached = _ATTRIBUTES.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    if key in _BUSY:
        return False, None
    _BUSY.add(key)
    try:
        found, what = _attribute(path, name, star, stamp)
    finally:
        _BUSY.discard(key)
    _ATTRIBUTES[key] = (stamp, found, what)
    return found, what


#: path -> ((size, mtime), where its star imports are in its text)
_STARS: Dict[str, Tuple[Tuple[int, int], List[int]]] = {}


def _stars(path: str, stamp: Tuple[int, int], text: str) -> List[int]:
    cached = _STARS.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found = [m.start() for m in STAR_IMPORT.finditer(text)]
    _STARS[path] = (stamp, found)
    return found


def _attribute(path: str, name: str, star: bool,
               stamp: Optional[Tuple[int, int]]) -> Tuple[bool, Optional[str]]:
    if stamp is None:
        return False, None  # (no such file: nothing to read)
    text = cached_text(path, stamp) or ""  # (one ``os.stat`` per lookup, in :func:`attribute`)
    if star and name.startswith("_") and "__all__" not in text:
        return False, None
    stars = _stars(path, stamp, text)
    sites = _binding_lines(text, name) if name in text else []
    if sites and not (star and "__all__" in text) and not any(i for _, i in sites):
        if not stars or stars[-1] < sites[0][0]:
            # bound by no import, after every star import: a local definition
            # (``None`` whatever it is), no need to build the module to say so
            return True, None
    if stars or sites:
        inner = module(path, stamp)
        if inner is not None:
            if star and inner.all_names is not None and name not in inner.all_names:
                return False, None
            if name in inner.names:
                return True, _follow(inner.names[name])
            for other in reversed(inner.stars):
                if other.startswith(PREFIX):
                    found, what = attribute(other[len(PREFIX):], name, star=True)
                    if found:
                        return True, what
                elif name in STAR_EXPORTS.get(other, ()):
                    return True, canonical(f"{other}.{name}")
    if not star:
        sub = submodule_path(path, name)
        if sub is not None:
            return True, PREFIX + sub
    return False, None


_BEFORE_NAME = re.compile(r"(?:\b(?:def|class|as|global|nonlocal|type)\s+|=[ \t]*)$")
_TARGETS = re.compile(r"[\w \t,()\[\]*:.]*$")
_ASSIGNED = re.compile(r"[\w \t,()\[\]*:.]*?(?<![=!<>])=(?!=)|[ \t]*:=")
_IMPORT_LIST = re.compile(r"[\w \t,()]*$")


def _binding_lines(text: str, name: str) -> List[Tuple[int, bool]]:
    """The lines where ``name`` may be bound, and whether it may be by an import
    (``(start, import)`` pairs): a superset of the
    module-level bindings (after ``def``/``class``/``as``/``global``, in an
    import, among an assignment's or a ``for``'s targets, on a line of a
    parenthesized import list, before ``:=``).  A module without one does not
    bind the name, so astroid need not build it to say so (``range`` is read
    everywhere, bound nowhere)."""
    found: List[Tuple[int, bool]] = []
    size = len(name)
    at = text.find(name)
    while at != -1:
        end = at + size
        if (at and (text[at - 1].isalnum() or text[at - 1] == "_")) or (
            end < len(text) and (text[end].isalnum() or text[end] == "_")
        ):
            at = text.find(name, at + 1)
            continue
        start = text.rfind("\n", 0, at) + 1
        stop = text.find("\n", end)
        stop = len(text) if stop == -1 else stop
        before, after = text[start:at], text[end:stop]
        listed = bool(_IMPORT_LIST.match(before) and _IMPORT_LIST.match(after))
        if "import" in before or listed:
            found.append((start, True))
        elif _BEFORE_NAME.search(before) or ("for" in before and " in" in after) or (
            _TARGETS.match(before) and _ASSIGNED.match(after)
        ):
            found.append((start, False))
        at = text.find(name, stop)
    return found


def _follow(what: Optional[str]) -> Optional[str]:
    """An imported name of another project module: what it is there."""
    if what is not None and what.startswith(PREFIX) and not what.endswith(".py"):
        return translate(what)
    return what


def translate(qualname: str) -> Optional[str]:
    """``PREFIX + path + ".a.b"`` -> what ``a.b`` is in that project module
    (``None``: a local definition, or nothing the project binds)."""
    try:
        return _translate(qualname)
    except Exception:  # the plugin never raises: an unreadable project resolves nothing
        return None


def _translate(qualname: str) -> Optional[str]:
    path, _, rest = qualname[len(PREFIX):].partition(".py.")
    if not rest:
        return qualname
    current: Optional[str] = PREFIX + path + ".py"
    for part in rest.split("."):
        if current is None:
            return None
        if current.startswith(PREFIX):
            current = attribute(current[len(PREFIX):], part)[1]
        else:
            current = canonical(f"{current}.{part}")
    return current


def definition_site(qualname: str) -> Optional[Tuple[str, str]]:
    """``(path, name)``: the project module that defines what ``qualname``
    (``PREFIX + path + ".name"``) names, through the modules that import it from
    another, and its name there; ``None`` when it is not a project module's own."""
    try:
        return _definition_site(qualname, 16, set())
    except Exception:  # (an unreadable project resolves nothing)
        return None


def _definition_site(qualname: str, budget: int, seen: Set[str]) -> Optional[Tuple[str, str]]:
    for _ in range(budget):  # (a chain of re-exports; a cycle ends)
        if qualname in seen:  # (a package of star imports of each other: each once)
            return None
        seen.add(qualname)
        path, _, name = qualname[len(PREFIX):].rpartition(".")
        if not qualname.startswith(PREFIX) or not path.endswith(".py") or not name:
            return None
        found, what = attribute(path, name)
        if not found:
            return None
        if what is not None:
            qualname = what
            continue
        text = cached_text(path) or ""
        if re.search(rf"^(?:(?:async[ \t]+)?def|class)[ \t]+{re.escape(name)}\b", text, re.M):
            return path, name  # (defined there: no need to build the module)
        summary = module(path)
        bound = summary.names.get(name) if summary is not None else None
        if bound is not None and bound.startswith(PREFIX) and ".py." in bound:
            qualname = bound  # (``from .variational import Bound`` in a package's __init__)
            continue
        if summary is None or name in summary.names:
            return path, name
        for star in reversed(summary.stars):  # (taken by a star import: from where)
            if star.startswith(PREFIX):
                site = _definition_site(f"{star}.{name}", budget // 2, seen)
                if site is not None:
                    return site
        return None
    return None


def star_lookup(star: str, name: str) -> Tuple[bool, Optional[str]]:
    """``(found, what)`` for ``name`` in a star-imported project module ``PREFIX + path``."""
    try:
        return attribute(star[len(PREFIX):], name, star=True)
    except Exception:
        return False, None


# ---------------------------------------------------------------------------
# the hook: an import statement of the file being checked


def import_bindings(filename: str, node: ast.AST) -> Optional[Tuple[List[tuple], List[str]]]:
    """``(bindings, stars)`` of an import statement that imports from the project,
    or ``None`` when it does not (the caller binds it as usual).

    Nothing is built here: a name imported from a project module is bound to
    ``PREFIX + path + "." + name`` and a star import is noted in ``stars``
    (``PREFIX + path``); :func:`translate` and :func:`star_lookup` answer what
    they are when a rule asks.
    """
    try:
        return _import_bindings(filename, node)
    except Exception:  # (``find`` only stats files: an unreadable directory)
        return None


def _import_bindings(filename: str, node: ast.AST) -> Optional[Tuple[List[tuple], List[str]]]:
    if isinstance(node, ast.ImportFrom):
        target = find(filename, node.module, node.level)
        if target is None:
            return None
        pairs: List[tuple] = []
        stars: List[str] = []
        for alias in node.names:
            if alias.name == "*":
                stars.append(PREFIX + target)
            else:
                pairs.append((alias.asname or alias.name, f"{PREFIX}{target}.{alias.name}"))
        return pairs, stars
    pairs = []
    hit = False
    for alias in node.names:
        dotted = alias.name if alias.asname else alias.name.split(".", 1)[0]
        target = find(filename, dotted)
        if target is not None:
            hit = True
            pairs.append((alias.asname or dotted, PREFIX + target))
        else:
            pairs.append((alias.asname or dotted, dotted))
    return (pairs, []) if hit else None
