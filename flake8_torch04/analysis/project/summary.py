"""Module summaries: what a project module binds at its top level (stdlib ``ast``)."""
from __future__ import annotations

import ast
import copy
import os
import re
from typing import Callable, Dict, List, Optional, Set, Tuple, TypeVar

from ...source.parse import tree_of
from ..canonical import PROJECT as PREFIX, canonical
from .astroid_all import astroid_bounded, astroid_tree, inferred_all
from .modules import Names, find

# ---------------------------------------------------------------------------
# module summaries: the standard library's ``ast``; astroid for a computed ``__all__``


class Module:
    """What a project module binds at its end, apart from its star imports."""

    __slots__ = ("path", "names", "stars", "all_names")

    def __init__(self, path: str) -> None:
        self.path = path
        #: its own bindings (imports, assignments, definitions)
        self.names: Names = {}
        #: its star imports in order: a project module's ``PREFIX + path``, or a
        #: module outside the project (``torch.autograd``)
        self.stars: List[str] = []
        #: ``__all__``, when it can be read (a literal, or astroid infers it)
        self.all_names: Optional[Set[str]] = None


T = TypeVar("T")
#: path -> ((size, mtime), Module or None)
_MODULES: Dict[str, Tuple[Tuple[int, int], Optional[Module]]] = {}
#: path -> ((size, mtime), text)
_TEXTS: Dict[str, Tuple[Tuple[int, int], str]] = {}
#: how many modules were summarized, and how many of them astroid built (for tests)
BUILT = [0]
STAR_IMPORT = re.compile(r"import[\s\\(]*\*")  # (a leading \b would slow the search down)


