"""Jupyter notebooks: their code cells as one Python text, and back.

The code cells of a notebook share one namespace, so imports made in one cell
resolve names in the next: the cells are checked as one text, each cell
opened by a marker comment line (``# torch04-cell N``, N counting every cell
of the notebook from 1, markdown included).  IPython syntax is masked before
parsing: a line that starts a statement with ``%``, ``!`` or ``?``, ends in
``?``/``??``, or assigns from ``%``/``!`` (``files = !ls``) becomes ``pass``
with the same indentation, and a cell opened by a cell magic (``%%time``,
``%%bash``) is left out.  Marker and masked lines are *locked*: a fix that
would touch one is not applied, so magics are never modified.

Writing back changes only the ``source`` of the cells that changed, keeping
each one's form (a list of lines or one string); the JSON is re-serialized
with the indentation, key order and ``ensure_ascii`` setting that reproduce the
original file, outputs included.
"""
from __future__ import annotations

import bisect
import copy
import io
import json
import re
import tokenize
from typing import Dict, List, Optional, Tuple

from ._source import lines_of

MARKER = "# torch04-cell {}\n"
_MARKER_LINE = re.compile(r"^# torch04-cell (\d+)\r?\n", re.M)
_MASKED_LINE = re.compile(r"^[ \t]*pass  # torch04-magic (\d+)$", re.M)
#: lines of the checked text that fixes must not touch
LOCKED = re.compile(r"# torch04-cell \d+\r?\n|[ \t]*pass  # torch04-magic \d+\r?$")
_MAGIC = re.compile(
    r"[ \t]*(?:[%!?]|[\w.]+\?\??[ \t]*$|[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*[%!])"
)


class NotebookError(ValueError):
    """The file is not a notebook this can read."""


def _continues(text: str) -> bool:
    """Whether the end of ``text`` is inside a bracket, a string or a continuation."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO(text).readline):
            pass
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return True
    return text.rstrip("\r\n").endswith("\\")


def _json_format(raw: str, data: object) -> Tuple[Optional[object], bool]:
    """The ``json.dumps`` settings that reproduce ``raw``; a guess when none does."""
    body = raw[:-1] if raw.endswith("\n") else raw
    for indent in (1, 2, 4, None, "\t", 3):
        for ensure_ascii in (False, True):
            if json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) == body:
                return indent, ensure_ascii
    match = re.search(r"\n( +)\S", raw)
    return (len(match.group(1)) if match else 1), False


class Notebook:
    """A notebook's code cells as :attr:`text`, and the notebook with a new text."""

    def __init__(self, raw: str) -> None:
        self.raw = raw.replace("\r\n", "\n")
        self.crlf = "\r\n" in raw
        try:
            self.data = json.loads(self.raw)
        except json.JSONDecodeError as exc:
            raise NotebookError(f"invalid notebook JSON: {exc}") from None
        cells = self.data.get("cells") if isinstance(self.data, dict) else None
        if not isinstance(cells, list):
            raise NotebookError("not an nbformat 4 notebook (no list of cells)")
        self.cells = cells
        self.indent, self.ensure_ascii = _json_format(self.raw, self.data)
        self.python = self._is_python()
        self.magics: List[str] = []
        self.sources: Dict[int, str] = {}  # cell number -> original source text
        self.skipped: List[str] = []  # cells opened by a cell magic
        parts = []
        for number, cell in enumerate(cells, 1):
            text = self._source(cell)
            if text is None:
                continue
            if text.lstrip().startswith("%%"):
                self.skipped.append(text)
                continue
            self.sources[number] = text
            parts.append(MARKER.format(number) + self._mask(text))
        self.text = "".join(parts)

    def _is_python(self) -> bool:
        meta = self.data.get("metadata") or {}
        language = (meta.get("kernelspec") or {}).get("language") or (
            meta.get("language_info") or {}).get("name")
        return not isinstance(language, str) or language.lower() == "python"

    @staticmethod
    def _source(cell: object) -> Optional[str]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            return None
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            return "".join(source)
        return source if isinstance(source, str) else None

    def _mask(self, text: str) -> str:
        out: List[str] = []
        for line in lines_of(text):
            body = line.rstrip("\r\n")
            if _MAGIC.match(body) and not _continues("".join(out)):
                indent = body[: len(body) - len(body.lstrip(" \t"))]
                out.append(f"{indent}pass  # torch04-magic {len(self.magics)}\n")
                self.magics.append(body)
            else:
                out.append(line)
        masked = "".join(out)
        if masked and not masked.endswith(("\n", "\r")):
            masked += "\n"
        return masked

    @property
    def hidden(self) -> str:
        """The code that is not checked: magic lines and cells opened by a cell magic."""
        return "\n".join(self.magics + self.skipped)

    def locator(self, text: str) -> "Locator":
        return Locator(text)

    # -- back to JSON -----------------------------------------------------
    def cell_sources(self, text: str) -> Dict[int, str]:
        """Cell number -> source text, for the code cells in ``text``."""
        pieces = _MARKER_LINE.split(text)
        sources = {}
        for number, body in zip(pieces[1::2], pieces[2::2]):
            number = int(number)
            body = _MASKED_LINE.sub(lambda m: self.magics[int(m.group(1))], body)
            original = self.sources.get(number, "")
            if not original.endswith(("\n", "\r")) and body.endswith("\n"):
                body = body[:-2] if body.endswith("\r\n") else body[:-1]
            sources[number] = body
        return sources

    def changed_cells(self, text: str) -> Dict[int, Tuple[str, str]]:
        """Cell number -> (old source, new source) for the cells ``text`` changes."""
        if text == self.text:
            return {}
        return {
            n: (self.sources[n], new) for n, new in self.cell_sources(text).items()
            if n in self.sources and new != self.sources[n]
        }

    def render(self, text: str) -> str:
        """The notebook file with the code cells of ``text``."""
        changed = self.changed_cells(text)
        if not changed:
            return self.raw.replace("\n", "\r\n") if self.crlf else self.raw
        data = copy.deepcopy(self.data)
        for number, (_, new) in changed.items():
            cell = data["cells"][number - 1]
            cell["source"] = new.splitlines(True) if isinstance(cell["source"], list) else new
        out = json.dumps(data, indent=self.indent, ensure_ascii=self.ensure_ascii)
        if self.raw.endswith("\n"):
            out += "\n"
        return out.replace("\n", "\r\n") if self.crlf else out


class Locator:
    """Maps lines of the checked text to (cell number, line in the cell)."""

    def __init__(self, text: str) -> None:
        self.starts: List[int] = []  # line numbers of the markers
        self.cells: List[int] = []
        for number, line in enumerate(lines_of(text), 1):
            match = _MARKER_LINE.match(line)
            if match:
                self.starts.append(number)
                self.cells.append(int(match.group(1)))

    def __call__(self, line: int) -> Tuple[int, int]:
        i = bisect.bisect_right(self.starts, line) - 1
        if i < 0:
            return 0, line
        return self.cells[i], line - self.starts[i]
