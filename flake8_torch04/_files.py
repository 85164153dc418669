"""Files: which to check (discovery and excludes), their bytes as text and back,
and writing them atomically."""
from __future__ import annotations

import os
import re
import stat
from typing import (
    TYPE_CHECKING, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple,
)

# (difflib, tempfile and the notebook module are imported where they are needed)
if TYPE_CHECKING:  # pragma: no cover
    from ._notebook import Notebook

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", "CVS", ".tox", ".nox", ".venv", "venv", "__pycache__",
    ".eggs", "*.egg-info", "*.egg", "build", "dist", "node_modules", ".ipynb_checkpoints",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "__pypackages__", "site-packages",
)
SOURCE_SUFFIXES = (".py", ".ipynb")


def _pattern_regex(pattern: str) -> str:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            bracket = _bracket(pattern, i)
            if bracket is None:  # (not closed: a plain character)
                out.append(re.escape("["))
                i += 1
            else:
                regex, i = bracket
                out.append(regex)
        elif pattern[i] == "\\":  # escapes the next character; a last one, nothing (as in git)
            out.append(re.escape(pattern[i + 1]) if i + 1 < len(pattern) else "(?!)")
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


#: git's character classes (``[[:digit:]]``), in a regex's brackets
_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "space": "\\s", "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
}


def _bracket(pattern: str, start: int) -> Optional[Tuple[str, int]]:
    """The regex of the ``[...]`` at ``start`` as git reads it, and the index after
    it; ``None`` when it is not closed (the ``[`` is then a plain character).

    ``!`` or ``^`` first negates, a ``]`` first is a member, ``\\`` escapes, ``a-z``
    is a range (``z-a`` holds nothing, as in git, rather than breaking the regex),
    ``[:digit:]`` a class; a set never matches ``/``.
    """
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    i += negate
    members: List[str] = []
    first = True
    while i < len(pattern):
        char = pattern[i]
        if char == "]" and not first:
            break
        first = False
        if char == "[" and pattern.startswith("[:", i):
            close = pattern.find(":]", i + 2)
            name = pattern[i + 2:close] if close != -1 else ""
            if name in _CLASSES:
                members.append(_CLASSES[name])
                i = close + 2
                continue
        if char == "\\" and i + 1 < len(pattern):
            i += 1
            char = pattern[i]
        low = char
        i += 1
        if pattern.startswith("-", i) and i + 1 < len(pattern) and pattern[i + 1] != "]":
            high = pattern[i + 1]
            if high == "\\" and i + 2 < len(pattern):
                high = pattern[i + 2]
                i += 1
            i += 2
            if low <= high:
                members.append(f"{re.escape(low)}-{re.escape(high)}")
            continue
        members.append(re.escape(low))
    else:
        return None
    body = "".join(members)
    if negate:
        return f"[^/{body}]", i + 1
    return (f"(?![/])[{body}]" if body else "(?!)"), i + 1


