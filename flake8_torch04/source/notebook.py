"""Jupyter notebooks: their code cells as one Python text, and back.

The code cells of a notebook share one namespace, so imports made in one cell
resolve names in the next: the cells are checked as one text, each cell
opened by a marker comment line (``# torch04-cell N``, N counting every cell
of the notebook from 1, markdown included).  IPython syntax is masked before
parsing: a line that starts a statement with ``%``, ``!`` or ``?``, ends in
``?``/``??``, or assigns from ``%``/``!`` (``files = !ls``) becomes ``pass``
with the same indentation and line ending, and a cell opened by a cell magic
(``%%time``, ``%%bash``) is left out.  Marker and masked lines are *locked*: a fix that
would touch one is not applied, so magics are never modified.

The markers cannot be forged: their tag (``torch04`` by default) is chosen so
that it occurs in no cell of the notebook (``torch04.1``, ``torch04.2``, ...
when a cell already holds ``torch04-cell`` or ``torch04-magic``), so a line a
user wrote is never taken for a cell boundary or a masked magic.

A cell keeps its own line endings (``\\n``, ``\\r\\n``, CR-only ``\\r`` or mixed): the
checked text holds them as they are (the parser reads them all), lines are told
apart where Python breaks them, and a line a fix adds to a cell whose lines all
end alike takes that ending.  A cell whose fixed text cannot be mapped back
exactly (its magic lines are not all there, in order) is left as it was, with a
note (:meth:`Notebook.keep_mapped`); cells are never merged.

Writing back replaces only the ``source`` values of the cells that changed,
in the file's own bytes: every other byte (outputs, metadata, the other cells,
number formats, escapes, indentation) stays as it was.  A changed source keeps
its form (a list of lines or one string) and the layout of the original list.
"""
from __future__ import annotations

import bisect
import io
import json
import re
import tokenize
from typing import Dict, List, Optional, Pattern, Sequence, Tuple

from .text import lines_of

_ENDING = re.compile(r"\r\n|\r|\n")
_MAGIC = re.compile(
    r"[ \t]*(?:[%!?]|[\w.]+\?\??[ \t]*$|[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*[%!])"
)


class NotebookError(ValueError):
    """The file is not a notebook this can read."""


