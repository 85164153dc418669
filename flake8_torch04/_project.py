"""Names that reach a file from the project's own modules.

``train.py`` does ``from model import *`` and calls ``Variable(x)``: the name
comes from ``model.py``'s ``from torch.autograd import Variable`` and must
resolve as if written in ``train.py``.  Likewise ``from model import Variable``,
``import model`` then ``model.Variable``, relative imports, packages whose
``__init__`` re-exports a submodule (``from .base_network import *``), and
chains of them, cycles included.

What is loaded is bounded to the project's own files:

* a module is looked for only in the directory of the top-level package that
  holds the file (the first ancestor without ``__init__.py``, the script's
  directory for a script) and, for Python 2's implicit relative imports, in the
  file's own directory; never on ``sys.path``;
* a name of the standard library, or of a package this plugin knows to be
  installed software (``torch``, ``numpy`` ...), is never looked for at all;
* only the files found so are read, and only their top level (function and
  class bodies emptied).  Star imports and imported names are followed here,
  through the same bounded finder.

The project prefers a maintained library to code of its own, except on the hot
path; this module is that line.  What a module binds (its imports, star imports,
local definitions, a literal ``__all__``) is read from the standard library's
``ast`` tree (:func:`summary`), which gives exactly what astroid's tree gave
(``tests/test_project.py`` compares the two over made-up modules; ``python
bench/benchmark.py --summaries`` over the corpus and torch's source): importing
astroid alone costs ~30 ms and 6 MiB per process.  astroid is imported only for
a module whose ``__all__`` is computed (``__all__ = base + [...]``, ``__all__ +=
[...]``, ``__all__.extend(...)``), which its inference evaluates
(:func:`_inferred_all`), bounded: it follows no import (``sub.__all__ + [...]``
stays unknown: every public name is taken), with astroid's ``TreeRebuilder``,
not the manager's ``ast_from_file``, whose post-build steps import every
star-imported module (torch included).

Nothing is read when an import is bound: a name imported from a project module
is bound to ``PREFIX + path + "." + name`` (a star import is noted as
``PREFIX + path``), and :func:`translate` / :func:`star_lookup` answer what it
is only when a rule asks.  A module is summarized only when its text may bind
the name by an import or has a star import before its definition (see
:func:`_binding_lines`); a name bound only by a ``def``, a ``class`` or an
assignment is local without reading more.  So a file without imports of
project modules pays nothing but an ``os.stat`` per import that is neither the
standard library nor known software.  Files, modules and answers are cached per
process and checked against each file's size and modification time (flake8
checks many files in one process; ``-j`` uses processes).
"""
from __future__ import annotations

import ast
import os
import re
import sys
from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ._resolve import PROJECT as PREFIX
from ._resolve import STAR_EXPORTS, canonical

#: top-level names that are installed software, never a project's module
KNOWN = frozenset((
    "torch", "torchvision", "torchaudio", "torchtext", "numpy", "scipy", "pandas",
    "matplotlib", "sklearn", "skimage", "cv2", "PIL", "tensorflow", "keras", "h5py",
    "tqdm", "visdom", "tensorboardX", "yaml", "six", "future", "past", "IPython",
    "__future__", "astroid", "flake8", "pytest", "setuptools", "pkg_resources",
))
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)

#: a module's bindings: name -> a canonical qualified name, ``PREFIX + path`` of
#: a project module, or ``None`` (defined locally, or unknown)
Names = Dict[str, Optional[str]]


_FOREIGN = KNOWN | _STDLIB


def _foreign(top: str) -> bool:
    return top in _FOREIGN


def candidate(node: ast.AST) -> bool:
    """Whether an import statement may import a project module (no file access)."""
    if node.__class__ is ast.ImportFrom:
        if node.level:
            return True
        module = node.module
        return module is not None and module.partition(".")[0] not in _FOREIGN
    for alias in node.names:
        if alias.name.partition(".")[0] not in _FOREIGN:
            return True
    return False


def applies(filename: str) -> bool:
    """Whether ``filename`` names a file whose siblings can be read."""
    return bool(filename) and filename not in ("stdin", "-") and not filename.startswith("<")


# ---------------------------------------------------------------------------
# finding modules (os.stat only)