class Excludes:
    """``.gitignore``-style patterns, matched against paths relative to the root walked.

    A pattern without a ``/`` (other than a trailing one) matches a name at any
    depth; one with a ``/`` is anchored at the root; a trailing ``/`` matches
    directories only; ``*``, ``?``, ``[...]`` stay within a path segment, ``**``
    crosses them; ``!`` re-includes; the last matching pattern decides.  A
    directory that is excluded is not entered.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        # (compiled at the first match: a run given only file names never walks
        # a directory, and the 22 default patterns cost a millisecond to compile)
        self._rules: Optional[List[Tuple["re.Pattern[str]", bool, bool]]] = None
        #: without a ``!`` pattern: one regex for files and one for directories
        #: (any pattern that matches decides), else ``None``
        self._any: Optional[Tuple["re.Pattern[str]", "re.Pattern[str]"]] = None

    @property
    def rules(self) -> List[Tuple["re.Pattern[str]", bool, bool]]:
        if self._rules is None:
            self._rules = self._compile(self.patterns)
            if not any(negate for _, negate, _ in self._rules):
                self._any = (_either(r for r, _, dir_only in self._rules if not dir_only),
                             _either(r for r, _, _ in self._rules))
        return self._rules

    @staticmethod
    def _compile(patterns: Sequence[str]) -> List[Tuple["re.Pattern[str]", bool, bool]]:
        rules: List[Tuple["re.Pattern[str]", bool, bool]] = []
        for raw in patterns:
            pattern = raw.strip()
            if not pattern or pattern.startswith("#"):
                continue
            negate = pattern.startswith("!")
            pattern = pattern[1:] if negate else pattern
            dir_only = pattern.endswith("/")
            pattern = pattern.rstrip("/")
            if pattern.startswith("./"):
                pattern = pattern[2:]
            anchored = "/" in pattern
            body = _pattern_regex(pattern.lstrip("/"))
            regex = re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z", re.S)
            rules.append((regex, negate, dir_only))
        return rules

    def excluded(self, relpath: str, is_dir: bool) -> bool:
        rules = self.rules
        if self._any is not None:
            return self._any[1 if is_dir else 0].match(relpath) is not None
        result = False
        for regex, negate, dir_only in rules:
            if dir_only and not is_dir:
                continue
            if regex.match(relpath):
                result = not negate
        return result


def _either(regexes: Iterable["re.Pattern[str]"]) -> "re.Pattern[str]":
    """One regex that matches where any of ``regexes`` (made by :class:`Excludes`)
    matches; one that never matches for none."""
    body = "|".join(f"(?:{r.pattern})" for r in regexes)
    return re.compile(body or r"(?!)", re.S)


def discover(
    paths: Sequence[str],
    excludes: Excludes,
    skip: Optional[Callable[[str, bool], bool]] = None,
    force_exclude: bool = False,
    gitignore: bool = False,
    skip_parents: bool = True,
    problems: Optional[List[Tuple[str, str, bool]]] = None,
) -> Iterator[str]:
    """Files to check: named files as given, ``.py``/``.ipynb`` files under directories.

    Walking a directory, a symbolic link whose target lies outside that
    directory is not followed (a fix would rewrite a file elsewhere; black
    does the same), and a directory that cannot be read is not passed over in
    silence: ``(path, reason, is_error)`` of each goes to ``problems`` (the
    link is a note; the directory an error).

    ``excludes`` holds patterns relative to each directory walked (``--exclude``);
    ``skip(path, is_dir)`` says whether the configuration excludes a path; with
    ``gitignore``, what git ignores (``.gitignore`` files, ``.git/info/exclude``)
    is skipped too.  Files named directly are checked whatever the excludes say,
    unless ``force_exclude`` (what pre-commit, which names every file, needs); then
    a named file is skipped when it, or a directory above it, is excluded (without
    ``skip_parents``, ``skip`` looks at the file alone, as flake8 does).
    """
    seen = set()  # (device, inode): one file under two names is checked once
    ignores = GitIgnore(problems) if gitignore else None

    def dropped(path: str, rel: str, is_dir: bool, parent: bool = False) -> bool:
        return (excludes.excluded(rel, is_dir=is_dir)
                or (skip is not None and (skip_parents or not parent) and skip(path, is_dir))
                or (ignores is not None and ignores.ignored(path, is_dir)))

    for path in paths:
        info = _stat(path) if path != "-" else None
        if info is None or not stat.S_ISDIR(info.st_mode):
            if force_exclude and path != "-" and _forced_out(path, dropped):
                continue
            identity = (info.st_dev, info.st_ino) if info is not None else path
            if identity not in seen:
                seen.add(identity)
                yield path  # (one that vanished is reported when it is read)
            continue
        if force_exclude and _forced_out(path, dropped, is_dir=True):
            continue
        root = os.path.realpath(path)

        def unreadable(exc: OSError) -> None:
            if problems is not None:
                problems.append((exc.filename or path,
                                 f"cannot read the directory: {exc.strerror or exc}", True))

        for dirpath, dirnames, filenames in os.walk(path, onerror=unreadable):
            rel_dir = os.path.relpath(dirpath, path).replace(os.sep, "/")
            rel_dir = "" if rel_dir == "." else rel_dir + "/"
            dirnames[:] = sorted(
                d for d in dirnames
                if not dropped(os.path.join(dirpath, d), rel_dir + d, True)
            )
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                full = os.path.join(dirpath, name)
                if dropped(full, rel_dir + name, False):
                    continue
                info = _stat(full)  # ``None``: a dangling link
                if info is not None and os.path.islink(full) and not _inside(full, root):
                    if problems is not None:
                        problems.append((full, "skipped: a symbolic link to a file outside "
                                               f"{path}", False))
                    continue
                if info is not None and stat.S_ISREG(info.st_mode):
                    identity = (info.st_dev, info.st_ino)
                    if identity not in seen:
                        seen.add(identity)
                        yield full


def _inside(link: str, root: str) -> bool:
    target = os.path.realpath(link)
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def _forced_out(path: str, dropped: Callable[..., bool], is_dir: bool = False) -> bool:
    """``--force-exclude``: whether a named path, or a directory above it (up to the
    current directory), is excluded; ``--exclude`` patterns are matched from ``.``."""
    here = os.getcwd()
    candidate = os.path.abspath(path)
    parent = False
    while True:
        rel = os.path.relpath(candidate, here).replace(os.sep, "/")
        if rel == "." or rel.startswith("../"):
            return rel != "." and dropped(candidate, os.path.basename(candidate), is_dir,
                                          parent)
        if dropped(candidate, rel, is_dir, parent):
            return True
        candidate, is_dir, parent = os.path.dirname(candidate), True, True


class GitIgnore:
    """What git ignores: the ``.gitignore`` files from a path's directory up to the top
    of its work tree, and ``.git/info/exclude`` (matched with ``pathspec``, git's own
    rules: the deepest file that says something about a path decides).  Outside a git
    work tree nothing is ignored, as git ignores nothing there."""

    def __init__(self, problems: Optional[List[Tuple[str, str, bool]]] = None) -> None:
        #: directory -> its chain, or ``None`` outside a work tree
        self._chains: dict = {}
        #: where to say, once, that ``pathspec`` is missing (see :func:`discover`)
        self._problems = problems
        self._told = False

    def _read(self, path: str):
        try:
            return _ignore_file(path)
        except ImportError:  # (a broken install: check on, with what git ignores)
            if not self._told and self._problems is not None:
                self._told = True
                self._problems.append((path, "not read: pathspec is not installed (pip install "
                                             "pathspec); what git ignores is checked too", False))
            return None

    def _chain(self, directory: str) -> list:
        """``(directory, spec)`` pairs from ``directory`` up to the top of its work tree."""
        return self._chain_or_none(directory) or []

    def _chain_or_none(self, directory: str) -> Optional[list]:
        if directory in self._chains:
            return self._chains[directory]
        # (each directory's files are read once: its subdirectories' chains share them)
        spec = self._read(os.path.join(directory, ".gitignore"))
        specs: Optional[list] = [(directory, spec)] if spec is not None else []
        if os.path.exists(os.path.join(directory, ".git")):
            spec = self._read(os.path.join(directory, ".git", "info", "exclude"))
            if spec is not None:
                specs.append((directory, spec))
        else:
            parent = os.path.dirname(directory)
            above = self._chain_or_none(parent) if parent != directory else None
            specs = None if above is None else specs + above  # (None: not in a work tree)
        self._chains[directory] = specs
        return specs

    def ignored(self, path: str, is_dir: bool) -> bool:
        absolute = os.path.abspath(path)
        for base, spec in self._chain(os.path.dirname(absolute)):
            rel = os.path.relpath(absolute, base).replace(os.sep, "/")
            result = spec.check_file(rel + "/" if is_dir else rel)
            if result.include is not None:
                return bool(result.include)
        return False


def _ignore_file(path: str):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    import warnings

    import pathspec  # (only where there is a .gitignore)

    with warnings.catch_warnings():  # (``[[:digit:]]``: "Possible nested set")
        warnings.simplefilter("ignore")
        try:
            return pathspec.GitIgnoreSpec.from_lines(lines)
        except Exception:  # a line pathspec cannot read (``[z-a]``): as git, it matches nothing
            return pathspec.GitIgnoreSpec.from_lines(line for line in lines if _readable(line))


def _readable(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except Exception:
        return False
    return True


def _stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(path)
    except OSError:
        return None


class CannotParse(Exception):
    """A file that cannot be checked: reported with its reason, left untouched."""


class Document:
    """A file's bytes as the text that is checked and fixed, and back to bytes."""

    notebook: Optional["Notebook"] = None
    locked = None

    def __init__(self, data: bytes, name: str) -> None:
        self.name = name
        self.data = data
        if name.endswith(".ipynb"):
            from ._notebook import Notebook, NotebookError

            self.encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
            try:
                raw = data.decode(self.encoding)
                self.notebook = Notebook(raw)
            except (UnicodeDecodeError, NotebookError) as exc:
                raise CannotParse(str(exc)) from None
            self.text = self.notebook.text
            self.locked = self.notebook.locked
        else:
            try:
                self.encoding = source_encoding(data)
                self.text = data.decode(self.encoding)
            except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
                raise CannotParse(f"cannot decode: {_decode_error(data, exc)}") from None

    @property
    def applies(self) -> bool:
        """Whether the rules apply (a notebook of another language is skipped)."""
        return self.notebook is None or self.notebook.python

    def where(self, line: int) -> Tuple[Optional[int], int]:
        if self.notebook is None:
            return None, line
        return self._locator(line)

    def set_text(self, text: str) -> None:
        """Positions from now on refer to ``text``."""
        if self.notebook is not None:
            self._locator = self.notebook.locator(text)

    def describe(self, line: int) -> str:
        cell, line = self.where(line)
        return f"line {line}" if cell is None else f"cell {cell}, line {line}"

    def to_bytes(self, text: str) -> bytes:
        if self.notebook is not None:
            return self.notebook.render(text).encode(self.encoding)
        return text.encode(self.encoding)

    def diff(self, text: str) -> str:
        name = diff_name(self.name)
        if self.notebook is not None:
            pairs = [(f"{name}:cell {n}", old, new)
                     for n, (old, new) in sorted(self.notebook.changed_cells(text).items())]
        else:
            pairs = [(name, self.text, text)] if text != self.text else []
        chunks = []
        for name, old, new in pairs:
            import difflib

            lines = difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), f"a/{name}", f"b/{name}"
            )
            for line in lines:
                chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end "
                              "of file\n")
        return "".join(chunks)


