"""TV101: rescuing a file that does not parse because of ``async=`` keyword arguments.

PyTorch 0.3 code wrote ``x.cuda(async=True)``; ``async`` is a reserved word
since Python 3.7, so such a file is a ``SyntaxError`` and no rule can see its
tree.  :func:`rescue` finds those keywords in the file's *tokens* (the
tokenizer still reads ``async`` as a name): ``async`` directly after the
``(`` or ``,`` of a call's parentheses and followed by ``=`` (``==`` is one
token, so a comparison never matches).  When the text with each of them
renamed ``non_blocking`` parses, that text is the file as checked: the
TV101 findings are made here, in the original coordinates, and the other
rules' findings are mapped back with :meth:`Rescue.original_col` (only the
lines holding a renamed keyword shift, by 7 characters per keyword before
the column).  Applying the TV101 fixes is exactly the rescued text, so
``--fix`` starts from it.
"""
from __future__ import annotations

import io
import tokenize
from bisect import bisect_right
from typing import Dict, List, Optional, Tuple

from ..source.parse import normalize_newlines
from ..source.text import Edit, lines_of
from .findings import SAFE, Finding, Fix
from .markers import match_offsets, text_imports_torch

OLD, NEW = "async", "non_blocking"
SHIFT = len(NEW) - len(OLD)
MESSAGE = ("`async=` is a syntax error since Python 3.7 (the whole file cannot be parsed); "
           "use `non_blocking=` (PyTorch 0.4's name)")

#: the methods that took ``async=`` in PyTorch 0.3 (``to`` in 0.4, deprecated)
TORCH_METHODS = frozenset(("cuda", "to", "copy_", "type", "_cuda", "_type"))
#: tokens after which ``(`` opens a call's arguments (not a ``def``'s parameters)
_CALLABLE_END = (")", "]")
#: reserved words that a ``(`` may follow without being a call
_NOT_CALLABLE = frozenset((
    "and", "or", "not", "in", "is", "if", "else", "elif", "while", "for", "return", "yield",
    "await", "assert", "del", "lambda", "with", "as", "from", "import", "raise",
    "except", "async", "def", "class", "global", "nonlocal", "pass", "break", "continue",
    "try", "finally", "None", "True", "False",
))


#: tokens that end a string (Python 3.12+ splits f-strings into several tokens)
_STRING_ENDS = (tokenize.STRING, getattr(tokenize, "FSTRING_END", tokenize.STRING))


class Rescue:
    """The keywords found (``(line, column)`` of each ``async``, character columns)
    and the text with them renamed."""

    def __init__(self, text: str, sites: List[Tuple[int, int]]) -> None:
        self.sites = sites
        self.text = _rename(text, sites)
        self._by_line: Dict[int, List[int]] = {}
        for line, col in sites:
            self._by_line.setdefault(line, []).append(col)

    def original_col(self, line: int, col: int) -> int:
        """The column in the original text of column ``col`` of the rescued text."""
        cols = self._by_line.get(line)
        if not cols:
            return col
        # the i-th keyword of the line starts at cols[i] + i * SHIFT in the new text
        starts = [c + i * SHIFT for i, c in enumerate(cols)]
        i = bisect_right(starts, col) - 1
        if i < 0:
            return col
        inside = col - starts[i]
        if inside <= len(NEW):
            return cols[i] + min(inside, len(OLD))  # within (or at the end of) the word
        return col - (i + 1) * SHIFT

    def original(self, finding: Finding) -> Finding:
        """``finding`` (made on the rescued text) in the original coordinates."""
        fix = finding.fix
        if fix is not None:
            fix = fix._replace(edits=tuple(
                Edit(self._pos(e.start), self._pos(e.end), e.text) for e in fix.edits))
        return finding._replace(
            col=self.original_col(finding.line, finding.col),
            end_col=self.original_col(finding.end_line or finding.line, finding.end_col),
            fix=fix,
        )

    def _pos(self, pos: Tuple[int, int]) -> Tuple[int, int]:
        return pos[0], self.original_col(*pos)

    def findings(self) -> List[Finding]:
        """One TV101 finding per keyword, with its fix, in the original coordinates."""
        return [
            Finding("TV101", line, col, MESSAGE,
                    Fix((Edit((line, col), (line, col + len(OLD)), NEW),), SAFE),
                    line, col + len(OLD))
            for line, col in self.sites
        ]


def async_keywords(text: str) -> List[Tuple[int, int]]:
    """Where ``async`` is used as a keyword argument: ``(line, character column)``."""
    return [(line, col) for line, col, _ in _scan(text)]


