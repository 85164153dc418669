"""Who takes a name from a module (for the fixer: may an import be removed?)."""
from __future__ import annotations

import ast
import os
import re
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

from ..markers import WORD_BYTES
from .lookup import attribute
from .modules import (
    TooMany, applies, find, is_file, project_files, root_of, submodule_path
)
from .summary import cached_text, file_stamp

# ---------------------------------------------------------------------------
# who takes a name from a module (for the fixer)

#: at most this many project files are indexed when looking for the modules that
#: import one; a search cut short keeps the import (it cannot tell)
MAX_FILES = 20000
#: at most this many directory entries are walked (a script in a home directory)
MAX_ENTRIES = 200000
#: a project file larger than this is not parsed: the search cannot tell (a data
#: file of a million lines costs gigabytes to parse)
MAX_BYTES = 4 << 20


class _Short(Exception):
    """The walk of a project stopped at a bound."""


def _project_files(root: str) -> Iterator[str]:
    try:
        yield from project_files(root, MAX_FILES, strict=True, max_entries=MAX_ENTRIES)
    except TooMany as exc:
        raise _Short(str(exc)) from None


def _dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a chain of attributes on a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class _Imports:
    """The imports of one project file and the names it reads."""

    __slots__ = ("imports", "names", "attributes", "own")

    def __init__(self, path: str, tree: ast.Module) -> None:
        #: (file of the imported project module, imported name or "*" or "", bound
        #: name: dotted for ``import pkg.model``)
        self.imports: List[Tuple[str, str, str]] = []
        self.names: Set[str] = set()
        #: (dotted name, attribute): ``pkg.model.Variable`` gives ("pkg.model", "Variable")
        self.attributes: Set[Tuple[str, str]] = set()
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
            elif isinstance(node, ast.Attribute):
                dotted = _dotted(node.value)
                if dotted is not None:
                    self.attributes.add((dotted, node.attr))
            elif isinstance(node, ast.ImportFrom):
                self._import_from(path, node)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        target = find(path, alias.name)
                        if target is not None:
                            self.imports.append((target, "", alias.asname))
                        continue
                    # ``import pkg.model`` binds ``pkg`` and reaches ``pkg.model``
                    parts = alias.name.split(".")
                    for i in range(1, len(parts) + 1):
                        dotted = ".".join(parts[:i])
                        target = find(path, dotted)
                        if target is not None:
                            self.imports.append((target, "", dotted))

    def _import_from(self, path: str, node: ast.ImportFrom) -> None:
        target = find(path, node.module, node.level)
        if target is None and node.level and not node.module:
            target = ""  # ``from . import model`` in a namespace package
        if target is None:
            return
        for alias in node.names:
            bound = alias.asname or alias.name
            if target:
                self.imports.append((target, alias.name, bound))
            # ``from pkg import model``: ``model`` is the submodule
            sub = (submodule_path(target, alias.name) if target
                   else _namespace_submodule(path, node.level, alias.name))
            if sub is not None and alias.name != "*":
                self.imports.append((sub, "", bound))


def _namespace_submodule(path: str, level: int, name: str) -> Optional[str]:
    directory = os.path.dirname(os.path.abspath(path))
    for _ in range(level - 1):
        directory = os.path.dirname(directory)
    found = os.path.join(directory, name + ".py")
    return found if is_file(found) else None


_IMPORTS: Dict[str, Tuple[Tuple[int, int], Optional[_Imports]]] = {}