def file_stamp(path: str) -> Optional[Tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def cached_text(path: str, stamp: Optional[Tuple[int, int]] = None) -> Optional[str]:
    if stamp is None:
        stamp = file_stamp(path)
        if stamp is None:
            return None
    cached = _TEXTS.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    _TEXTS[path] = (stamp, text)
    return text


def read(path: str) -> Optional[str]:
    """The text of the project file ``path`` (read once while it is unchanged)."""
    return cached_text(path)


def stamped(cache: Dict[str, tuple], path: str, make: Callable[[Tuple[int, int]], T],
            stamp: Optional[Tuple[int, int]] = None, most: int = 0) -> Optional[T]:
    """``make(stamp)`` for the file ``path``, kept in ``cache`` while the file's
    stamp is the same (``None``, and nothing made, when it cannot be stat'ed); a
    cache of ``most`` entries (when given) is emptied before it takes another."""
    if stamp is None:
        stamp = file_stamp(path)
        if stamp is None:
            return None
    cached = cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    if most and len(cache) >= most:
        cache.clear()
    made = make(stamp)
    cache[path] = (stamp, made)
    return made


def module(path: str, stamp: Optional[Tuple[int, int]] = None) -> Optional[Module]:
    """The project module in ``path``, summarized once per process
    (``None`` when it cannot be read or parsed)."""
    return stamped(_MODULES, path, lambda stamp: _build(path, stamp), stamp)


def parse_whole(path: str, stamp: Optional[Tuple[int, int]] = None
                ) -> Optional[Tuple[str, ast.Module]]:
    """The module's text and its tree, or ``None`` when it cannot be read or parsed
    (a tree parsed lately for the same text is taken: see ``source.parse.tree_of``;
    nothing changes a tree)."""
    text = cached_text(path, stamp)
    if text is None:
        return None
    try:
        return text, tree_of(text, path)
    except SyntaxError:
        return None


def parse(path: str, stamp: Optional[Tuple[int, int]] = None) -> Optional[Tuple[str, ast.Module]]:
    """The module's text and its tree with function and class bodies emptied, or
    ``None`` (a copy: the whole tree is shared, see :func:`parse_whole`)."""
    parsed = parse_whole(path, stamp)
    if parsed is not None:
        return parsed[0], _stripped(parsed[1])
    return parsed


def _build(path: str, stamp: Optional[Tuple[int, int]] = None) -> Optional[Module]:
    parsed = parse(path, stamp)
    if parsed is None:
        return None
    text, tree = parsed
    try:
        result, settled = summary(path, tree, ":=" in text)
    except (RecursionError, MemoryError):
        return None
    BUILT[0] += 1
    if not settled:  # ``__all__`` is computed: astroid infers it (or nothing does)
        result.all_names = inferred_all(path, text, tree)
    return result


#: the fields that hold statements (and handlers or ``case``s, which hold them)
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _stripped(node: ast.AST) -> ast.AST:
    """``node`` with the bodies of the functions and classes in its blocks emptied:
    what a module binds at its top level is all that is asked (and the summary
    reads a fraction of the tree).  Only the nodes on the way are copied."""
    new = copy.copy(node)
    for field in _BLOCK_FIELDS:
        block = getattr(node, field, None)
        if not block:
            continue
        kept = []
        for child in block:
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                child = copy.copy(child)
                child.body = [ast.copy_location(ast.Pass(), child.body[0])]
            elif any(getattr(child, f, None) for f in _BLOCK_FIELDS):
                child = _stripped(child)  # a statement, a handler, a ``case``
            kept.append(child)
        setattr(new, field, kept)
    return new


def summary(path: str, tree: ast.Module, walrus: bool = True) -> Tuple[Module, bool]:
    """The module's bindings from its (stripped) tree, and whether its
    ``__all__`` is settled: absent, or one literal list or tuple of strings
    (``False``: computed, see :func:`inferred_all`).  ``walrus``: the text may
    have ``:=`` (else only statements' targets are read).

    It gives what astroid's tree of the module gave before (the tests compare
    the two): imports that run at module level, also in ``if``/``try``/``with``/
    ``for``/``while`` blocks, in source order, the later import of a name
    winning; a name whose last module-level binding (an assignment, a ``for``,
    ``with`` or ``except`` target, ``del``, ``def``, ``class``, a walrus) is on
    the line of its last import or later is local.
    """
    result = Module(path)
    names = result.names
    imported_at: Dict[str, int] = {}
    for stmt in _module_imports(tree):
        if stmt.__class__ is ast.ImportFrom:
            modname = stmt.module or ""
            target = find(path, modname, stmt.level or 0)
            for alias in stmt.names:
                name = alias.name
                if name == "*":
                    if target is not None:
                        result.stars.append(PREFIX + target)
                    elif modname and not stmt.level:
                        result.stars.append(modname)
                    continue
                bound = alias.asname or name
                imported_at[bound] = stmt.lineno
                if target is not None:
                    names[bound] = f"{PREFIX}{target}.{name}"
                elif stmt.level or not modname:
                    names[bound] = None
                else:
                    names[bound] = canonical(f"{modname}.{name}")
        else:
            for alias in stmt.names:
                dotted = alias.name if alias.asname else alias.name.split(".", 1)[0]
                target = find(path, dotted)
                names[alias.asname or dotted] = PREFIX + target if target is not None else dotted
                imported_at[alias.asname or dotted] = stmt.lineno
    local, alls = _Bindings(walrus).of(tree)
    for name, line in local.items():
        if line >= imported_at.get(name, -1):
            names[name] = None
    settled = True
    if alls:
        result.all_names = _literal_all(alls)
        settled = result.all_names is not None and not _all_changed(tree)
    return result, settled


_BLOCKS = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)