_ISFILE: Dict[str, bool] = {}
_ISDIR: Dict[str, bool] = {}


def _isfile(path: str) -> bool:
    found = _ISFILE.get(path)
    if found is None:
        found = _ISFILE[path] = os.path.isfile(path)
    return found


def _isdir(path: str) -> bool:
    found = _ISDIR.get(path)
    if found is None:
        found = _ISDIR[path] = os.path.isdir(path)
    return found


_ROOTS: Dict[str, str] = {}


def root_of(path: str) -> str:
    """The directory on ``sys.path`` when ``path`` runs: above its packages."""
    if not os.path.isabs(path):  # (it depends on the working directory)
        return _root_of(path)
    key = os.path.dirname(path)
    found = _ROOTS.get(key)
    if found is None:
        found = _ROOTS[key] = _root_of(path)
    return found


def _root_of(path: str) -> str:
    directory = os.path.dirname(os.path.abspath(path))
    while _isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


def _module_in(directory: str, parts: List[str]) -> Optional[str]:
    """The file of the module ``parts`` below ``directory`` (a package's ``__init__.py``)."""
    for i, part in enumerate(parts):
        if not part.isidentifier():
            return None
        base = os.path.join(directory, part)
        last = i == len(parts) - 1
        init = os.path.join(base, "__init__.py")
        if _isdir(base) and (_isfile(init) or not last):
            if last:
                return init
            directory = base  # a package, or a namespace package on the way
            continue
        if last and _isfile(base + ".py"):
            return base + ".py"
        return None
    return None


def package_of(path: str) -> str:
    """The directory a relative import in ``path`` starts from."""
    return os.path.dirname(os.path.abspath(path))


_FOUND: Dict[Tuple[str, Optional[str], int], Optional[str]] = {}
#: the same by the directory of an absolute file name (the files of a directory
#: share it), before the test that the module is not the importing file itself
_FOUND_IN: Dict[Tuple[str, Optional[str], int], Optional[str]] = {}


def find(filename: str, module: Optional[str], level: int = 0) -> Optional[str]:
    """The project file of ``module`` as imported from ``filename``, or ``None``."""
    key = (filename, module, level)
    found = _FOUND.get(key, False)
    if found is False:
        if len(_FOUND) > 100000:
            _FOUND.clear()
            _FOUND_IN.clear()
        if os.path.isabs(filename):
            shared = (os.path.dirname(filename), module, level)
            found = _FOUND_IN.get(shared, False)
            if found is False:
                found = _FOUND_IN[shared] = _find(filename, module, level, itself=False)
            if found is not None and not level and found == os.path.abspath(filename):
                found = None  # a script named like the package it imports
        else:
            found = _find(filename, module, level)
        _FOUND[key] = found
    return found


#: where installed software lives: a file there is no project's own (checking
#: torch's source never builds torch's modules)
_INSTALLED = frozenset(("site-packages", "dist-packages"))


def _find(filename: str, module: Optional[str], level: int = 0,
          itself: bool = True) -> Optional[str]:
    """(``itself``: ``None`` when the module found is ``filename``, see :func:`find`)"""
    parts = module.split(".") if module else []
    root = root_of(filename)
    if os.path.basename(root) in _INSTALLED:
        return None
    if level:
        directory = package_of(filename)
        for _ in range(level - 1):
            directory = os.path.dirname(directory)
        if not parts:
            init = os.path.join(directory, "__init__.py")
            return init if _isfile(init) else None
        return _module_in(directory, parts)
    if not parts or _foreign(parts[0]):
        return None
    found = _module_in(root, parts)
    here = os.path.dirname(os.path.abspath(filename))
    if found is None and here != root:
        found = _module_in(here, parts)  # Python 2's implicit relative import
    if itself and found is not None and os.path.abspath(found) == os.path.abspath(filename):
        return None  # a script named like the package it imports
    return found


def forget_files() -> None:
    """Forget which paths were files or directories and where modules were
    found: a long-lived process (the language server) calls it when files may
    have been created or deleted.  The caches of texts and summaries stay:
    they are checked against each file's size and modification time."""
    for cache in (_ISFILE, _ISDIR, _ROOTS, _FOUND, _FOUND_IN):
        cache.clear()