def _imports_of(path: str) -> Optional[_Imports]:
    """The file's imports (``None``: it imports nothing); raises ``_Short`` when
    it cannot be read or parsed."""
    stamp = file_stamp(path)
    cached = _IMPORTS.get(path)
    if cached is not None and cached[0] == stamp:
        if cached[1] is False:
            raise _Short(f"{os.path.relpath(path)} could not be read")
        return cached[1]
    found = None
    try:
        if stamp is None or stamp[0] > MAX_BYTES:
            raise ValueError("too large")
        with open(path, "rb") as handle:
            data = handle.read()
        if b"import" in data:
            found = _Imports(path, _parsed(data, path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        found = False
    _IMPORTS[path] = (stamp, found)
    if found is False:
        raise _Short(f"{os.path.relpath(path)} could not be read")
    return found


def _parsed(data: bytes, path: str) -> ast.AST:
    """The tree of ``data``; where only 0.3's ``async=`` keeps it from parsing, the
    tree of its rescue (:mod:`..rescue`: the text the same run's TV101 fix writes),
    so that what it imports is known; raises ``SyntaxError`` otherwise."""
    try:
        return ast.parse(data, path)
    except SyntaxError:
        from ..rescue import rescue

        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SyntaxError("cannot be decoded") from None
        found = rescue(text, lambda rescued: ast.parse(rescued, path))
        if found is None:
            raise
        return ast.parse(found.text, path)


class _Index:
    """Who imports each project module, built once per run for one search root:
    each file is read once, whatever the number of imports the fixer asks about
    (a whole-project fix asks once per module: linear, not quadratic)."""

    def __init__(self, root: str) -> None:
        self.root = root
        #: imported module file -> (importing file, its imports, imported, bound)
        self.by_target: Dict[str, List[Tuple[str, _Imports, str, str]]] = {}
        #: why the index is incomplete (``None``: every file was read)
        self.short: Optional[str] = None
        #: files that could not be parsed: an importer there is unknown
        self.unread: List[str] = []
        try:
            files = list(_project_files(root))
        except _Short as exc:
            self.short = str(exc)
            return
        files.extend(_namespace_importers(root))
        for path in files:
            try:
                found = _imports_of(path)
            except _Short:
                self.unread.append(path)
                continue
            if found is None:
                continue
            for source, imported, bound in found.imports:
                self.by_target.setdefault(os.path.abspath(source), []).append(
                    (path, found, imported, bound))


def _namespace_importers(root: str) -> List[str]:
    """The scripts beside ``root`` that name it: they import it as a namespace
    package (``from models.model import *`` in ``train.py`` beside ``models/``).
    Only they are read, never the rest of the parent directory (a script in a home
    directory)."""
    parent = os.path.dirname(root)
    if parent == root or is_file(os.path.join(root, "__init__.py")):
        return []
    word = os.path.basename(root).encode()
    found = []
    try:
        names = sorted(n for n in os.listdir(parent) if n.endswith(".py"))
    except OSError:
        return []
    for name in names[:MAX_FILES]:
        path = os.path.join(parent, name)
        try:
            with open(path, "rb") as handle:
                if word in handle.read(MAX_BYTES):
                    found.append(path)
        except OSError:
            continue
    return found


_INDEXES: Dict[str, _Index] = {}
#: root -> (path -> the identifiers of its text), or ``None`` when the walk was cut short
_WORDS: Dict[str, Optional[Dict[str, FrozenSet[bytes]]]] = {}


def forget() -> None:
    """Start a new run: the next search reads the project's files again (and the
    value facts read the project's modules again: :mod:`..foreign`)."""
    from .. import foreign, saved

    _INDEXES.clear()
    _WORDS.clear()
    _SPELLERS.clear()
    _REACH.clear()
    foreign.forget()
    saved.forget()


def named_elsewhere(filename: str, name: str, imported: bool = False) -> bool:
    """Whether another file of ``filename``'s project spells ``name`` (as an
    identifier), so might import or call it: a cheap, sure "no" before
    :func:`taken_by`'s parse of every module (each file's identifiers are read
    once per root, with one regular expression).  With ``imported`` (a function
    of the module, which another file reaches only by importing it), only the
    files that can import from it count: those that spell its module's name, or
    the name of a module that does (a re-export); a script beside it that
    defines a function of the same name and never imports it does not.  (A
    method is reached through any object passed around: every file counts.)
    ``True`` when it cannot tell."""
    if not applies(filename):
        return False
    try:
        target = os.path.abspath(filename)
        root = root_of(target)
        words = _root_words(root)
        if words is None:
            return True
        spelled = name.encode("utf-8", "surrogatepass")
        if not imported:
            return any(spelled in found for path, found in words.items() if path != target)
        return any(spelled in words[path] for path in _importers(root, target, words))
    except Exception:  # (never raise from a rule: "maybe")
        return True


def _root_words(root: str):
    """Each file's identifiers below ``root`` (read once per root), or ``None``."""
    words = _WORDS.get(root, ())
    if words == ():
        words = _WORDS[root] = _read_words(root)
    return words


def importers_spelling(filename: str, name: str) -> Optional[Tuple[List[str], List[str]]]:
    """The other files of ``filename``'s project that may import from its module
    (see :func:`named_elsewhere`'s ``imported``) and spell ``name``, and all of
    those that may import from it, sorted; ``None`` when it cannot tell."""
    if not applies(filename):
        return [], []
    try:
        target = os.path.abspath(filename)
        root = root_of(target)
        words = _root_words(root)
        if words is None:
            return None
        spelled = name.encode("utf-8", "surrogatepass")
        every = sorted(_importers(root, target, words))
        return [path for path in every if spelled in words[path]], every
    except Exception:  # (never raise from a rule: "cannot tell")
        return None


def spellers(filename: str, name: str) -> Optional[List[str]]:
    """The other files of ``filename``'s project that spell ``name`` (as an
    identifier), sorted; ``None`` when it cannot tell."""
    if not applies(filename):
        return []
    try:
        target = os.path.abspath(filename)
        words = _root_words(root_of(target))
        if words is None:
            return None
        spelled = name.encode("utf-8", "surrogatepass")
        return sorted(path for path, found in words.items() if path != target and spelled in found)
    except Exception:  # (never raise from a rule: "cannot tell")
        return None


#: root -> (module name -> the files that spell it), and (root, module name) ->
#: the files that may import that module, directly or re-exported
_SPELLERS: Dict[str, Dict[bytes, List[str]]] = {}
_REACH: Dict[Tuple[str, bytes], FrozenSet[str]] = {}


def module_stem(path: str) -> str:
    """The identifier an import of the module at ``path`` spells: its stem, or
    its package's name for an ``__init__.py``."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(os.path.dirname(path)) if stem == "__init__" else stem


def _module_word(path: str) -> bytes:
    return module_stem(path).encode("utf-8", "surrogatepass")


def _importers(root: str, target: str, words: Dict[str, FrozenSet[bytes]]) -> List[str]:
    """The files of the project but ``target`` that spell the name of its module,
    or of a module that does, and so on (who may import it, directly or
    re-exported)."""
    spellers = _SPELLERS.get(root)
    if spellers is None:
        modules = {_module_word(path) for path in words}
        spellers = _SPELLERS[root] = {}
        for path, spelled in words.items():
            for word in modules.intersection(spelled):
                spellers.setdefault(word, []).append(path)
    start = _module_word(target)
    reach = _REACH.get((root, start))
    if reach is None:
        found = set()
        pending = [start]
        seen = {start}
        while pending:
            for path in spellers.get(pending.pop(), ()):
                if path not in found:
                    found.add(path)
                    word = _module_word(path)
                    if word not in seen:
                        seen.add(word)
                        pending.append(word)
        reach = _REACH[(root, start)] = frozenset(found)
    return [path for path in reach if path != target]


def _read_words(root: str) -> Optional[Dict[str, FrozenSet[bytes]]]:
    texts = project_texts(root)
    if texts is None:
        return None
    # (each file's words: runs of word bytes, as the marker gate reads them; a
    # name is one of them where the file spells it as an identifier; not in a
    # comment, where no quote comes before the ``#`` on its line: a comment that
    # names another module imports nothing)
    return {path: frozenset(_COMMENT.sub(rb"\1", text.encode("utf-8", "surrogatepass"))
                            .translate(WORD_BYTES).split())
            for path, text in texts}


_COMMENT = re.compile(rb"(?m)^([^'\"#\n]*)#[^\n]*")


def project_texts(root: str) -> Optional[List[Tuple[str, str]]]:
    """``(absolute path, text)`` of every ``.py`` file of the project at ``root``
    (found as :func:`taken_by` finds them); ``None`` when a walk is cut short or a
    file cannot be read (it may hold anything)."""
    found = []
    try:
        files = list(_project_files(root)) + _namespace_importers(root)
    except _Short:
        return None
    for path in files:
        stamp = file_stamp(path)
        text = cached_text(path, stamp) if stamp is not None and stamp[0] <= MAX_BYTES \
            else None
        if text is None:
            return None
        found.append((os.path.abspath(path), text))
    return found


def _index(root: str) -> _Index:
    found = _INDEXES.get(root)
    if found is None:
        found = _INDEXES[root] = _Index(root)
    return found


def taken_by(filename: str, name: str) -> Optional[str]:
    """Why removing the import of ``name`` from ``filename`` would break another
    module of the project (one that takes it by ``from M import name``, or by
    ``from M import *`` or ``import M`` and then uses it, through any chain of
    star re-exports), or ``None``.  When it cannot tell (a search cut short, a
    file that cannot be read), it says so and the import stays."""
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
    index = _index(root_of(target))
    if index.short is not None:
        return (f"the search for the modules that import it stopped ({index.short} "
                f"under {os.path.relpath(index.root)}), so it cannot tell")
    holders = [target]  # modules whose ``*`` hands ``name`` on
    seen = {target}
    for holder in holders:
        for path, found, imported, bound in index.by_target.get(holder, ()):
            if os.path.abspath(path) == target:
                continue
            rel = os.path.relpath(path)
            if rel.startswith(os.pardir):
                rel = os.path.abspath(path)
            if imported == name:
                return f"{rel} imports `{name}` from this module"
            if imported == "*" and _exports(holder, name):
                if name in found.names and name not in found.own:
                    return f"{rel} takes `{name}` from this module with a star import"
                if os.path.abspath(path) not in seen:
                    seen.add(os.path.abspath(path))
                    holders.append(os.path.abspath(path))
            if imported == "" and (bound, name) in found.attributes:
                return f"{rel} uses `{bound}.{name}`"
    stem = module_stem(target)
    for path in index.unread:  # (Python 2 code, a data file): may it take it?
        if _mentions(path, name) and (_mentions(path, stem) or _mentions(path, "from .")):
            return (f"{os.path.relpath(path)} could not be parsed and names `{name}`, "
                    f"so it cannot tell")
    return None


def _mentions(path: str, name: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return name.encode() in handle.read()
    except OSError:
        return True


def _exports(path: str, name: str) -> bool:
    """Whether ``from path's module import *`` takes ``name``."""
    return attribute(path, name, star=True)[0]


# ---------------------------------------------------------------------------
# where the project spells a name in its text (for rename fixes)


#: pattern -> path -> (the file's stamp, whether its text matches): each file is
#: searched once per pattern, not once per file that asks
_MENTIONS: Dict[str, Dict[str, Tuple[Optional[Tuple[int, int]], bool]]] = {}


def mentioned_by(filename: str, pattern: "re.Pattern[str]",
                 word: Optional[str] = None, importers: bool = False) -> Optional[str]:
    """Another file of ``filename``'s project (a ``.py`` file under the
    project's root, found as :func:`taken_by` finds them) whose text matches
    ``pattern``, as a path relative to the working directory, or ``None``.

    A rename fix asks it whether a test patches the old dotted name by string
    (``mock.patch("torch.nn.NLLLoss2d")``): renaming only the code would break
    that test.  The file itself is the caller's to search (its text may be
    ahead of the disk's while the fixer works).  When the files cannot be
    read it answers with the file (a fix is then withheld rather than risked).
    ``word``, an identifier every match spells, lets the files whose identifiers
    (read once per root for :func:`named_elsewhere`) lack it go unsearched.  With
    ``importers``, only the files that may import the module (spell its name, or
    the name of a module that does) are searched.
    """
    if not applies(filename):
        return None
    try:
        target = os.path.abspath(filename)
        if not is_file(target):
            return None
        root = root_of(target)
        spelled = None
        if word is not None:
            word = word.rsplit(".", 1)[-1]  # (``nn.NLLLoss2d``: the name is spelled)
            key = word.encode("utf-8", "surrogatepass")
            spelled = _root_words(root)
        seen = _MENTIONS.setdefault(pattern.pattern, {})
        searched = _project_files(root)
        if importers:
            words = _root_words(root)
            if words is None:
                return filename
            searched = _importers(root, target, words)
        for path in searched:
            absolute = os.path.abspath(path)
            if absolute == target or (
                    spelled is not None and absolute in spelled
                    and key not in spelled[absolute]):
                continue
            stamp = file_stamp(path)
            known = seen.get(path)
            if known is None or known[0] != stamp:  # (each file searched once per pattern)
                text = cached_text(path, stamp) if stamp is not None else None
                known = seen[path] = (stamp, text is not None and bool(pattern.search(text)))
            if known[1]:
                rel = os.path.relpath(path)
                return os.path.abspath(path) if rel.startswith(os.pardir) else rel
    except Exception:  # never raise from a rule; answer "maybe" instead
        return filename
    return None