def _continues(text: str) -> bool:
    """Whether the end of ``text`` is inside a bracket, a string or a continuation."""
    if "\r" in text:  # (``StringIO.readline`` ends lines at ``\n`` only)
        text = _ENDING.sub("\n", text)
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
        #: the file as it is (its lines may end in LF or CRLF, even both)
        self.original = raw
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
        self._masked: Dict[int, str] = {}  # cell number -> its text as checked
        self._cell_magics: Dict[int, List[int]] = {}  # cell number -> its magics' numbers
        sources = {n: self._source(cell) for n, cell in enumerate(cells, 1)}
        self.tag = _free_tag("".join(s for s in sources.values() if s is not None))
        tag = re.escape(self.tag)
        self._marker_line = re.compile(rf"# {tag}-cell (\d+)\n")  # (a whole line)
        self._masked_line = re.compile(rf"[ \t]*pass  # {tag}-magic (\d+)(\r\n|\r|\n)?")
        #: lines of the checked text that fixes must not touch
        self.locked: Pattern[str] = re.compile(
            rf"# {tag}-cell \d+\r?\n|[ \t]*pass  # {tag}-magic \d+\r?$")
        parts = []
        for number, text in sources.items():
            if text is None:
                continue
            if text.lstrip().startswith("%%"):
                self.skipped.append(text)
                continue
            self.sources[number] = text
            first = len(self.magics)
            self._masked[number] = self._mask(text)
            self._cell_magics[number] = list(range(first, len(self.magics)))
            parts.append(self._marker(number) + self._masked[number])
        self.text = "".join(parts)

    def _marker(self, number: int) -> str:
        return f"# {self.tag}-cell {number}\n"

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
                ending = line[len(body):]
                out.append(f"{indent}pass  # {self.tag}-magic {len(self.magics)}{ending}")
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
        return Locator(text, self._marker_line)

    # -- back to JSON -----------------------------------------------------
    def _cells(self, text: str) -> Optional[List[Tuple[int, List[str]]]]:
        """``(cell number, its lines)`` in ``text``; ``None`` when the markers are
        not those of the checked text, in its order (nothing can be mapped back)."""
        cells: List[Tuple[int, List[str]]] = []
        for line in lines_of(text):
            match = self._marker_line.fullmatch(line)
            if match is not None:
                cells.append((int(match.group(1)), []))
            elif not cells:
                return None
            else:
                cells[-1][1].append(line)
        if [number for number, _ in cells] != list(self.sources):
            return None
        return cells

    def _cell_source(self, number: int, lines: Sequence[str]) -> Optional[str]:
        """The source of cell ``number`` from its lines in a checked text; ``None``
        when it cannot be mapped back exactly (its magic lines are not all there)."""
        masked = [self._masked_line.fullmatch(line) for line in lines]
        if [int(m.group(1)) for m in masked if m] != self._cell_magics[number]:
            return None
        body = "".join(line if m is None else self.magics[int(m.group(1))] + (m.group(2) or "")
                       for line, m in zip(lines, masked))
        original = self.sources[number]
        if not original.endswith(("\n", "\r")):  # (the line ending ``_mask`` added)
            ending = _ENDING.search(body[-2:])
            if ending is not None and ending.end() == len(body[-2:]):
                body = body[:len(body) - len(ending.group())]
        endings = set(_ENDING.findall(original))
        if len(endings) == 1:  # a line a fix added takes the cell's one line ending
            ending = endings.pop()
            if ending != "\n" or "\r" in body:
                body = _ENDING.sub(ending, body)
        return body

    def keep_mapped(self, text: str) -> Tuple[str, Tuple[str, ...]]:
        """``text`` with each cell that cannot be mapped back exactly as it was
        checked, and a note for each: such a cell is never written."""
        cells = self._cells(text)
        if cells is None:
            return self.text, ("the fixed code could not be mapped back to the notebook's "
                               "cells: nothing was changed",)
        parts, notes = [], []
        for number, lines in cells:
            if self._cell_source(number, lines) is None:
                notes.append(f"cell {number} was not changed: its fixed code could not be "
                             f"mapped back to the cell exactly")
                parts.append(self._marker(number) + self._masked[number])
            else:
                parts.append(self._marker(number) + "".join(lines))
        return "".join(parts), tuple(notes)

    def cell_sources(self, text: str) -> Dict[int, str]:
        """Cell number -> source text, for the code cells in ``text`` (a cell that
        cannot be mapped back keeps its original source)."""
        cells = self._cells(text)
        if cells is None:
            return dict(self.sources)
        sources = {}
        for number, lines in cells:
            source = self._cell_source(number, lines)
            sources[number] = self.sources[number] if source is None else source
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
        """The notebook file with the code cells of ``text``: only the ``source``
        values of the changed cells are rewritten, in place."""
        changed = self.changed_cells(text)
        out, original = self.raw, self.original
        if changed:
            spans = _source_spans(self.raw)
            at = _original_offsets(self.original)
            for number in sorted(changed, reverse=True):
                start, end = spans[number]
                value = _format_source(changed[number][1], out[start:end], out,
                                       start, self.indent, self.ensure_ascii)
                out = out[:start] + value + out[end:]
                first, last = at(start), at(end)
                original = (original[:first] + _with_endings(value, original, first, last)
                            + original[last:])
        return original


def _original_offsets(original: str):
    """The offset in ``original`` of an offset in it with its CRLFs made LF (a
    CR LF stands between JSON's tokens only: a string cannot hold one)."""
    crlf: List[int] = []  # the offsets, with CRLFs made LF, of the LFs that were CRLF
    find = original.find("\r\n")
    while find >= 0:
        crlf.append(find - len(crlf))
        find = original.find("\r\n", find + 2)
    return lambda offset: offset + bisect.bisect_left(crlf, offset)


def _with_endings(value: str, original: str, start: int, end: int) -> str:
    """``value`` (its lines end in LF) in place of ``original[start:end]``: its
    lines end as that span's lines did, one by one; a line more ends as the
    span's last line, or as the line the span is on."""
    endings = re.findall(r"\r?\n", original[start:end])
    if not endings:
        line_end = original.find("\n", end)
        endings = ["\r\n" if line_end > 0 and original[line_end - 1] == "\r" else "\n"]
    lines = value.split("\n")
    return lines[0] + "".join(endings[min(i, len(endings) - 1)] + line
                              for i, line in enumerate(lines[1:]))


def _free_tag(sources: str) -> str:
    """A marker tag that occurs in no cell: ``torch04``, else ``torch04.N``."""
    tag, n = "torch04", 0
    while f"{tag}-cell" in sources or f"{tag}-magic" in sources:
        n += 1
        tag = f"torch04.{n}"
    return tag


# -- the file's own bytes ---------------------------------------------------
_WS = " \t\n\r"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _skip(raw: str, i: int) -> int:
    while i < len(raw) and raw[i] in _WS:
        i += 1
    return i


def _value_end(raw: str, i: int) -> int:
    """The end of the JSON value that starts at ``raw[i]``."""
    if raw[i] == '"':
        return _STRING.match(raw, i).end()
    if raw[i] in "[{":
        depth = 0
        while True:
            c = raw[i]
            if c == '"':
                i = _STRING.match(raw, i).end()
                continue
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
    j = i
    while j < len(raw) and raw[j] not in ",]}" + _WS:
        j += 1
    return j


