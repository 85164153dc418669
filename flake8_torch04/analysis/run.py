"""Running the rules over one file: :func:`check` on a tree, :class:`Analysis` of a text."""
from __future__ import annotations

import ast
import gc
from typing import Callable, Iterable, List, Optional, Sequence

from ..source.text import lines_of
from .context import Context
from .findings import Finding
from .gate import WALK, open_gate
from .registry import gates, load
from .remembered import forget_pending
from .walker import Walker


def collector_off():
    """A context in which Python's cyclic garbage collector does not run.

    A tree is hundreds of thousands of objects, none in a cycle, alive while
    its file is checked: each collection meanwhile scans them again (about
    10% of the check, and of the parse).  Collected after the file instead, a
    file's tree has already been freed and costs nothing.  The collector's
    state is restored, also for the host process (flake8, an editor).
    """
    return _CollectorOff()


class _CollectorOff:
    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        if self.enabled:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            gc.enable()


def _without_collector(func: Callable) -> Callable:
    """``func``, run with the collector off (see :func:`collector_off`)."""
    from functools import wraps

    @wraps(func)
    def run(*args, **kwargs):
        with collector_off():
            return func(*args, **kwargs)

    return run


@_without_collector
def check(
    tree: ast.AST,
    lines: Sequence[str],
    filename: str = "",
    codes: Optional[Iterable[str]] = None,
    prefilter: bool = True,
    unchecked: Optional[List[int]] = None,
) -> List[Finding]:
    """Findings for one parsed file, sorted by position.

    ``codes`` limits the rules run (all when ``None``); ``prefilter=False``
    runs every selected rule even on files that lack its markers.  The lines
    of statements that could not be checked to the end (an expression nested
    deeper than the recursion limit allows; ``0`` when the line is unknown)
    are appended to ``unchecked``.  The cyclic garbage collector is off
    meanwhile (see :func:`collector_off`).
    """
    known = gates()
    selected = [known[c] for c in (codes if codes is not None else known) if c in known]
    if not selected:
        return []
    forget_pending()  # (what other modules' facts met for the previous file)
    text = "".join(lines)
    if prefilter:
        gate = open_gate(selected, lines, text)
        if gate is None:
            return []
        licences, masks, hits = gate
    else:
        licences = [WALK] + [(g, g.node_types) for g in selected]
        masks = hits = None
    # only now are the modules of the rules that may find something loaded
    licences[1:] = [(load(g.code), types) for g, types in licences[1:]]
    ctx = Context(tree, lines, filename, text)
    walker = Walker(ctx, licences, masks, hits)
    try:
        walker.run()
    except RecursionError:  # deep outside any statement's walk: report what was found
        walker.unchecked.append(0)
    finally:
        ctx.release()
    if unchecked is not None:
        unchecked.extend(sorted(set(walker.unchecked)))
    findings = walker.findings
    findings.sort(key=lambda f: (f.line, f.col, f.code))
    return _dedupe(findings)


def _dedupe(findings: List[Finding]) -> List[Finding]:
    """One finding per site per code."""
    seen = set()
    out = []
    for finding in findings:
        key = (finding.code, finding.line, finding.col)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def check_source(source: str, filename: str = "", codes=None) -> List[Finding]:
    """Parse ``source`` and check it (raises ``SyntaxError`` when it does not parse)."""
    tree = ast.parse(source, filename or "<unknown>")
    return check(tree, lines_of(source), filename, codes)
