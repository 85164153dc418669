"""Checking one file: its findings located for output, and (with the options) its fixed text.

Nothing is written here: the caller decides what to do with ``FileResult.new_data``.
"""
from __future__ import annotations

from collections import Counter
from typing import List, NamedTuple, Optional, Tuple

from ._core import Finding
from ._files import CannotParse, Document
from ._fix import Analysis, Dropped, fix_text


class Located(NamedTuple):
    """A finding with where to show it: ``cell`` is ``None`` outside notebooks."""

    finding: Finding
    cell: Optional[int]
    line: int
    end_line: int
    fixable: bool  # would be applied with the options given
    edits: Tuple[Tuple[int, int, int, int, str], ...] = ()  # in the same coordinates


class Options(NamedTuple):
    codes: Tuple[str, ...]
    fix: bool = False
    unsafe: bool = False
    diff: bool = False
    quiet: bool = False


class FileResult(NamedTuple):
    name: str
    findings: List[Located]
    fixed: Counter
    error: Optional[str] = None  # could not be checked (or written)
    internal: bool = False
    new_data: Optional[bytes] = None  # the fixed file, when it changed
    diff: str = ""
    dropped: Tuple[str, ...] = ()
    notes: Tuple[str, ...] = ()


def _syntax_reason(exc: SyntaxError, doc: Document) -> str:
    msg = exc.msg or str(exc) or "invalid syntax"
    if exc.lineno:
        return f"cannot parse: {msg} ({doc.describe(exc.lineno)})"
    return f"cannot parse: {msg}"


def check_document(doc: Document, options: Options) -> FileResult:
    """Check (and, with the options, fix) one document; nothing is written here."""
    if not doc.applies:
        return FileResult(doc.name, [], Counter())
    codes = options.codes

    def analyse(text: str) -> Analysis:
        return Analysis(text, codes, doc.name, doc.locked)

    doc.set_text(doc.text)
    try:
        analysis = analyse(doc.text)
    except SyntaxError as exc:
        return FileResult(doc.name, [], Counter(), error=_syntax_reason(exc, doc))
    text, fixed, dropped, notes = doc.text, Counter(), (), ()
    if options.fix or options.diff:
        hidden = doc.notebook.hidden if doc.notebook is not None else ""
        kept: List[str] = []
        result = fix_text(doc.text, analyse, options.unsafe, hidden=hidden,
                          taken=_taken_by(doc.name, kept))
        dropped = tuple(_describe_dropped(doc, d) for d in result.dropped)
        if not result.converged:
            notes = ("fixes did not reach a fixpoint; run again",)
        notes += tuple(kept)
        if result.text != doc.text:
            text, fixed = result.text, result.fixed
            analysis = analyse(text)
            doc.set_text(text)
    located = [_locate(doc, analysis, f, options.unsafe) for f in analysis.findings]
    new_data = diff = None
    if text != doc.text:
        new_data = doc.to_bytes(text)
        if new_data == doc.data:
            new_data = None
        elif options.diff:
            diff = doc.diff(text)
    return FileResult(doc.name, located, fixed, new_data=new_data, diff=diff or "",
                      dropped=dropped, notes=notes)


def _taken_by(name: str, notes: List[str]):
    """``taken`` for ``fix_text``: asks the project's other modules, and notes why."""

    def taken(bound: str) -> Optional[str]:
        from ._project import taken_by

        why = taken_by(name, bound)
        if why is not None:
            notes.append(f"kept the import of `{bound}` (no use is left here): {why}")
        return why

    return taken


def _locate(doc: Document, analysis: Analysis, finding: Finding, unsafe: bool) -> Located:
    cell, line = doc.where(finding.line)
    _, end_line = doc.where(finding.end_line or finding.line)
    edits = []
    for edit in finding.fix.edits if finding.fix else ():
        _, start = doc.where(edit.start[0])
        _, end = doc.where(edit.end[0])
        edits.append((start, edit.start[1], end, edit.end[1], edit.text))
    return Located(finding, cell, line, end_line, analysis.fixable(finding, unsafe),
                   tuple(edits))


def _describe_dropped(doc: Document, dropped: Dropped) -> str:
    f = dropped.finding
    return f"{doc.describe(f.line)}, col {f.col + 1}: {f.code} fix not applied: {dropped.reason}"


def check_file(path: str, options: Options, stdin: Optional[bytes] = None,
               name: Optional[str] = None) -> FileResult:
    name = name or path
    try:
        if stdin is None:
            with open(path, "rb") as handle:
                data = handle.read()
        else:
            data = stdin
        doc = Document(data, name)
        return check_document(doc, options)
    except CannotParse as exc:
        return FileResult(name, [], Counter(), error=str(exc))
    except OSError as exc:
        return FileResult(name, [], Counter(), error=f"cannot read: {exc.strerror or exc}")
    except Exception as exc:  # a bug: report it, go on with the other files, exit 2
        return FileResult(name, [], Counter(), internal=True,
                          error=f"internal error: {type(exc).__name__}: {exc}")
