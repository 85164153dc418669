"""One ``with torch.no_grad():`` block for neighbouring statements that the
same round puts under one each.

TV004 fixes one statement at a time: ``v.data.mul_(m)`` becomes
``with torch.no_grad(): v.mul_(m)``.  Three such statements in a row would
become three blocks; a person writes one.  Where a round applies fixes that
each wrap one statement under the same ``no_grad`` header, and the statements
follow each other with nothing between them (no comment, no blank line),
their edits become one edit that opens the block once.  What runs is the same:
``no_grad`` only switches the recording of gradients off and on again, and
nothing runs between the blocks.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..analysis.findings import SAFE, UNSAFE, Finding, Fix
from ..source.text import Edit
from .edits import Positions, edit_spans

#: the header of a block a fix opens around one statement
_HEADER = re.compile(r"with (?:[A-Za-z_][\w.]*\.)?no_grad\(\):(?=\r?\n)")


def join_blocks(text: str, chosen: List[Finding], rejected: Set[tuple],
                key) -> List[Finding]:
    """``chosen`` with the fixes that wrap neighbouring statements under the
    same ``no_grad`` header made one (each of their findings then carries the
    joined fix).  A joined fix that was rejected before is not made again:
    its parts are then applied one by one."""
    wraps = [(i, f) for i, f in enumerate(chosen) if _wrap(f.fix) is not None]
    if len(wraps) < 2:
        return chosen
    positions = Positions(text)
    spans: Dict[int, Tuple[int, int, str]] = {
        id(f.fix): edit_spans(text, f.fix.edits, positions)[0] for _, f in wraps}
    out = list(chosen)
    run: List[int] = []  # indexes into ``out`` of the current run's findings
    joined: Optional[Fix] = None
    end = -1
    for i, finding in sorted(wraps, key=lambda w: spans[id(w[1].fix)][0]):
        start, stop, new = spans[id(finding.fix)]
        if joined is not None and _joins(text, positions, joined, end, finding.fix, start):
            candidate = _joined(joined, finding.fix)
            members = run + [i]
            if not any(key(out[j]._replace(fix=candidate)) in rejected for j in members):
                joined, end, run = candidate, stop, members
                continue
        _settle_run(out, run, joined)
        joined, end, run = finding.fix, stop, [i]
    _settle_run(out, run, joined)
    return out


def _settle_run(out: List[Finding], run: Sequence[int], fix: Optional[Fix]) -> None:
    if len(run) > 1:
        for j in run:
            out[j] = out[j]._replace(fix=fix)


def _wrap(fix: Optional[Fix]) -> Optional[str]:
    """The header of a fix that wraps one statement under ``no_grad``, else ``None``."""
    if fix is None or len(fix.edits) != 1:
        return None
    found = _HEADER.match(fix.edits[0].text)
    return found.group() if found else None


def _joins(text: str, positions: Positions, before: Fix, end: int, after: Fix,
           start: int) -> bool:
    """Whether ``after``'s statement follows ``before``'s on the next line, at
    the same indentation, with nothing between them, and under the same header."""
    if _wrap(before) != _wrap(after):
        return False
    first = before.edits[0].start
    indent = positions.lines[first[0] - 1][:first[1]]
    gap = text[end:start]
    if gap not in ("\n" + indent, "\r\n" + indent) or indent.strip():
        return False
    body = _body(before.edits[0].text)
    return body is not None and body == _body(after.edits[0].text)


def _body(text: str) -> Optional[str]:
    """The indentation of a wrap's first body line."""
    lines = text.split("\n", 2)
    if len(lines) < 2:
        return None
    line = lines[1]
    return line[:len(line) - len(line.lstrip())]


def _joined(before: Fix, after: Fix) -> Fix:
    """One fix: ``before``'s block, ``after``'s statement appended to it."""
    header = _wrap(after)
    tail = after.edits[0].text[len(header):]  # (its newline, indentation, statement)
    edit = Edit(before.edits[0].start, after.edits[0].end, before.edits[0].text + tail)
    imports = tuple(dict.fromkeys(before.imports + after.imports))
    safety = SAFE if before.safety == after.safety == SAFE else UNSAFE
    return Fix((edit,), safety, imports)