def _module_imports(tree: ast.Module) -> List[ast.stmt]:
    """Import statements that run at module level, in source order (also in
    ``if``/``try``/``with``/``for``/``while`` blocks)."""
    found: List[ast.stmt] = []
    stack = list(reversed(tree.body))
    while stack:
        stmt = stack.pop()
        cls = stmt.__class__
        if cls is ast.Import or cls is ast.ImportFrom:
            found.append(stmt)
        elif isinstance(stmt, _BLOCKS):
            children: List[ast.AST] = []
            for field in ("body", "handlers", "orelse", "finalbody"):
                for child in getattr(stmt, field, None) or ():
                    children.extend(child.body if isinstance(child, ast.ExceptHandler)
                                    else [child])
            stack.extend(reversed(children))
    return found


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: a walrus right below one of these binds in the frame of its grandparent (astroid)
_LIFTING = (ast.arguments, ast.keyword, ast.comprehension)
_UNPACK = (ast.Tuple, ast.List, ast.Starred)
_MATCH = getattr(ast, "Match", None)
_MATCH_NAMES = tuple(getattr(ast, n) for n in ("MatchAs", "MatchStar") if hasattr(ast, n))
_MATCH_MAPPING = getattr(ast, "MatchMapping", None)


class _Bindings:
    """The names bound in a module's scope, as astroid's ``Module.locals`` holds
    them: ``name -> line`` of the last binding that is no import (astroid's
    lines: a decorated ``def`` counts from its first decorator plus the
    decorators' lines, an ``except ... as`` name from the handler's line), and
    the bindings of ``__all__`` as ``(kind, parent)`` (``import`` included; a
    ``from`` import is not, astroid adds those to ``locals`` in a later step).

    Where a walrus binds follows astroid's ``NamedExpr.frame()``: the frame of
    its parent, or right below arguments, a keyword or a comprehension, the
    frame of that node's grandparent (a function's default ``(y := 1)`` binds in
    the module, ``f(y := 1)`` as a default binds in the function).  Without
    ``:=`` in the text only statements and their targets are read."""

    __slots__ = ("walrus", "local", "alls")

    def __init__(self, walrus: bool) -> None:
        self.walrus = walrus
        self.local: Dict[str, int] = {}
        self.alls: List[Tuple[str, Optional[ast.AST]]] = []

    def of(self, tree: ast.Module) -> Tuple[Dict[str, int], List[Tuple[str, Optional[ast.AST]]]]:
        for stmt in tree.body:
            self.stmt(stmt)
        return self.local, self.alls

    def bind(self, name: str, line: int, kind: str, parent: Optional[ast.AST] = None) -> None:
        if kind != "import" and line > self.local.get(name, -1):
            self.local[name] = line
        if name == "__all__":
            self.alls.append((kind, parent))

    # -- statements in the module's scope (the fast path)

    def stmt(self, node: ast.AST) -> None:
        cls = node.__class__
        if cls is ast.Assign:
            for target in node.targets:
                self.target(target, node)
            self.expr(node.value)
        elif cls is ast.Expr:
            self.expr(node.value)
        elif cls is ast.Import:
            for alias in node.names:
                self.bind((alias.asname or alias.name).split(".")[0], node.lineno, "import")
        elif cls is ast.ImportFrom:
            pass
        elif cls in _DEFS:
            line = node.lineno
            if node.decorator_list and cls is not ast.ClassDef:
                line = node.decorator_list[0].lineno + sum(
                    d.end_lineno - d.lineno + 1 for d in node.decorator_list)
            if self.walrus:
                self.definition(node)
            self.bind(node.name, line, "def")
        elif cls is ast.AugAssign or cls is ast.AnnAssign:
            self.target(node.target, node)
            self.expr(node.value)
            if cls is ast.AnnAssign:
                self.expr(node.annotation)
        elif cls is ast.For or cls is ast.AsyncFor:
            self.target(node.target, node)
            self.expr(node.iter)
            self.block(node.body)
            self.block(node.orelse)
        elif cls is ast.With or cls is ast.AsyncWith:
            for item in node.items:
                self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, node)
            self.block(node.body)
        elif cls is ast.Delete:
            for target in node.targets:
                self.target(target, node)
        elif isinstance(node, (ast.If, ast.While)):
            self.expr(node.test)
            self.block(node.body)
            self.block(node.orelse)
        elif hasattr(node, "handlers"):  # try, try/except*
            self.block(node.body)
            for handler in node.handlers:
                self.expr(handler.type)
                if handler.name:
                    self.bind(handler.name, handler.lineno, "name", handler)
                self.block(handler.body)
            self.block(node.orelse)
            self.block(node.finalbody)
        elif _MATCH is not None and cls is _MATCH:
            self.expr(node.subject)
            for case in node.cases:
                self.pattern(case.pattern)
                self.expr(case.guard)
                self.block(case.body)
        elif cls.__name__ == "TypeAlias":  # (astroid: its type parameters bind here too)
            self.target(node.name, node)
            for param in node.type_params:
                self.bind(param.name, param.lineno, "name", param)
            self.expr(node.value)
        elif self.walrus:  # return, raise, assert ...
            for child in ast.iter_child_nodes(node):
                self.expr(child)

    def block(self, body: List[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def target(self, node: ast.AST, parent: ast.AST) -> None:
        cls = node.__class__
        if cls is ast.Name:
            self.bind(node.id, node.lineno, "del" if node.ctx.__class__ is ast.Del else "name",
                      parent)
        elif cls in _UNPACK:
            for child in (node.elts if cls is not ast.Starred else (node.value,)):
                self.target(child, node)
        elif self.walrus:  # ``a[(y := 0)] = 1``
            self.expr(node)

    def pattern(self, node: Optional[ast.AST]) -> None:
        if node is None:
            return
        cls = node.__class__
        if cls in _MATCH_NAMES and node.name is not None:
            self.bind(node.name, node.lineno, "name", node)
        elif cls is _MATCH_MAPPING and node.rest is not None:
            self.bind(node.rest, node.lineno, "name", node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.pattern):
                self.pattern(child)
            else:
                self.expr(child)

    # -- expressions: only a walrus binds there (in the module's frame, or not)

    def expr(self, node: Optional[ast.AST]) -> None:
        if node is not None and self.walrus:
            self.walk(node, True, True, True)

    def definition(self, node: ast.AST) -> None:
        """A module-level ``def`` or ``class``: its decorators, arguments, bases.
        Below it, the def's frame is its own, its parent's the module's."""
        # astroid: the decorators hang below a ``Decorators`` node whose frame is
        # the def's parent's (the module's); its parent is the def
        for dec in node.decorator_list:
            self.walk(dec, True, True, False)
        if node.__class__ is ast.ClassDef:
            for child in node.bases + node.keywords:
                self.walk(child, False, False, True)
        else:
            self.walk(node.args, False, False, True)
            if node.returns is not None:
                self.walk(node.returns, False, False, True)

    def walk(self, node: ast.AST, frame: bool, pframe: bool, gframe: bool) -> None:
        """``frame``, ``pframe``, ``gframe``: whether the frames of ``node``, of its
        parent and of its grandparent (astroid's tree) are the module."""
        cls = node.__class__
        if cls is ast.NamedExpr:
            target = node.target
            if frame and target.__class__ is ast.Name:
                self.bind(target.id, target.lineno, "name", node)
        elif cls is ast.Lambda:
            frame = False
        lifting = cls in _LIFTING
        if cls is ast.arguments:  # (astroid has no node for an ``arg``: its annotation's parent)
            children: List[ast.AST] = [*node.defaults, *node.kw_defaults]
            for arg in [*node.posonlyargs, *node.args, *node.kwonlyargs, node.vararg, node.kwarg]:
                if arg is not None:
                    children.append(arg.annotation)
        else:
            children = list(ast.iter_child_nodes(node))
        for child in children:
            if child is None or isinstance(child, ast.expr_context):
                continue
            if lifting and child.__class__ is ast.NamedExpr:
                self.walk(child, gframe, frame, pframe)
            else:
                self.walk(child, frame, frame, pframe)


def _literal_all(alls: List[Tuple[str, Optional[ast.AST]]]) -> Optional[Set[str]]:
    """``__all__`` when its one binding assigns a literal list or tuple of strings."""
    if len(alls) != 1:
        return None
    kind, parent = alls[0]
    if kind != "name" or parent.__class__ is not ast.Assign:
        return None
    value = parent.value
    if value.__class__ not in (ast.List, ast.Tuple):
        return None
    found = set()
    for element in value.elts:
        if element.__class__ is not ast.Constant or not isinstance(element.value, str):
            return None
        found.add(element.value)
    return found


def _all_changed(tree: ast.Module) -> bool:
    """Whether the module's top level calls a method of ``__all__``
    (``__all__.extend(...)``, in a loop too): the literal is not all of it."""
    for node in ast.walk(tree):
        if node.__class__ is ast.Call:
            func = node.func
            if func.__class__ is ast.Attribute and func.value.__class__ is ast.Name and (
                    func.value.id == "__all__"):
                return True
    return False


def astroid_summary(path: str, text: str, tree: ast.Module) -> Module:
    """The summary as astroid's tree gave it before :func:`summary` (the tests
    compare the two over projects, the corpus and torch's source)."""
    with astroid_bounded() as manager:
        from astroid import nodes

        return _astroid_bindings(path, astroid_tree(manager, path, text, tree), nodes)


def _astroid_bindings(path: str, tree, nodes) -> Module:
    result = Module(path)
    names = result.names
    imported_at: Dict[str, int] = {}  # (astroid adds ``from`` imports to locals later)
    for stmt in _astroid_module_level(tree, nodes):
        if isinstance(stmt, nodes.ImportFrom):
            target = find(path, stmt.modname, stmt.level or 0)
            for name, asname in stmt.names:
                if name == "*":
                    if target is not None:
                        result.stars.append(PREFIX + target)
                    elif stmt.modname and not stmt.level:
                        result.stars.append(stmt.modname)
                    continue
                bound = asname or name
                imported_at[bound] = stmt.fromlineno or 0
                if target is not None:
                    names[bound] = f"{PREFIX}{target}.{name}"
                elif stmt.level or not stmt.modname:
                    names[bound] = None
                else:
                    names[bound] = canonical(f"{stmt.modname}.{name}")
        elif isinstance(stmt, nodes.Import):
            for name, asname in stmt.names:
                dotted = name if asname else name.split(".", 1)[0]
                target = find(path, dotted)
                names[asname or dotted] = PREFIX + target if target is not None else dotted
                imported_at[asname or dotted] = stmt.fromlineno or 0
    # a name whose last module-level binding is an assignment, def or class is local
    for name, found in tree.locals.items():
        local = [n.fromlineno or 0 for n in found
                 if not isinstance(n, (nodes.Import, nodes.ImportFrom))]
        if local and max(local) >= imported_at.get(name, -1):
            names[name] = None
    result.all_names = _astroid_all_names(tree, nodes)
    return result


def _astroid_all_names(tree, nodes) -> Optional[Set[str]]:
    """``__all__`` when it is one list or tuple of strings (astroid reads it), else ``None``."""
    found = tree.locals.get("__all__")
    if not found or len(found) != 1:
        return None
    assign = found[0].parent
    if not isinstance(assign, nodes.Assign) or not isinstance(
        assign.value, (nodes.List, nodes.Tuple)
    ) or not all(isinstance(e, nodes.Const) and isinstance(e.value, str)
                 for e in assign.value.elts):
        return None
    try:
        return set(tree.wildcard_import_names())
    except Exception:
        return None


def _astroid_module_level(tree, nodes) -> List:
    found = []
    stack = list(reversed(tree.body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (nodes.Import, nodes.ImportFrom)):
            found.append(stmt)
        elif isinstance(stmt, (nodes.If, nodes.Try, nodes.With, nodes.For, nodes.While)):
            children = []
            for field in ("body", "handlers", "orelse", "finalbody"):
                for child in getattr(stmt, field, None) or ():
                    children.extend(child.body if isinstance(child, nodes.ExceptHandler)
                                    else [child])
            stack.extend(reversed(children))
    return found