def _members(raw: str, i: int):
    """``(key, value start, value end)`` of the object at ``raw[i]``."""
    i = _skip(raw, i + 1)
    while raw[i] != "}":
        key_end = _value_end(raw, i)
        key = json.loads(raw[i:key_end])
        start = _skip(raw, _skip(raw, key_end) + 1)  # past the ':'
        end = _value_end(raw, start)
        yield key, start, end
        i = _skip(raw, end)
        if raw[i] == ",":
            i = _skip(raw, i + 1)


def _elements(raw: str, i: int):
    """``(start, end)`` of each value of the array at ``raw[i]``."""
    i = _skip(raw, i + 1)
    while raw[i] != "]":
        end = _value_end(raw, i)
        yield i, end
        i = _skip(raw, end)
        if raw[i] == ",":
            i = _skip(raw, i + 1)


def _source_spans(raw: str) -> Dict[int, Tuple[int, int]]:
    """Cell number -> where its ``source`` value stands in ``raw``."""
    spans = {}
    for key, start, _ in _members(raw, _skip(raw, 0)):
        if key != "cells":
            continue
        for number, (cell_start, _) in enumerate(_elements(raw, start), 1):
            if raw[cell_start] != "{":
                continue
            for name, value_start, value_end in _members(raw, cell_start):
                if name == "source":
                    spans[number] = (value_start, value_end)
    return spans


def _format_source(source: str, old: str, raw: str, at: int, indent: object,
                   ensure_ascii: bool) -> str:
    """``source`` as JSON in the form and layout of the value ``old`` it replaces."""
    if not old.startswith("["):
        return json.dumps(source, ensure_ascii=ensure_ascii)
    items = [json.dumps(line, ensure_ascii=ensure_ascii)
             for line in _split_like(source, json.loads(old))]
    if not items:
        return "[]"
    first = re.match(r"\[(\s*)", old).group(1)
    last = re.search(r"(\s*)\]\Z", old).group(1)
    if old.strip("[] \t\r\n") == "":  # an empty list: lay it out as json.dumps would
        line_start = raw.rfind("\n", 0, at) + 1
        base = re.match(r"[ \t]*", raw[line_start:]).group(0)
        step = "\t" if indent == "\t" else " " * indent if isinstance(indent, int) else ""
        if step:
            first, last = "\n" + base + step, "\n" + base
        else:
            first, last = "", ""
    separator = "," + (first if "\n" in first else " ")
    start = len("[" + first)
    if old[start:start + 1] == '"':  # the original's own separator, when it has two items
        end = _value_end(old, start)
        following = _skip(old, end + 1)
        if old[end:end + 1] == "," and old[following:following + 1] == '"':
            separator = old[end:following]
    return "[" + first + separator.join(items) + last + "]"


def _split_like(source: str, old: object) -> List[str]:
    """``source`` as a list of lines, broken as the list ``old`` was: at ``\\n``
    only (as Jupyter writes), at every line ending, or as ``str.splitlines``."""
    joined = "".join(old) if isinstance(old, list) else ""
    for split in (_split_at_newline, lines_of):
        if split(joined) == old:
            return split(source)
    return source.splitlines(True)


def _split_at_newline(text: str) -> List[str]:
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


class Locator:
    """Maps lines of the checked text to (cell number, line in the cell)."""

    def __init__(self, text: str, marker: Pattern[str]) -> None:
        self.starts: List[int] = []  # line numbers of the markers
        self.cells: List[int] = []
        for number, line in enumerate(lines_of(text), 1):
            match = marker.fullmatch(line)
            if match:
                self.starts.append(number)
                self.cells.append(int(match.group(1)))

    def marker(self, line: int) -> bool:
        """Whether ``line`` is a cell's marker line."""
        i = bisect.bisect_left(self.starts, line)
        return i < len(self.starts) and self.starts[i] == line

    def __call__(self, line: int) -> Tuple[int, int]:
        """A marker's line is no line of a cell: what Python reports there (a
        backslash that ends a cell continues into the next cell's marker) is
        placed on the last line of the cell before (of the first cell: its first)."""
        i = bisect.bisect_right(self.starts, line) - 1
        if i < 0:
            return 0, line
        if line == self.starts[i]:
            while i > 0 and self.starts[i - 1] == self.starts[i] - 1:  # (an empty cell)
                i -= 1
            if i == 0:
                return self.cells[0], 1
            return self.cells[i - 1], self.starts[i] - 1 - self.starts[i - 1]
        return self.cells[i], line - self.starts[i]