def diff_name(name: str) -> str:
    """The name in ``a/NAME`` and ``b/NAME`` diff headers, as ``git apply`` reads them:
    relative to the current directory, without ``./``."""
    if os.path.isabs(name):
        rel = os.path.relpath(name)
        name = name if rel.startswith("..") else rel
    else:
        name = os.path.normpath(name)
    return name.replace(os.sep, "/")


def source_encoding(data: bytes) -> str:
    """The encoding Python reads ``data`` in (PEP 263), as ``tokenize.detect_encoding``
    says; without a BOM and without ``coding`` in the first two lines, or with a
    cookie for UTF-8, it is UTF-8, which is decided here without importing
    ``tokenize``."""
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first != -1 else -1
    head = data if second == -1 else data[:second]
    bom = data.startswith(b"\xef\xbb\xbf")
    if b"coding" not in head and not bom:
        return "utf-8"
    # lines end where the compiler ends them: at CR too (``BytesIO.readline``
    # would take a CR-only file for one line and miss a cookie on line 2)
    lines = data.splitlines(keepends=True)[:2]
    if not bom and _utf8_cookie(lines):
        return "utf-8"
    import tokenize

    read = iter(lines)
    return tokenize.detect_encoding(lambda: next(read, b""))[0]


#: ``tokenize.cookie_re`` and ``tokenize.blank_re`` (the same in Python 3.9-3.13)
_COOKIE = r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)"
_BLANK = rb"^[ \t\f]*(?:[#\r\n]|$)"