def _submodule(path: str, name: str) -> Optional[str]:
    """The file of submodule ``name`` of the package whose ``__init__.py`` is ``path``."""
    if os.path.basename(path) != "__init__.py":
        return None
    return _module_in(os.path.dirname(path), [name])


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


#: path -> ((size, mtime), Module or None)
_MODULES: Dict[str, Tuple[Tuple[int, int], Optional[Module]]] = {}
#: path -> ((size, mtime), text)
_TEXTS: Dict[str, Tuple[Tuple[int, int], str]] = {}
#: how many modules were summarized, and how many of them astroid built (for tests)
BUILT = [0]
ASTROID_BUILT = [0]
_STAR = re.compile(r"import[\s\\(]*\*")  # (a leading \b would slow the search down)


def _stamp(path: str) -> Optional[Tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _text(path: str, stamp: Optional[Tuple[int, int]] = None) -> Optional[str]:
    if stamp is None:
        stamp = _stamp(path)
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
    return _text(path)


def module(path: str, stamp: Optional[Tuple[int, int]] = None) -> Optional[Module]:
    """The project module in ``path``, summarized once per process
    (``None`` when it cannot be read or parsed)."""
    if stamp is None:
        stamp = _stamp(path)
        if stamp is None:
            return None
    cached = _MODULES.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    built = _build(path, stamp)
    _MODULES[path] = (stamp, built)
    return built


def parse(path: str, stamp: Optional[Tuple[int, int]] = None) -> Optional[Tuple[str, ast.Module]]:
    """The module's text and its tree with function and class bodies emptied, or ``None``."""
    text = _text(path, stamp)
    if text is None:
        return None
    try:
        tree = ast.parse(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    _strip(tree)
    return text, tree


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
        result.all_names = _inferred_all(path, text, tree)
    return result


def _strip(tree: ast.Module) -> None:
    """Empty the bodies of functions and classes: what a module binds at its top
    level is all that is asked (and the summary reads a fraction of the tree)."""
    stack: List[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, None) or ():
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    child.body = [ast.copy_location(ast.Pass(), child.body[0])]
                else:
                    stack.append(child)  # a statement, a handler, a ``case``


def summary(path: str, tree: ast.Module, walrus: bool = True) -> Tuple[Module, bool]:
    """The module's bindings from its (stripped) tree, and whether its
    ``__all__`` is settled: absent, or one literal list or tuple of strings
    (``False``: computed, see :func:`_inferred_all`).  ``walrus``: the text may
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


# ---------------------------------------------------------------------------
# astroid, bounded: a computed ``__all__``, and the summary the tests compare


class _RefuseAll:
    """A ``module_denylist`` that holds every module: astroid follows no import."""

    def __contains__(self, name: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())


@contextmanager
def _bounded():
    """astroid refuses every import it would follow by itself while we use it."""
    from astroid.manager import AstroidManager

    brain = AstroidManager.brain
    saved = brain["module_denylist"]
    brain["module_denylist"] = _RefuseAll()
    try:
        yield AstroidManager()
    finally:
        brain["module_denylist"] = saved


#: astroid could not be imported (it is a dependency; but never raise over it)
_NO_ASTROID = [False]


def _astroid_tree(manager, path: str, text: str, tree: ast.Module):
    """astroid's tree of the (stripped) module, under a name no other module has:
    not ``AstroidBuilder``, whose post-build steps follow imports (torch's
    included) and whose first use builds astroid's model of ``builtins`` (0.3 s)."""
    from astroid.rebuilder import TreeRebuilder

    built = TreeRebuilder(manager, data=text).visit_module(
        tree, PREFIX + path, path, os.path.basename(path) == "__init__.py")
    ASTROID_BUILT[0] += 1
    return built


_ALL_MENTION = re.compile(r"(?<![\w.])__all__\b")


def _inferred_all(path: str, text: str, tree: ast.Module) -> Optional[Set[str]]:
    """A computed ``__all__`` (``__all__ = base + [...]``, ``__all__ += [...]``,
    ``__all__.extend(...)``), as astroid's inference reads it, or ``None`` (every
    public name is taken) when it cannot: astroid follows no import, so
    ``sub.__all__ + [...]`` is ``None``; nor when ``__all__`` is bound in a branch
    or changed in a loop or a function (``bench/benchmark.py --summaries``
    compares this with the ``__all__`` of torch's modules when imported)."""
    if _NO_ASTROID[0]:
        return None
    mentions = len(_ALL_MENTION.findall(text))
    if mentions > sum(1 for n in ast.walk(tree) if n.__class__ is ast.Name and n.id == "__all__"):
        return None  # changed in a function (``__all__.append`` in a decorator ...)
    try:
        with _bounded() as manager:
            from astroid import nodes

            if "builtins" not in manager.astroid_cache:
                manager.bootstrap()  # (astroid's ``builtins``: ``[...] + [...]`` needs it)
            return _infer_all(_astroid_tree(manager, path, text, tree), nodes)
    except ImportError:
        _NO_ASTROID[0] = True
        return None
    except Exception:  # astroid could not build or infer it
        return None


def _infer_all(tree, nodes) -> Optional[Set[str]]:
    found = tree.locals.get("__all__")
    if not found or not isinstance(found[-1], nodes.AssignName):
        return None
    if any(binding.statement().parent is not tree for binding in found):
        return None  # bound in a branch or a loop: which binding holds is not known
    for call in tree.nodes_of_class(nodes.Call):
        func = call.func
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and (
                func.expr.name == "__all__") and not (
                isinstance(call.parent, nodes.Expr) and call.parent.parent is tree):
            return None  # changed in a branch or a loop, or read in an expression
    last = found[-1]
    names = _strings(last, nodes)
    if names is None:
        return None
    for stmt in tree.body:  # ``__all__.extend(...)``, ``__all__.append(...)`` after it
        if not isinstance(stmt, nodes.Expr) or not isinstance(stmt.value, nodes.Call):
            continue
        func = stmt.value.func
        if not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)
                and func.expr.name == "__all__") or stmt.fromlineno < last.fromlineno:
            continue
        args = stmt.value.args
        if func.attrname not in ("extend", "append") or len(args) != 1 or stmt.value.keywords:
            return None
        if func.attrname == "append":
            more = _strings(args[0], nodes, one=True)
        else:
            more = _strings(args[0], nodes)
        if more is None:
            return None
        names.extend(more)
    return set(names)


