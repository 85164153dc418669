"""The calls of a module's function (or class) from the project modules that
import it, for the value facts: what ``step(get_loss)`` in ``main.py`` passes
to ``def step(get_loss)`` of ``search.py`` (:func:`~.callers.passed_arguments`).

0.3 programs keep their helpers in one module and call them from another
(``from trpo import trpo_step``; ``Trainer(g, fe, d, q)`` in ``main.py`` for the
class of ``trainer.py``).  Each such call is read in the module that makes it,
through a :class:`~.context.Context` of that module (:mod:`.foreign`, read once
per process while it is unchanged).

Every file of the project that may import the module (it spells the module's
name, or a re-exporter's: :func:`~.project.importers.importers_spelling`) and
spells the function's name is read, and each must show every use:

- the function is bound at the top of the file by ``from M import name`` (not
  renamed), or by a star import that takes it, and every use of the name in the
  file is the callee of a plain call, in a function or at the top of the module
  (not in a lambda, a comprehension or a class body); the name is bound by
  nothing else anywhere in the file (no ``def``, assignment, parameter, other
  import, ``global``);
- a module that has it (``import search``, a re-exporter) is bound at the top
  of the file and read only as ``M.attr``, bound by nothing else, and each
  ``M.name`` is the callee of a plain call; an attribute ``X.name`` on a project
  name that is not evidently a module or a definition (``from pkg import sub``
  where ``sub`` is a submodule: not followed) is unknown;
- no import inside a function takes the function or a module that has it.

Where one of these files cannot be read (a syntax error, too many files, too
many importers), or any use is not evident, nothing is known (``None``).
"""
from __future__ import annotations

import ast
import os
import re
from typing import Dict, List, Optional, Set, Tuple

from .canonical import PROJECT
from .foreign import _top_imports, module_context
from .lines import lines_matching
from .nodes import children, spans_hit
from .project.importers import importers_spelling, module_stem
from .project.lookup import definition_site, star_lookup, translate
from .project.summary import cached_text, module

#: at most this many other files that spell the name are read
MOST = 16
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_OPAQUE = (ast.Lambda,)  # (a comprehension's calls: :func:`.callers.comprehension_names`)
#: one call from another module: (its context, the call, the scope it is read in)
Remote = Tuple[object, ast.Call, ast.AST]


def importing_sites(ctx, definition: ast.AST) -> Optional[List[Remote]]:
    """Every call of the module-level ``definition`` (a function, or a class: its
    constructor's calls) of ``ctx``'s file from the project's other modules, or
    ``None`` when not every use there is in view (see the module's docstring);
    read once per file and name."""
    memo = ctx.memo.setdefault("importing sites", {})
    key = id(definition)
    if key not in memo:
        memo[key] = _read(ctx, definition)
    return memo[key]  # type: ignore[no-any-return]


def _read(ctx, definition: ast.AST) -> Optional[List[Remote]]:
    name = definition.name  # type: ignore[attr-defined]
    if not ctx.filename:
        return None
    found_paths = importers_spelling(ctx.filename, name)
    if found_paths is None or len(found_paths[0]) > MOST:
        return None
    paths, every = found_paths
    target = os.path.abspath(ctx.filename)
    words = {module_stem(p) for p in [target, *every]}  # (the modules that may have it)
    if not all(_may_only_call(path, name) for path in paths):
        return None
    return remote_sites(paths, lambda other: _Reader(other, target, name, words).sites())


def remote_sites(paths, read) -> Optional[List[Remote]]:
    """``(context, call, scope)`` of the calls ``read(context)`` finds in the module
    of each of ``paths``; ``None`` where one cannot be read (it may call it in any
    way) or ``read`` answers ``None``."""
    found: List[Remote] = []
    try:
        for path in paths:
            other = module_context(path)
            if other is None:
                return None
            sites = read(other)
            if sites is None:
                return None
            found += [(other, call, scope) for call, scope in sites]
    except (OSError, ValueError, RecursionError):  # (an unreadable project: unknown)
        return None
    return found


def _may_only_call(path: str, name: str) -> bool:
    """Whether the text of ``path`` may read ``name`` only as a callee: every time
    it spells it, ``name(``, on an import line, or maybe in a comment or a string
    (cheap, before the module is read; a use it rules out would leave the
    parameter unknown anyway)."""
    text = cached_text(path)
    if text is None:
        return False
    for match in re.finditer(rf"\b{re.escape(name)}\b(?!\s*\()", text):
        start = text.rfind("\n", 0, match.start()) + 1
        line = text[start:match.start()]
        if "import" not in line and not _LISTED.match(line) and not _QUOTED.search(line):
            return False
    return True