def works_with_torch(text: str, callees: List[Optional[str]]) -> bool:
    """Whether the ``async=`` keywords of ``text`` are torch's: the file imports
    torch or uses ``Variable`` or ``.backward(`` (as ``Context.uses_torch``),
    or every keyword is given to a method that took it in PyTorch 0.3."""
    return (
        all(name in TORCH_METHODS for name in callees)
        or text_imports_torch(text)
        or ".backward(" in text
        or bool(match_offsets(text, r"(?<![\w.])Variable\b"))
    )


def _scan(text: str) -> List[Tuple[int, int, Optional[str]]]:
    """``(line, column, name of the function called)`` of each ``async=`` keyword."""
    if OLD not in text:
        return []
    sites = []
    #: for each open bracket: ``False`` unless it holds a call's arguments, then
    #: the name called (``""`` when the callee does not end in a name)
    brackets: List[object] = []
    prev: Optional[tokenize.TokenInfo] = None  # the last significant token
    before: Optional[tokenize.TokenInfo] = None  # the one before it
    pending: Optional[Tuple[int, int]] = None  # an ``async`` that may be a keyword
    try:
        for tok in tokenize.generate_tokens(io.StringIO(normalize_newlines(text)).readline):
            kind, string = tok.type, tok.string
            if kind in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT,
                        tokenize.DEDENT):
                continue
            if pending is not None and kind == tokenize.OP and string == "=":
                sites.append((*pending, brackets[-1] or None))
            pending = None
            if kind == tokenize.OP and string in ("(", "[", "{"):
                call = string == "(" and _is_call(prev, before)
                brackets.append(call and (prev.string if prev.type == tokenize.NAME else ""))
            elif kind == tokenize.OP and string in (")", "]", "}"):
                if brackets:
                    brackets.pop()
            elif (string == OLD and kind in (tokenize.NAME, getattr(tokenize, "ASYNC", -1))
                  and brackets and brackets[-1] is not False and prev is not None
                  and prev.type == tokenize.OP and prev.string in ("(", ",")):
                pending = tok.start
            before, prev = prev, tok
    except (tokenize.TokenError, IndentationError, SyntaxError, ValueError):
        return []
    return sites


def _is_call(prev: Optional[tokenize.TokenInfo], before: Optional[tokenize.TokenInfo]) -> bool:
    """Whether a ``(`` after ``prev`` (and ``before`` it) opens a call's arguments."""
    if prev is None:
        return False
    if prev.type == tokenize.OP:
        return prev.string in _CALLABLE_END
    if prev.type in _STRING_ENDS:
        return True  # a string called (nonsense, but a call)
    if prev.type != tokenize.NAME or prev.string in _NOT_CALLABLE:
        return False
    return not (before is not None and before.type == tokenize.NAME
                and before.string in ("def", "class"))


def _rename(text: str, sites: List[Tuple[int, int]]) -> str:
    lines = lines_of(text)
    for line, col in sorted(sites, reverse=True):
        row = lines[line - 1]
        lines[line - 1] = row[:col] + NEW + row[col + len(OLD):]
    return "".join(lines)


def rescue(text: str, parse) -> Optional[Rescue]:
    """The rescue of a ``text`` that failed to parse, or ``None`` when it has no
    ``async=`` or still does not parse with them renamed (``parse`` raises
    ``SyntaxError``), or when nothing shows the keywords are torch's (see
    :func:`works_with_torch`: another library's ``async=`` means something
    else than ``non_blocking=``)."""
    scanned = _scan(text)
    if not scanned or not works_with_torch(text, [name for *_, name in scanned]):
        return None
    found = Rescue(text, [(line, col) for line, col, _ in scanned])
    try:
        parse(found.text)
    except SyntaxError:
        return None
    return found


def rescued_findings(found: Rescue, analysis) -> Tuple[List[Finding], bool]:
    """The findings of a rescued file in its original coordinates (TV101's
    first, unless ``# noqa``), and whether every TV101 fix may be applied (then
    the rescued text is where fixing starts).  ``analysis`` is the
    :class:`~flake8_torch04.fix.analysis.Analysis` of the rescued text."""
    own = [f for f in found.findings()
           if not analysis.noqa.exempt and not analysis.noqa.suppresses(f.line, f.code)]
    fixable = len(own) == len(found.sites) and all(analysis.blocker(f) is None for f in own)
    others = [found.original(f) for f in analysis.findings]
    return sorted(own + others, key=lambda f: (f.line, f.col, f.code)), fixable