def _strings(node, nodes, one: bool = False) -> Optional[List[str]]:
    """What ``node`` infers to: one list or tuple of strings (``one``: one string)."""
    inferred = list(node.infer())
    if len(inferred) != 1:
        return None
    value = inferred[0]
    if one:
        elements = [value]
    elif isinstance(value, (nodes.List, nodes.Tuple)):
        elements = value.elts
    else:
        return None
    found = []
    for element in elements:
        if not (isinstance(element, nodes.Const) and isinstance(element.value, str)):
            values = list(element.infer())
            if len(values) != 1:
                return None
            element = values[0]
            if not (isinstance(element, nodes.Const) and isinstance(element.value, str)):
                return None
        found.append(element.value)
    return found


def astroid_summary(path: str, text: str, tree: ast.Module) -> Module:
    """The summary as astroid's tree gave it before :func:`summary` (the tests
    compare the two over projects, the corpus and torch's source)."""
    with _bounded() as manager:
        from astroid import nodes

        return _astroid_bindings(path, _astroid_tree(manager, path, text, tree), nodes)


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
    stamp = _stamp(path)
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
    found = [m.start() for m in _STAR.finditer(text)]
    _STARS[path] = (stamp, found)
    return found


def _attribute(path: str, name: str, star: bool,
               stamp: Optional[Tuple[int, int]]) -> Tuple[bool, Optional[str]]:
    if stamp is None:
        return False, None  # (no such file: nothing to read)
    text = _text(path, stamp) or ""  # (one ``os.stat`` per lookup, in :func:`attribute`)
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
        sub = _submodule(path, name)
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


# ---------------------------------------------------------------------------
# who takes a name from a module (for the fixer)

#: directories never searched for project files
_SKIP_DIRS = frozenset((
    "__pycache__", "node_modules", "site-packages", "dist-packages", "build", "dist",
    "venv", "env", ".venv", ".env", ".tox", ".nox", ".git", ".hg",
))
#: at most this many files are read when looking for the modules that import one
MAX_FILES = 5000