#: the start of a line of a parenthesized import list (``from m import (a,``)
_LISTED = re.compile(r"[\w \t,]*$")
#: a comment or a string may hold the name
_QUOTED = re.compile(r"[#'\"]")


def _module(qualname: str) -> Optional[str]:
    """The project module ``qualname`` names (``PROJECT + path``: ``import search``;
    ``from pkg import search`` of a submodule), or ``None``."""
    if qualname.endswith(".py"):
        return qualname
    found = translate(qualname)
    return found if found is not None and found.endswith(".py") else None


def _origin(qualname: str) -> Optional[Tuple[str, str]]:
    """``(path, name)`` of what the project name ``qualname`` is where it is bound
    by no import (:func:`~.project.lookup.definition_site` stops at a module that
    imports it by name: ``from search import step`` in ``utils``), or ``None``."""
    for _ in range(16):  # (a chain of re-exports; a cycle ends)
        site = definition_site(qualname)
        summary = module(site[0]) if site is not None else None
        if site is None or summary is None:
            return None
        bound = summary.names.get(site[1])
        if bound is None or not bound.startswith(PROJECT) or bound.endswith(".py"):
            return site  # (bound there otherwise than by an import of a project name)
        qualname = bound
    return None


class _Reader:
    """The calls of ``target``'s ``name`` in one importing module, or ``None``."""

    def __init__(self, other, target: str, name: str, words: Set[str]) -> None:
        self.other = other
        self.target = target
        self.name = name
        self.words = words
        #: project name -> whether it is the function (or a module that has it)
        self._ours: Dict[str, bool] = {}

    def is_ours(self, qualname: Optional[str]) -> Optional[bool]:
        """Whether the project name ``qualname`` is the function; ``None``: unknown."""
        if qualname is None or not qualname.startswith(PROJECT):
            return False
        if qualname == f"{PROJECT}{self.target}.{self.name}":
            return True  # (the definition: defined once at the top of its module)
        if qualname not in self._ours:
            site = _origin(qualname)
            self._ours[qualname] = None if site is None else (  # type: ignore[assignment]
                os.path.abspath(site[0]) == self.target and site[1] == self.name)
        return self._ours[qualname]

    def has_it(self, taken: str) -> bool:
        """Whether the project module ``taken`` (``PROJECT + path``) has the function."""
        return taken.endswith(".py") and bool(self.is_ours(f"{taken}.{self.name}"))

    def sites(self) -> Optional[List[Tuple[ast.Call, ast.AST]]]:
        other, name = self.other, self.name
        tree = other.tree
        names: Set[str] = set()  # (names bound to the function)
        modules: Set[str] = set()  # (names bound to a module that has it)
        allowed: Set[int] = set()  # (the import aliases that bind them)
        otherwise = False  # (the name is bound by an import to something else)
        star = False
        top = list(_top_imports(tree))
        for node in top:
            for alias in node.names:
                if alias.name == "*":
                    for taken in other.import_bindings(node)[1]:
                        if taken.startswith(PROJECT):
                            found, what = star_lookup(taken, name)
                            ours = self.is_ours(what or f"{taken}.{name}") if found else False
                            if ours is None:
                                return None
                            star = star or ours
                    continue
                if not self._may_take(alias):
                    continue
                for bound, qualname in self._bindings(node, alias):
                    if qualname is None or not qualname.startswith(PROJECT):
                        otherwise = otherwise or bound == name
                    elif _module(qualname) is not None:
                        if self.has_it(_module(qualname)):  # type: ignore[arg-type]
                            modules.add(bound)
                            allowed.add(id(alias))
                    else:
                        ours = self.is_ours(qualname)
                        if ours is None and bound == name:
                            return None  # (it may be the function)
                        if ours and bound != name:
                            return None  # (renamed: its readers spell another name)
                        if ours:
                            names.add(name)
                            allowed.add(id(alias))
                        elif bound == name:
                            otherwise = True
        if star:
            if otherwise:
                return None  # (which import binds it last is not followed)
            names.add(name)
        return self._walk(names, modules, allowed, {id(node) for node in top})

    def _may_take(self, alias: ast.alias) -> bool:
        """Whether an import's ``alias`` may bind the function (by its name), a
        module that has it (one of :attr:`words`), or the name otherwise: the
        others are not resolved."""
        name = self.name
        return alias.name == name or alias.asname == name or \
            any(part in self.words for part in alias.name.split("."))

    def _bindings(self, node: ast.AST, alias: ast.alias) -> List[tuple]:
        one = ast.Import(names=[alias]) if isinstance(node, ast.Import) else \
            ast.ImportFrom(module=node.module, names=[alias],  # type: ignore[attr-defined]
                           level=node.level)  # type: ignore[attr-defined]
        return self.other.import_bindings(one)[0]

    def _takes_it(self, node: ast.AST) -> bool:
        """Whether the import ``node`` (in a function) may take the function or a
        module that has it."""
        for alias in node.names:  # type: ignore[attr-defined]
            if alias.name == "*":
                return True  # (not valid in a function: not followed)
            if not self._may_take(alias):
                continue
            for _, qualname in self._bindings(node, alias):
                if qualname is None or not qualname.startswith(PROJECT):
                    continue
                taken = _module(qualname)
                if self.has_it(taken) if taken else self.is_ours(qualname) is not False:
                    return True
        return False

    def _walk(self, names: Set[str], modules: Set[str], allowed: Set[int],
              top: Set[int]) -> Optional[List[Tuple[ast.Call, ast.AST]]]:
        """The plain calls, or ``None`` where a watched name is used otherwise, or
        an import in a function may take the function (the statements that spell
        none of the names and import nothing are skipped)."""
        name = self.name
        watched = names | modules
        found: List[Tuple[ast.Call, ast.AST]] = []
        tree = self.other.tree
        words = "|".join(sorted(watched | {name, "import"}))
        hits = lines_matching(self.other.text, re.compile(rf"\b(?:{words})\b"))
        stack: List[tuple] = [(tree, None, tree)]
        while stack:
            node, parent, scope = stack.pop()
            cls = node.__class__
            if hits is not None and isinstance(node, ast.stmt) and not spans_hit(node, hits):
                continue
            if (cls is ast.Import or cls is ast.ImportFrom) and id(node) not in top \
                    and self._takes_it(node):
                return None
            if cls is ast.Name:
                if node.id not in watched:
                    continue
                if node.ctx.__class__ is not ast.Load:
                    return None  # (rebound)
                if node.id in names and parent.__class__ is ast.Call \
                        and parent.func is node and scope is not None:
                    found.append((parent, scope))
                    continue
                if node.id in modules and parent.__class__ is ast.Attribute \
                        and parent.value is node:
                    continue  # (``M.attr``: read at the attribute)
                return None  # (passed, stored, read otherwise)
            if cls is ast.Attribute and node.attr == name:
                ours = self._attribute_is_ours(node.value, modules)
                if ours is None:
                    return None
                if ours:
                    if parent.__class__ is ast.Call and parent.func is node \
                            and scope is not None:
                        found.append((parent, scope))
                        continue
                    return None
            elif cls is ast.arg:
                if node.arg in watched:
                    return None
                continue
            elif cls is ast.alias:
                if (node.asname or node.name).split(".")[0] in watched \
                        and id(node) not in allowed:
                    return None
                continue
            elif cls is ast.Global or cls is ast.Nonlocal:
                if watched.intersection(node.names):
                    return None
            elif cls in _DEFINITIONS:
                if node.name in watched:
                    return None
                scope = node if cls is not ast.ClassDef else None
            elif cls in _OPAQUE:
                scope = None
            stack += [(child, node, scope) for child in reversed(children(node))]
        return found

    def _attribute_is_ours(self, value: ast.AST, modules: Set[str]) -> Optional[bool]:
        """Whether ``value.name`` is the function: ``value`` names a module that
        has it; ``None`` where ``value`` is a project name that is neither
        evidently a module nor a definition."""
        if isinstance(value, ast.Name) and value.id in modules:
            return True
        if not isinstance(value, (ast.Name, ast.Attribute)):
            return False
        qualname = self.other.resolve(value)
        if qualname is None or not qualname.startswith(PROJECT):
            return False
        if qualname.endswith(".py"):
            return self.has_it(qualname)
        return False if definition_site(qualname) is not None else None
