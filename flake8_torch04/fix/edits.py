"""Edits as text spans: positions, overlaps, and applying them back to front."""
from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Tuple

from ..source.parse import NEWLINE, dominant_newline
from ..source.text import Edit, lines_of


def touched_lines(edit: Edit) -> range:
    """Lines an edit changes; an edit ending at column 0 leaves its last line alone."""
    (l1, _), (l2, c2) = edit.start, edit.end
    if l2 > l1 and c2 == 0:
        l2 -= 1
    return range(l1, l2 + 1)


# ---------------------------------------------------------------------------
# edits


class BadEdit(ValueError):
    """Edits that do not fit the text: out of range, reversed, or overlapping."""


def _offsets(lines: Sequence[str]) -> List[int]:
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def _offset(lines: Sequence[str], starts: Sequence[int], pos: Tuple[int, int]) -> int:
    line, col = pos
    if line == len(lines) + 1 and col == 0:
        return starts[-1]
    if not 0 < line <= len(lines) or col < 0:
        raise BadEdit(f"position {pos} is outside the text")
    text = lines[line - 1]
    content = len(text.rstrip("\r\n"))
    if col <= content:
        return starts[line - 1] + col
    if col == content + 1 and content < len(text):
        return starts[line]  # just past the line ending, as rules count it
    raise BadEdit(f"position {pos} is outside the text")


class Positions:
    """Line starts of one text, computed once for every edit into it."""

    __slots__ = ("text", "lines", "starts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = lines_of(text)
        self.starts = _offsets(self.lines)


def edit_spans(text: str, edits: Iterable[Edit],
               positions: Optional[Positions] = None) -> List[Tuple[int, int, str]]:
    """``(start, end, replacement)`` character offsets of edits into ``text``."""
    if positions is None or positions.text is not text:
        positions = Positions(text)
    lines, starts = positions.lines, positions.starts
    spans = []
    for edit in edits:
        start, end = _offset(lines, starts, edit.start), _offset(lines, starts, edit.end)
        if end < start:
            raise BadEdit(f"edit ends before it starts: {edit}")
        spans.append((start, end, edit.text))
    return spans


def overlaps(a: Tuple[int, int, str], b: Tuple[int, int, str]) -> bool:
    """Spans conflict when they share a character or insert at the same place."""
    return (a[0] < b[1] and b[0] < a[1]) or a[0] == b[0]


def apply_spans(text: str, spans: Sequence[Tuple[int, int, str]], newline: str = "\n") -> str:
    """Apply non-overlapping spans back to front; inserted newlines become ``newline``."""
    # (pieces joined once: splicing each span into the whole text is quadratic)
    pieces = []
    position = len(text)
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        if newline != "\n":
            new = NEWLINE.sub(newline, new)
        pieces.append(text[min(end, position):position])
        pieces.append(new)
        position = min(start, position)
    pieces.append(text[:position])
    return "".join(reversed(pieces))


def apply_edits(text: str, edits: Iterable[Edit], newline: Optional[str] = None) -> str:
    """Apply edits given in ``text``'s coordinates (they must not overlap)."""
    spans = edit_spans(text, edits)
    ordered = sorted(spans, key=lambda s: (s[0], s[1]))
    for a, b in zip(ordered, ordered[1:]):
        if overlaps(a, b):
            raise BadEdit("overlapping edits")
    return apply_spans(text, spans, newline or dominant_newline(text))
