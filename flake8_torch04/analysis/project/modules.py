"""Finding a project's own modules on disk (``os.stat`` only)."""
from __future__ import annotations

import ast
import os
import re
import sys
from typing import Dict, Iterator, List, Optional, Tuple

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


def is_file(path: str) -> bool:
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
    while is_file(os.path.join(directory, "__init__.py")):
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
        if _isdir(base) and (is_file(init) or not last):
            if last:
                return init
            directory = base  # a package, or a namespace package on the way
            continue
        if last and is_file(base + ".py"):
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
            return init if is_file(init) else None
        return _module_in(directory, parts)
    if not parts or _foreign(parts[0]):
        return None
    found = _module_in(root, parts)
    here = os.path.dirname(os.path.abspath(filename))
    if found is None and here != root:
        found = _module_in(here, parts)  # Python 2's implicit relative import
    for directory in _appended(filename) if found is None else ():
        found = _module_in(directory, parts)  # (``sys.path.append("../lib")``)
        if found is not None:
            break
    if itself and found is not None and os.path.abspath(found) == os.path.abspath(filename):
        return None  # a script named like the package it imports
    return found


#: ``sys.path.append("../semi-supervised")`` (or ``insert(0, ...)``) of a literal path
_SYS_PATH = re.compile(
    r"\bsys\.path\.(?:append|insert)\(\s*(?:0\s*,\s*)?(['\"])([^'\"\n]+)\1\s*\)")


def _appended(filename: str) -> List[str]:
    """The directories ``filename`` adds to ``sys.path`` by a literal path, read
    relative to its own directory (the script run from where it lies, as 2017
    research code was).  Asked only of a module not found otherwise; the answer
    is kept with :func:`find`'s."""
    from .summary import cached_text  # (the summaries find modules with this module)

    path = os.path.abspath(filename)
    text = cached_text(path) or ""
    if "sys.path" not in text:
        return []
    here = os.path.dirname(path)
    directories = [os.path.normpath(os.path.join(here, m.group(2)))
                   for m in _SYS_PATH.finditer(text)]
    if "__file__" in text:  # (``os.path.join(os.path.dirname(__file__), '..')``)
        directories += _computed(path, text)
    return [d for d in directories if _isdir(d)]


#: the ``os.path`` functions a path added to ``sys.path`` is computed with
_SAME_PATH = frozenset(("abspath", "realpath", "normpath"))


def _computed(path: str, text: str) -> List[str]:
    """The directories ``sys.path.append(E)`` / ``sys.path.insert(i, E)`` add where
    ``E`` computes a path from ``__file__`` with ``os.path``'s ``dirname``,
    ``join`` (of strings), ``abspath``, ``realpath`` and ``normpath``."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "insert") \
                and _spells(node.func.value, "sys.path") \
                and len(node.args) == (1 if node.func.attr == "append" else 2):
            where = _path_value(node.args[-1], path)
            if where is not None and os.path.isabs(where):  # (a literal: :data:`_SYS_PATH`)
                found.append(os.path.normpath(where))
    return found


def _spells(node, dotted: str) -> bool:
    """Whether ``node`` is the attribute chain ``dotted`` (``sys.path``)."""
    import ast

    parts = dotted.split(".")
    while isinstance(node, ast.Attribute) and parts and node.attr == parts[-1]:
        node, parts = node.value, parts[:-1]
    return isinstance(node, ast.Name) and parts == [node.id]


def _path_value(node, path: str) -> Optional[str]:
    """The path ``node`` computes from ``__file__`` (``path``), or ``None``."""
    import ast

    if isinstance(node, ast.Name) and node.id == "__file__":
        return path
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and _spells(node.func.value, "os.path") and not node.keywords):
        return None
    args = [_path_value(a, path) for a in node.args]
    if None in args or not args:
        return None
    name = node.func.attr
    if name in _SAME_PATH and len(args) == 1:
        return os.path.normpath(args[0])  # type: ignore[arg-type]
    if name == "dirname" and len(args) == 1:
        return os.path.dirname(args[0])  # type: ignore[arg-type]
    if name == "join" and os.path.isabs(args[0]):  # type: ignore[arg-type]
        return os.path.join(*args)  # type: ignore[arg-type]
    return None


def forget_files() -> None:
    """Forget which paths were files or directories and where modules were
    found: a long-lived process (the language server) calls it when files may
    have been created or deleted.  The caches of texts and summaries stay:
    they are checked against each file's size and modification time."""
    for cache in (_ISFILE, _ISDIR, _ROOTS, _FOUND, _FOUND_IN):
        cache.clear()


def submodule_path(path: str, name: str) -> Optional[str]:
    """The file of submodule ``name`` of the package whose ``__init__.py`` is ``path``."""
    if os.path.basename(path) != "__init__.py":
        return None
    return _module_in(os.path.dirname(path), [name])


#: directories never searched for project files
SKIP_DIRS = frozenset((
    "__pycache__", "node_modules", "site-packages", "dist-packages", "build", "dist",
    "venv", "env", ".venv", ".env", ".tox", ".nox", ".git", ".hg",
))


class TooMany(Exception):
    """A walk of :func:`project_files` stopped at its bound (``strict``)."""


def project_files(root: str, limit: int, strict: bool = False,
                  max_entries: Optional[int] = None) -> Iterator[str]:
    """The ``.py`` files below ``root`` in a stable order, at most ``limit`` of them
    (``strict``: raise :class:`TooMany` past ``limit`` files or ``max_entries``
    directory entries, instead of stopping there)."""
    count = entries = 0
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        entries += len(dirs) + len(files)
        if strict and max_entries is not None and entries > max_entries:
            raise TooMany(f"more than {max_entries} entries")
        for name in sorted(files):
            if name.endswith(".py"):
                count += 1
                if count > limit:
                    if strict:
                        raise TooMany(f"more than {limit} files")
                    return
                yield os.path.join(directory, name)