def _utf8_cookie(lines: Sequence[bytes]) -> bool:
    """Whether ``tokenize.detect_encoding`` reads the first two lines of a file without
    a BOM as UTF-8 (a cookie that names it, or none), read as it reads them; ``False``
    leaves the rest (another encoding, a line that is not UTF-8) to it."""
    for line in lines:
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            return False
        match = re.match(_COOKIE, text, re.ASCII)
        if match is not None:  # (``tokenize._get_normal_name``)
            name = match.group(1)[:12].lower().replace("_", "-")
            return name == "utf-8" or name.startswith("utf-8-")
        if re.match(_BLANK, line) is None:
            return True  # (no cookie can follow a line of code)
    return True


def _decode_error(data: bytes, exc: Exception) -> str:
    """The most telling reason: a UTF-8 decoding error names the byte and position."""
    if isinstance(exc, SyntaxError):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as utf8:
            return str(utf8)
        return exc.msg or str(exc)
    return str(exc)


class NotWritten(Exception):
    """A fixed file that was deliberately not written; the text says why."""


#: temporary files are named ``.torch04-PID-RANDOM.tmp`` in the file's directory
_TMP_PREFIX, _TMP_SUFFIX = ".torch04-", ".tmp"
_cleaned: set = set()


def write_atomically(path: str, data: bytes, original: Optional[bytes] = None) -> None:
    """Replace the file's content, never leaving it half-written.

    - The new bytes go to a temporary file in the same directory, which then
      replaces the file (``os.replace``), keeping its mode (and its owner,
      where allowed).  A file with more than one hard link is rewritten in
      place instead (truncated and written), so that its other names see the
      fix too, as black and Ruff do; that write is not atomic.
    - A symlink named on the command line has its target written.
    - ``original``: the bytes the fix was computed from.  When the file no
      longer holds them (an editor saved it meanwhile) it is not written.
    - A file without its owner's write permission (``chmod a-w``) is not
      written, even by root.
    - Temporary files left by a torch04 that was killed (their process is
      gone) are removed from the directory.

    Raises :class:`NotWritten` with the reason for a file deliberately left
    alone, ``OSError`` for a failure.
    """
    real = os.path.realpath(path)
    info = os.stat(real)
    if not stat.S_ISREG(info.st_mode):
        raise NotWritten("not a regular file")
    if not info.st_mode & stat.S_IWUSR:
        raise NotWritten("the file is read-only (chmod u+w to let torch04 fix it)")
    directory = os.path.dirname(real)
    if original is not None:
        with open(real, "rb") as handle:
            if handle.read() != original:
                raise NotWritten("the file changed while it was being fixed; run again")
    if directory not in _cleaned:
        _cleaned.add(directory)
        remove_stale_temporaries(directory)
    if info.st_nlink > 1:
        with open(real, "r+b") as handle:
            handle.truncate(0)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{_TMP_PREFIX}{os.getpid()}-", suffix=_TMP_SUFFIX,
                                   dir=directory)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot create a file in {directory or '.'}: "
                                 f"{exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(info.st_mode))
        if hasattr(os, "chown"):
            try:
                os.chown(tmp, info.st_uid, info.st_gid)
            except OSError:
                pass
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def remove_stale_temporaries(directory: str) -> List[str]:
    """Remove ``.torch04-PID-*.tmp`` files whose process no longer runs (left by a
    torch04 killed mid-write); the names removed."""
    removed = []
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(_TMP_PREFIX) and name.endswith(_TMP_SUFFIX)):
            continue
        pid = name[len(_TMP_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        try:
            os.unlink(os.path.join(directory, name))
            removed.append(name)
        except OSError:
            pass
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (it exists, owned by someone else)
        return True
    return True
