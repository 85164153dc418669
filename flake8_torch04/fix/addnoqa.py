"""``--add-noqa``: a ``# noqa: TVnnn`` comment for every finding that remains, where
flake8 (and so ``torch04``) reads it.

flake8 searches for ``# noqa`` in the run of lines between two NEWLINE/NL tokens that
holds the finding (see ``_noqa``).  A comment can only end the last line of that run:
in a multi-line string or after a backslash continuation, the finding's own line cannot
hold one.  So the comment goes at the end of the run's last line:

- no comment there: ``  # noqa: TV001`` is appended;
- a ``# noqa: E501`` there: the code is merged into it (``# noqa: E501, TV001``);
- another comment: ``  # noqa: TV001`` is appended after it (flake8 finds it anywhere).

The result is checked again: a finding whose comment still does not suppress it
(a ``# noqa`` inside a string earlier in the run, which flake8 finds first) is
reported and left alone.
"""
from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from typing import Dict, List, Optional, Pattern, Sequence, Tuple

from ..analysis.findings import Finding
from ..config.noqa import NOQA_INLINE
from ..source.text import lines_of


def _runs(lines: Sequence[str]) -> Dict[int, Tuple[int, Optional[int]]]:
    """Line -> (the last line of its run, the column of that line's comment or None)."""
    mapping: Dict[int, Tuple[int, Optional[int]]] = {}
    readline = io.StringIO("".join(line.rstrip("\r\n") + "\n" for line in lines)).readline
    first, last = len(lines) + 2, -1
    comment: Optional[Tuple[int, int]] = None
    try:
        for tok in tokenize.generate_tokens(readline):
            if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            if tok.type == tokenize.COMMENT:
                comment = tok.start
            first = min(first, tok.start[0])
            last = max(last, tok.end[0])
            if tok.type in (tokenize.NL, tokenize.NEWLINE):
                col = comment[1] if comment is not None and comment[0] == last else None
                for line in range(first, last + 1):
                    mapping[line] = (last, col)
                first, last, comment = len(lines) + 2, -1, None
    except (tokenize.TokenError, SyntaxError):
        pass
    return mapping


def add_noqa(text: str, findings: Sequence[Finding],
             locked: Optional[Pattern[str]] = None) -> Tuple[str, Counter]:
    """``text`` with a ``# noqa`` for each finding, and the codes added, by code."""
    lines = lines_of(text)
    runs = _runs(lines)
    wanted: Dict[int, List[str]] = {}
    for f in findings:
        target, _ = runs.get(f.line, (f.line, None))
        if not 0 < target <= len(lines):
            continue
        if locked is not None and locked.match(lines[target - 1]):
            continue  # (a notebook's magic line)
        codes = wanted.setdefault(target, [])
        if f.code not in codes:
            codes.append(f.code)
    added: Counter = Counter()
    for target, codes in wanted.items():
        line = lines[target - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        _, col = runs.get(target, (target, None))
        comment = body[col:] if col is not None else ""
        match = NOQA_INLINE.search(comment) if comment else None
        if match is not None and match.group("codes") is None:
            continue  # a bare ``# noqa`` already covers every code
        if match is not None:
            listed = [c for c in re.split(r"[,\s]+", match.group("codes")) if c]
            new = [c for c in codes if c not in listed and not c.startswith(tuple(listed))]
            if not new:
                continue
            start, end = col + match.start(), col + match.end()
            rest = body[end:]
            merged = f"# noqa: {', '.join(listed + new)}" + (" " if rest[:1] not in ("", " ")
                                                             else "")
            body = body[:start] + merged + rest
        else:
            new = codes
            body = body.rstrip() + "  # noqa: " + ", ".join(new)
        lines[target - 1] = body + ending
        added.update(new)
    return "".join(lines), added


def remove_noqa(text: str, prefixes: Sequence[str]) -> Tuple[str, Counter]:
    """``text`` without the codes matching ``prefixes`` in its ``# noqa: ...`` comments
    (a comment left without codes is removed whole; a bare ``# noqa`` is kept), and
    the codes removed, by code.  The inverse of :func:`add_noqa`, one rule at a time."""
    lines = lines_of(text)
    readline = io.StringIO("".join(line.rstrip("\r\n") + "\n" for line in lines)).readline
    comments: List[Tuple[int, int]] = []
    try:
        for tok in tokenize.generate_tokens(readline):
            if tok.type == tokenize.COMMENT:
                comments.append(tok.start)
    except (tokenize.TokenError, SyntaxError):
        return text, Counter()
    removed: Counter = Counter()
    for line_no, col in comments:
        line = lines[line_no - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        match = NOQA_INLINE.search(body, col)
        if match is None or match.group("codes") is None:
            continue
        listed = [c for c in re.split(r"[,\s]+", match.group("codes")) if c]
        kept = [c for c in listed if not c.startswith(tuple(prefixes))]
        if len(kept) == len(listed):
            continue
        removed.update(c for c in listed if c not in kept)
        start, end = match.start(), match.end()
        rest = body[end:]
        if kept:
            new = body[:start] + f"# noqa: {', '.join(kept)}" + (
                " " if rest[:1] not in ("", " ") else "") + rest
        elif rest.strip():
            new = body[:start] + rest.lstrip()  # (other comment text stays a comment)
            if not new[start:].startswith("#"):
                new = body[:start] + "# " + rest.lstrip()
        else:
            new = body[:start].rstrip()
        lines[line_no - 1] = new + ending
    return "".join(lines), removed
