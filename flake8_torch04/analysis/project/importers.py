"""Who takes a name from a module (for the fixer: may an import be removed?)."""
from __future__ import annotations

import ast
import os
import re
from typing import Dict, Iterator, List, Optional, Set, Tuple

from .lookup import attribute
from .modules import applies, find, is_file, project_files, root_of
from .summary import cached_text, file_stamp

# ---------------------------------------------------------------------------
# who takes a name from a module (for the fixer)

#: at most this many files are read when looking for the modules that import one
MAX_FILES = 5000


def _project_files(root: str) -> Iterator[str]:
    return project_files(root, MAX_FILES)


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
    stamp = file_stamp(path)
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
    if not is_file(target):
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


# ---------------------------------------------------------------------------
# where the project spells a name in its text (for rename fixes)


def mentioned_by(filename: str, pattern: "re.Pattern[str]") -> Optional[str]:
    """Another file of ``filename``'s project (a ``.py`` file under the
    project's root, found as :func:`taken_by` finds them) whose text matches
    ``pattern``, as a path relative to the working directory, or ``None``.

    A rename fix asks it whether a test patches the old dotted name by string
    (``mock.patch("torch.nn.NLLLoss2d")``): renaming only the code would break
    that test.  The file itself is the caller's to search (its text may be
    ahead of the disk's while the fixer works).  When the files cannot be
    read it answers with the file (a fix is then withheld rather than risked).
    """
    if not applies(filename):
        return None
    try:
        target = os.path.abspath(filename)
        if not is_file(target):
            return None
        for path in _project_files(root_of(target)):
            if os.path.abspath(path) == target:
                continue
            text = cached_text(path)
            if text is not None and pattern.search(text):
                rel = os.path.relpath(path)
                return os.path.abspath(path) if rel.startswith(os.pardir) else rel
    except Exception:  # never raise from a rule; answer "maybe" instead
        return filename
    return None
