"""Names that reach a file from the project's own modules, resolved with astroid.

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
* astroid builds only the files found so, with every import it would follow on
  its own refused (the star imports it would resolve while building a module
  are followed here instead, through the same bounded finder).

The finder uses ``os.stat`` only; astroid is imported the first time a file
imports a module that exists in its project, so a file without such imports
pays nothing.  Modules are cached per process by path, size and modification
time (flake8 checks many files in one process; ``-j`` uses processes).
"""
from __future__ import annotations

import ast
import os
import sys
from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ._resolve import STAR_EXPORTS, canonical

#: qualified names of project modules start with this (never a torch name)
PREFIX = "<project>"

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


def _foreign(top: str) -> bool:
    return top in KNOWN or top in _STDLIB


def candidate(node: ast.AST) -> bool:
    """Whether an import statement may import a project module (no file access)."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return True
        return bool(node.module) and not _foreign(node.module.split(".", 1)[0])
    return any(not _foreign(alias.name.split(".", 1)[0]) for alias in node.names)


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


def root_of(path: str) -> str:
    """The directory on ``sys.path`` when ``path`` runs: above its packages."""
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


def find(filename: str, module: Optional[str], level: int = 0) -> Optional[str]:
    """The project file of ``module`` as imported from ``filename``, or ``None``."""
    parts = module.split(".") if module else []
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
    root = root_of(filename)
    found = _module_in(root, parts)
    here = os.path.dirname(os.path.abspath(filename))
    if found is None and here != root:
        found = _module_in(here, parts)  # Python 2's implicit relative import
    if found is not None and os.path.abspath(found) == os.path.abspath(filename):
        return None  # a script named like the package it imports
    return found


def _submodule(path: str, name: str) -> Optional[str]:
    """The file of submodule ``name`` of the package whose ``__init__.py`` is ``path``."""
    if os.path.basename(path) != "__init__.py":
        return None
    return _module_in(os.path.dirname(path), [name])


# ---------------------------------------------------------------------------
# building modules with astroid (bounded)


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


class Module:
    """What a project module binds at its end, as ``from it import *`` sees it."""

    __slots__ = ("path", "names", "exports", "stars", "explicit_all")

    def __init__(self, path: str) -> None:
        self.path = path
        self.names: Names = {}
        #: the names ``*`` takes (``__all__``, else the public names)
        self.exports: Set[str] = set()
        #: modules outside the project it star-imports (``torch.autograd``)
        self.stars: List[str] = []
        self.explicit_all = False


#: path -> ((size, mtime), Module)
_MODULES: Dict[str, Tuple[Tuple[int, int], Module]] = {}
#: modules being computed (an import cycle stops there)
_BUSY: Set[str] = set()
#: how many modules were built with astroid in this process (for tests)
BUILT = [0]


def _stamp(path: str) -> Optional[Tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def module(path: str) -> Optional[Module]:
    """The project module in ``path``, built once per process (``None`` if it cannot be)."""
    path = os.path.abspath(path)
    stamp = _stamp(path)
    if stamp is None:
        return None
    cached = _MODULES.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    if path in _BUSY:
        return None  # a cycle: what is known so far is the partial module below
    _BUSY.add(path)
    try:
        built = _build(path)
    finally:
        _BUSY.discard(path)
    if built is not None:
        _MODULES[path] = (stamp, built)
    return built


def _build(path: str) -> Optional[Module]:
    try:
        with _bounded() as manager:
            from astroid import nodes

            modname = PREFIX + path  # no other module can be cached under it
            tree = manager.ast_from_file(path, modname, fallback=False, source=True)
            BUILT[0] += 1
            exports = _wildcard_names(tree)
            return _bindings(path, tree, nodes, exports)
    except Exception:  # a file astroid cannot build (syntax, encoding): no names
        return None


def _wildcard_names(tree) -> Optional[List[str]]:
    """``__all__`` when the module has one astroid can read, else ``None``."""
    if "__all__" not in tree.locals:
        return None
    try:
        return [n for n in tree.wildcard_import_names() if isinstance(n, str)]
    except Exception:
        return None


def _bindings(path: str, tree, nodes, all_names: Optional[List[str]]) -> Module:
    result = Module(path)
    names = result.names
    star_modules: List[Module] = []
    for stmt in _module_level(tree, nodes):
        if isinstance(stmt, nodes.ImportFrom):
            target = find(path, stmt.modname, stmt.level or 0)
            for name, asname in stmt.names:
                if name == "*":
                    if target is not None:
                        inner = module(target)
                        if inner is not None:
                            star_modules.append(inner)
                            for star_name in _star_names(inner):
                                names[star_name] = _attribute(inner.path, star_name)
                            result.stars.extend(s for s in inner.stars if s not in result.stars)
                    elif stmt.modname and not stmt.level and stmt.modname not in result.stars:
                        result.stars.append(stmt.modname)
                    continue
                bound = asname or name
                if target is not None:
                    names[bound] = _attribute(target, name)
                elif stmt.level or not stmt.modname:
                    names[bound] = None
                else:
                    names[bound] = canonical(f"{stmt.modname}.{name}")
        elif isinstance(stmt, nodes.Import):
            for name, asname in stmt.names:
                dotted = name if asname else name.split(".", 1)[0]
                target = find(path, dotted)
                if target is not None:
                    names[asname or dotted] = PREFIX + target
                else:
                    names[asname or dotted] = dotted
    # a name whose last module-level binding is an assignment, def or class is local
    for name, found in tree.locals.items():
        if name not in names or _last_is_local(found, nodes):
            names[name] = None
    if all_names is not None:
        result.exports = set(all_names)
        result.explicit_all = True
    else:
        result.exports = {n for n in names if not n.startswith("_")}
    return result


def _module_level(tree, nodes) -> List:
    """Import statements that run at module level, in source order (also in
    ``if``/``try`` blocks; the later binding of a name wins)."""
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


def _last_is_local(found, nodes) -> bool:
    """Whether the last module-level binding of a name is not an import."""
    last = max(found, key=lambda n: n.fromlineno or 0)
    return not isinstance(last, (nodes.Import, nodes.ImportFrom))


def _star_names(inner: Module) -> Set[str]:
    return {n for n in inner.exports if not n.startswith("_") or inner.explicit_all}


def _attribute(path: str, name: str) -> Optional[str]:
    """What ``name`` is in the project module ``path``: one of its bindings, or a submodule."""
    inner = module(path)
    if inner is not None and name in inner.names:
        return inner.names[name]
    sub = _submodule(path, name)
    if sub is not None:
        return PREFIX + sub
    if inner is not None:
        for star in inner.stars:  # ``from torch.autograd import *`` in the module
            if name in STAR_EXPORTS.get(star, ()):
                return canonical(f"{star}.{name}")
    return None


def translate(qualname: str) -> Optional[str]:
    """``PREFIX + path + ".a.b"`` -> what ``a.b`` is in that project module."""
    path, _, rest = qualname[len(PREFIX):].partition(".py.")
    if not rest:
        return qualname
    current: Optional[str] = PREFIX + path + ".py"
    for part in rest.split("."):
        if current is None:
            return None
        if current.startswith(PREFIX):
            current = _attribute(current[len(PREFIX):], part)
        else:
            current = canonical(f"{current}.{part}")
    return current


# ---------------------------------------------------------------------------
# the hook: an import statement of the file being checked


def import_bindings(filename: str, node: ast.AST) -> Optional[Tuple[List[tuple], List[str]]]:
    """``(bindings, star modules)`` of an import statement that imports from the
    project, or ``None`` when it does not (the caller binds it as usual).

    A star import of a project module binds every name the module exports, as if
    written here; the modules outside the project it star-imports are returned
    for the usual star lookup.
    """
    if isinstance(node, ast.ImportFrom):
        target = find(filename, node.module, node.level)
        if target is None:
            return None
        pairs: List[tuple] = []
        stars: List[str] = []
        for alias in node.names:
            if alias.name == "*":
                inner = module(target)
                if inner is not None:
                    for name in sorted(_star_names(inner)):
                        pairs.append((name, _attribute(target, name)))
                    stars.extend(inner.stars)
                continue
            pairs.append((alias.asname or alias.name, _attribute(target, alias.name)))
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

    __slots__ = ("imports", "names", "attributes")

    def __init__(self, path: str, tree: ast.AST) -> None:
        #: (file of the imported project module, imported name or "*" or "", bound name)
        self.imports: List[Tuple[str, str, str]] = []
        self.names: Set[str] = set()
        self.attributes: Set[Tuple[str, str]] = set()  # (name, attribute)
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
    star re-exports), or ``None``."""
    if not applies(filename) or not filename.endswith(".py"):
        return None
    target = os.path.abspath(filename)
    if not _isfile(target):
        return None
    holders = {target}  # modules whose ``*`` hands ``name`` on
    changed = True
    files = [f for f in _project_files(root_of(target)) if os.path.abspath(f) != target]
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
                if imported == name:
                    return f"{rel} imports `{name}` from this module"
                if imported == "*" and _exports(source, name):
                    if name in found.names:
                        return f"{rel} takes `{name}` from this module with a star import"
                    if os.path.abspath(path) not in holders:
                        holders.add(os.path.abspath(path))
                        changed = True
                if imported == "" and (bound, name) in found.attributes:
                    return f"{rel} uses `{bound}.{name}`"
    return None


def _exports(path: str, name: str) -> bool:
    """Whether ``from path's module import *`` takes ``name`` (when unsure: yes)."""
    if name.startswith("_"):
        return False
    inner = module(path)
    return inner is None or not inner.explicit_all or name in inner.exports
