"""A document: a file's bytes as text and back (encodings, notebooks), written atomically."""
from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

if TYPE_CHECKING:  # pragma: no cover
    from .notebook import Notebook


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
            from .notebook import Notebook, NotebookError

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
        if data.startswith(b"\xef\xbb\xbf"):  # (detect_encoding says "utf-8" alone)
            for line in data[3:].splitlines()[:2]:
                match = re.match(_COOKIE.encode(), line)
                if match:
                    name = match.group(1).decode("ascii", "replace")
                    return f"encoding problem: {name} with BOM (the BOM says UTF-8)"
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
      place instead, so that its other names see the fix too, as black and Ruff
      do; that write is not atomic, but it starts only once the whole new
      content was written to a temporary file (on a full disk the file is left
      as it was), and a failed write puts the old bytes back.
    - A symlink named on the command line has its target written.
    - ``original``: the bytes the fix was computed from.  When the file no
      longer holds them (an editor saved it meanwhile) it is not written; this
      is compared again just before the rename.
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
    _unchanged(real, original)
    if directory not in _cleaned:
        _cleaned.add(directory)
        remove_stale_temporaries(directory)
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{_TMP_PREFIX}{os.getpid()}-", suffix=_TMP_SUFFIX,
                                   dir=directory)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot create a file in {directory or '.'}: "
                                 f"{exc.strerror or exc}") from None
    try:
        # the whole new content first goes to the temporary file: on a full disk
        # this fails and the file is untouched (a hard-linked one too)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if info.st_nlink > 1:
            os.unlink(tmp)  # (its room is the room the new content needs)
            _rewrite_in_place(real, data, original)
            return
        os.chmod(tmp, stat.S_IMODE(info.st_mode))
        if hasattr(os, "chown"):
            try:
                os.chown(tmp, info.st_uid, info.st_gid)
            except OSError:
                pass
        _unchanged(real, original)  # (as late as possible: an editor may have saved)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _unchanged(real: str, original: Optional[bytes]) -> None:
    """Raise :class:`NotWritten` when the file no longer holds ``original``."""
    if original is not None:
        with open(real, "rb") as handle:
            if handle.read() != original:
                raise NotWritten("the file changed while it was being fixed; run again")


def _rewrite_in_place(real: str, data: bytes, original: Optional[bytes]) -> None:
    """Write a hard-linked file in place (its other names see the fix), and put
    its bytes back when the write fails."""
    with open(real, "r+b") as handle:
        current = handle.read()
        if original is not None and current != original:
            raise NotWritten("the file changed while it was being fixed; run again")
        try:
            handle.seek(0)
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        except OSError:
            handle.seek(0)
            handle.write(current)
            handle.truncate()
            handle.flush()
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
