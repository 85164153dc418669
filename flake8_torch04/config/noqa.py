"""``# noqa`` comments, read exactly as flake8 reads them.

flake8 (``defaults.NOQA_INLINE_REGEXP``, ``violation.is_inline_ignored``,
``processor._noqa_line_mapping``) decides like this, and so does ``torch04``:

- The comment is found with ``regex.search``, so it may stand anywhere in the
  text searched, even inside a string.  ``noqa`` is matched case-insensitively
  and must follow ``# `` exactly (``#noqa`` is no noqa).
- ``# noqa`` without codes, or with a code list the pattern cannot read
  (``# noqa: TV``, ``# noqa:  TV001`` with two spaces), suppresses every code.
- ``# noqa: TV001,TV002`` suppresses a code equal to a listed code or starting
  with one (``# noqa: TV0`` suppresses all of TV0xx).  The comparison is
  case-sensitive, as in flake8: ``# noqa: tv001`` suppresses nothing.
- The text searched for a finding on line N is not only line N: it is every
  line of the run of tokens between two NEWLINE/NL tokens that contains N.  A
  multi-line string or a backslash continuation makes its lines one unit, so a
  ``# noqa`` after a closing triple quote covers every line of the string.
  Lines inside brackets are separate (NL tokens split them).
- A line ``# flake8: noqa`` on its own exempts the whole file.
"""
from __future__ import annotations

import re
from typing import Dict, Optional, Sequence, Tuple

#: ``NOQA_INLINE``, ``NOQA_FILE`` and ``_CODE_SEPARATOR``, compiled at their first use
#: (see :func:`__getattr__`): most files say no ``noqa``, and a process that
#: checks a few of them need not compile ``NOQA_INLINE`` (half a millisecond)
_PATTERNS = {
    "NOQA_INLINE": (r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE),
    "NOQA_FILE": (r"\s*# flake8[:=]\s*noqa", re.IGNORECASE),
    "_CODE_SEPARATOR": (r"[,\s]", 0),
}


def __getattr__(name: str) -> "re.Pattern[str]":
    """The patterns of :data:`_PATTERNS`, compiled once, as module attributes."""
    try:
        pattern, flags = _PATTERNS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    compiled = globals()[name] = re.compile(pattern, flags)
    return compiled


def _regex(name: str) -> "re.Pattern[str]":
    """A pattern of :data:`_PATTERNS` (or what replaced the attribute, as a test may)."""
    found = globals().get(name)
    return found if found is not None else __getattr__(name)


def file_is_exempt(lines: Sequence[str]) -> bool:
    """Whether a ``# flake8: noqa`` line exempts the whole file."""
    match = _regex("NOQA_FILE").match
    return any(match(line) for line in lines)


#: what :func:`noqa_codes` returns for a ``# noqa`` that suppresses every code
ALL = ("",)


def noqa_codes(text: Optional[str]) -> Optional[Tuple[str, ...]]:
    """The codes a ``# noqa`` comment in ``text`` lists (:data:`ALL` for every
    code), or ``None`` when it has none."""
    if not text:
        return None
    match = _regex("NOQA_INLINE").search(text)
    if match is None:
        return None
    codes = match.group("codes")
    if codes is None:
        return ALL
    return tuple(c.strip() for c in _regex("_CODE_SEPARATOR").split(codes) if c.strip())


def _listed(codes: Optional[Tuple[str, ...]], code: str) -> bool:
    return codes is not None and (code in codes or code.startswith(codes))


def suppresses(text: Optional[str], code: str) -> bool:
    """Whether a ``# noqa`` comment in ``text`` suppresses ``code``."""
    return _listed(noqa_codes(text), code)


def line_mapping(lines: Sequence[str]) -> Dict[int, str]:
    """Line number -> the text flake8 searches for ``# noqa`` for that line."""
    import io
    import tokenize  # (only for files that say ``noqa``)

    mapping: Dict[int, str] = {}
    readline = io.StringIO("".join(lines)).readline
    first, last = len(lines) + 2, -1
    try:
        for tok in tokenize.generate_tokens(readline):
            if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first = min(first, tok.start[0])
            last = max(last, tok.end[0])
            if tok.type in (tokenize.NL, tokenize.NEWLINE):
                joined = "".join(lines[first - 1:last])
                mapping.update(dict.fromkeys(range(first, last + 1), joined))
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError):
        return {}
    return mapping


_UNREAD = object()


class Noqa:
    """The ``# noqa`` comments of one file."""

    def __init__(self, lines: Sequence[str], text: Optional[str] = None) -> None:
        """``text``: the lines joined, when the caller has it."""
        self.lines = lines
        #: no line can hold a ``# noqa`` (the common case: skip the per-line work)
        self.none = "noqa" not in ("".join(lines) if text is None else text).lower()
        self.exempt = not self.none and file_is_exempt(lines)
        self._mapping: Optional[Dict[int, str]] = None
        self._codes: Dict[int, object] = {}  # line -> :func:`noqa_codes` of its text

    def text_for(self, line: int) -> Optional[str]:
        if self._mapping is None:
            self._mapping = {} if self.none else line_mapping(self.lines)
        text = self._mapping.get(line)
        if text is None and 0 < line <= len(self.lines):
            text = self.lines[line - 1]  # flake8 falls back to the physical line
        return text

    def suppresses(self, line: int, code: str) -> bool:
        """Whether line ``line``'s ``# noqa`` suppresses ``code``.  The comment is
        read once per line: a long line with many findings is searched once,
        not once per finding."""
        if self.exempt:
            return True
        if self.none:
            return False
        codes = self._codes.get(line, _UNREAD)
        if codes is _UNREAD:
            codes = self._codes[line] = noqa_codes(self.text_for(line))
        return _listed(codes, code)