def _project_files(root: str) -> Iterator[str]:
    count = 0
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                count += 1
                if count > MAX_FILES:
                    return
                yield os.path.join(directory, name)


class _Imports:
    """The imports of one project file and the names it reads."""

    __slots__ = ("imports", "names", "attributes", "own")

    def __init__(self, path: str, tree: ast.Module) -> None:
        #: (file of the imported project module, imported name or "*" or "", bound name)
        self.imports: List[Tuple[str, str, str]] = []
        self.names: Set[str] = set()
        self.attributes: Set[Tuple[str, str]] = set()  # (name, attribute)
        #: names the file binds itself at module level, by a named import
        #: (``from torch.autograd import Variable`` beside ``from model import *``)
        self.own: Set[str] = set()
        stack: List[ast.AST] = list(tree.body)
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.own.update(a.asname or a.name.split(".", 1)[0]
                                for a in stmt.names if a.name != "*")
            elif isinstance(stmt, (ast.If, ast.Try)):
                for field in ("body", "orelse", "finalbody"):
                    stack.extend(getattr(stmt, field, ()))
                for handler in getattr(stmt, "handlers", ()):
                    stack.extend(handler.body)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                self.names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                self.attributes.add((node.value.id, node.attr))
            elif isinstance(node, ast.ImportFrom):
                target = find(path, node.module, node.level)
                if target is not None:
                    for alias in node.names:
                        self.imports.append((target, alias.name, alias.asname or alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    dotted = alias.name if alias.asname else alias.name.split(".", 1)[0]
                    target = find(path, dotted)
                    if target is not None:
                        self.imports.append((target, "", alias.asname or dotted))


_IMPORTS: Dict[str, Tuple[Tuple[int, int], Optional[_Imports]]] = {}


def _imports_of(path: str) -> Optional[_Imports]:
    stamp = _stamp(path)
    cached = _IMPORTS.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found = None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if b"import" in data:
            found = _Imports(path, ast.parse(data, path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        found = None
    _IMPORTS[path] = (stamp, found)
    return found


def taken_by(filename: str, name: str) -> Optional[str]:
    """Why removing the import of ``name`` from ``filename`` would break another
    module of the project (one that takes it by ``from M import name``, or by
    ``from M import *`` or ``import M`` and then uses it, through any chain of
    star re-exports), or ``None``.  When it cannot tell, the import stays."""
    try:
        return _taken_by(filename, name)
    except Exception as exc:  # never remove what might be taken; never raise
        return f"the project's other modules could not be read ({type(exc).__name__})"


def _taken_by(filename: str, name: str) -> Optional[str]:
    if not applies(filename) or not filename.endswith(".py"):
        return None
    target = os.path.abspath(filename)
    if not _isfile(target):
        return None
    holders = {target}  # modules whose ``*`` hands ``name`` on
    changed = True
    root = root_of(target)
    files = [f for f in _project_files(root) if os.path.abspath(f) != target]
    # and the scripts beside the directory, which import it as a namespace package
    # (``from models.model import *`` in ``train.py`` beside ``models/``)
    parent = os.path.dirname(root)
    if parent != root:
        try:
            files.extend(sorted(os.path.join(parent, n) for n in os.listdir(parent)
                                if n.endswith(".py")))
        except OSError:
            pass
    while changed:
        changed = False
        for path in files:
            found = _imports_of(path)
            if found is None:
                continue
            for source, imported, bound in found.imports:
                if os.path.abspath(source) not in holders:
                    continue
                rel = os.path.relpath(path)
                if rel.startswith(os.pardir):
                    rel = os.path.abspath(path)
                if imported == name:
                    return f"{rel} imports `{name}` from this module"
                if imported == "*" and _exports(source, name):
                    if name in found.names and name not in found.own:
                        return f"{rel} takes `{name}` from this module with a star import"
                    if os.path.abspath(path) not in holders:
                        holders.add(os.path.abspath(path))
                        changed = True
                if imported == "" and (bound, name) in found.attributes:
                    return f"{rel} uses `{bound}.{name}`"
    return None


def _exports(path: str, name: str) -> bool:
    """Whether ``from path's module import *`` takes ``name``."""
    return attribute(path, name, star=True)[0]
