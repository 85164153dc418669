"""Checking one file: its findings located for output, and (with the options) its fixed text.

Nothing is written here: the caller decides what to do with ``FileResult.new_data``.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple, Union

from .analysis import era
from .analysis.findings import Finding
from .analysis.run import collector_off
from .fix.analysis import Analysis
from .fix.fixer import Dropped, fix_key, fix_text
from .source.document import CannotParse, Document
from .source.parse import parse


class Located(NamedTuple):
    """A finding with where to show it: ``cell`` is ``None`` outside notebooks."""

    finding: Finding
    cell: Optional[int]
    line: int
    end_line: int
    fixable: bool  # would be applied with the options given
    edits: Tuple[Tuple[int, int, int, int, str], ...] = ()  # in the same coordinates
    #: the lines the finding and its fix span (from display line ``span_line``);
    #: for the ``full`` output, as :attr:`fixed_source`
    source: Tuple[str, ...] = ()
    span_line: int = 0

    @property
    def fixed_source(self) -> Optional[str]:
        """``source`` with the fix applied (``None``: no fix), made when it is shown
        (each finding's made at once costs a line's length: quadratic on one long line)."""
        return _fixed_snippet(self.source, self.finding)


class Options(NamedTuple):
    codes: Tuple[str, ...]
    fix: bool = False
    unsafe: bool = False
    diff: bool = False
    quiet: bool = False
    #: give each finding its ``source`` lines (``full`` and ``gitlab`` show them)
    snippets: bool = True
    #: the codes whose fixes may be applied (``--fixable``/``--unfixable``); None: all
    fixable: Optional[FrozenSet[str]] = None
    #: ``target-version`` of the configuration that governs the file (``analysis/era.py``)
    target_version: Optional[str] = None


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
    incomplete: bool = False  # some statement could not be checked: exit 1
    original: Optional[bytes] = None  # the bytes read (a fix is written only over them)


def _syntax_reason(exc: SyntaxError, doc: Document) -> str:
    msg = exc.msg or str(exc) or "invalid syntax"
    if exc.lineno:
        return f"cannot parse: {msg} ({doc.describe(exc.lineno)})"
    return f"cannot parse: {msg}"


def check_document(doc: Document, options: Options) -> FileResult:
    """Check (and, with the options, fix) one document; nothing is written here.

    The stages, each a call into its own package: the document was read
    (``source``); a file that does not parse because of ``async=`` is rescued and
    the text analysed (``analysis``); the fixer runs (``fix``); the findings are
    located for output (here)."""
    if not doc.applies:
        return FileResult(doc.name, [], Counter())
    codes = options.codes
    era.configured_target = options.target_version  # (what the rules read: era.target)

    def analyse(text: str) -> Analysis:
        analysis = Analysis(text, codes, doc.name, doc.locked)
        analysis.fixable_codes = options.fixable
        return analysis

    doc.set_text(doc.text)
    analysed = _analyse(doc, codes, analyse)
    if isinstance(analysed, str):
        return FileResult(doc.name, [], Counter(), error=analysed)
    fixed = None
    if (options.fix or options.diff) and analysed.start is not None:
        fixed = _fix(doc, analysed, analyse, options.unsafe)
    return _render(doc, analysed, fixed, options)


class _Analysed(NamedTuple):
    analysis: Analysis
    #: the text the fixer starts from (``None``: a rescued file that renames nothing)
    start: Optional[str]
    #: the rescued file's findings (``None``: the analysis's own)
    findings: Optional[List[Finding]] = None
    rescued_sites: int = 0


class _Fixed(NamedTuple):
    text: str
    fixed: Counter
    analysis: Analysis
    dropped: Tuple[str, ...]
    refused: set
    notes: Tuple[str, ...]


def _analyse(doc: Document, codes: Sequence[str], analyse) -> Union[_Analysed, str]:
    """Rescue and analyse: the analysis of the document's text, or of the text
    rescued from ``async=`` keywords (TV101); a reason when it cannot be checked."""
    try:
        return _Analysed(analyse(doc.text), doc.text)
    except SyntaxError as exc:
        from .analysis.rescue import (  # (tokenize: only for files that fail)
            rescue, rescued_findings
        )

        rescued = rescue(doc.text, parse)
        if rescued is None or "TV101" not in codes:
            hint = "; it has `async=` keywords: select TV101 to check it" if rescued else ""
            return _syntax_reason(exc, doc) + hint
        analysis = analyse(rescued.text)
        findings, renames = rescued_findings(rescued, analysis)
        return _Analysed(analysis, rescued.text if renames else None, findings,
                         len(rescued.sites))


def _fix(doc: Document, analysed: _Analysed, analyse, unsafe: bool) -> _Fixed:
    """Fix: the fixer's result, described for the document."""
    hidden = doc.notebook.hidden if doc.notebook is not None else ""
    result = fix_text(analysed.start, analyse, unsafe, hidden=hidden, first=analysed.analysis,
                      path=doc.name)
    if analysed.start is not doc.text:
        result.fixed["TV101"] += analysed.rescued_sites
    dropped = tuple(_describe_dropped(doc, d) for d in result.dropped)
    refused = {fix_key(d.finding) for d in result.dropped}
    notes: Tuple[str, ...] = ()
    if not result.converged:
        notes = ("fixes did not reach a fixpoint; run again",)
    notes += result.notes
    text, fixed, analysis = doc.text, Counter(), analysed.analysis
    if doc.notebook is not None and result.text != doc.text:
        result, unmapped = _keep_mapped(doc, result, analysed.analysis, analyse)
        notes += unmapped
    if result.text != doc.text:
        text, fixed = result.text, result.fixed
        analysis = result.analysis if result.analysis is not None else analyse(text)
        doc.set_text(text)
    return _Fixed(text, fixed, analysis, dropped, refused, notes)


def _render(doc: Document, analysed: _Analysed, fixed: Optional[_Fixed],
            options: Options) -> FileResult:
    """Render: the findings located for output, and the new bytes and diff."""
    text, counts, dropped, refused, notes = doc.text, Counter(), (), set(), ()
    analysis, findings = analysed.analysis, analysed.findings
    if fixed is not None:
        dropped, refused, notes = fixed.dropped, fixed.refused, fixed.notes
        if fixed.text != text:
            text, counts, analysis, findings = fixed.text, fixed.fixed, fixed.analysis, None
    if findings is None:
        findings = analysis.findings
    # a fix the fixer tried and had to drop is not counted fixable
    fixes = _Fixes(doc)
    located = [_locate(doc, analysis, f, options.unsafe,
                       bool(refused) and fix_key(f) in refused, options.snippets, fixes)
               for f in findings]
    notes += tuple(
        f"{doc.describe(line) if line else 'a statement'}: not checked to the end (an "
        f"expression nested too deeply); the rest of the file was checked"
        for line in analysis.unchecked)
    new_data = diff = None
    if text != doc.text:
        new_data = doc.to_bytes(text)
        if new_data == doc.data:
            new_data = None
        elif options.diff:
            diff = doc.diff(text)
    return FileResult(doc.name, located, counts, new_data=new_data, diff=diff or "",
                      dropped=dropped, notes=notes, incomplete=bool(analysis.unchecked))


def _keep_mapped(doc: Document, result, before: Analysis, analyse):
    """The fix's result with the notebook cells that cannot be mapped back as they
    were (see ``Notebook.keep_mapped``), and a note for each."""
    text, unmapped = doc.notebook.keep_mapped(result.text)
    if not unmapped:
        return result, ()
    after = analyse(text)
    # (no fix adds a finding of any code: what went is what the kept cells fixed)
    fixed = Counter(f.code for f in before.findings) - Counter(f.code for f in after.findings)
    return result._replace(text=text, fixed=fixed, analysis=after), unmapped


class _Fixes:
    """Each fix's edits in output coordinates and the lines they span, made once
    per fix: the findings that share one fix (TV002's of one function: every
    ``volatile=True`` of it) would each walk all its edits (quadratic)."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.made: Dict[int, tuple] = {}  # id(fix) -> (fix, edits, (first, last))

    def of(self, fix) -> tuple:
        """``(edits, (first line, last line) or None)`` of ``fix``."""
        made = self.made.get(id(fix))
        if made is None or made[0] is not fix:
            made = self.made[id(fix)] = fix, self._edits(fix.edits), _edits_span(fix.edits)
        return made[1:]

    def _edits(self, edits) -> tuple:
        if self.doc.notebook is None:  # (positions are the file's own: the common case)
            return tuple((e.start[0], e.start[1], e.end[0], e.end[1], e.text) for e in edits)
        where = self.doc.where

        def end(line: int, col: int, start: int) -> int:
            # (line, 0) ends the line before: the next cell's marker, when it ends a cell
            return where(line - 1)[1] + 1 if col == 0 and line > start else where(line)[1]

        return tuple((where(e.start[0])[1], e.start[1], end(e.end[0], e.end[1], e.start[0]),
                      e.end[1], e.text) for e in edits)


def _locate(doc: Document, analysis: Analysis, finding: Finding, unsafe: bool,
            refused: bool = False, snippet: bool = True,
            fixes: Optional[_Fixes] = None) -> Located:
    fixable = not refused and analysis.fixable(finding, unsafe)
    fixes = fixes or _Fixes(doc)
    edits, span = fixes.of(finding.fix) if finding.fix else ((), None)
    source, first = _snippet(analysis.lines, finding, span) if snippet else ((), 0)
    if doc.notebook is None:
        return Located(finding, None, finding.line, finding.end_line or finding.line, fixable,
                       edits, source, first)
    cell, line = doc.where(finding.line)
    _, end_line = doc.where(finding.end_line or finding.line)
    return Located(finding, cell, line, end_line, fixable, edits, source,
                   doc.where(first)[1] if snippet else 0)


#: the most lines a snippet shows
SNIPPET_LINES = 12


def _edits_span(edits) -> Optional[Tuple[int, int]]:
    """The first and last lines the edits change (``None``: no edits)."""
    if not edits:
        return None
    return (min(e.start[0] for e in edits),
            max(e.end[0] - (1 if e.end[1] == 0 and e.end[0] > e.start[0] else 0)
                for e in edits))


def _span(finding: Finding, edits_span: Optional[Tuple[int, int]] = None) -> Tuple[int, int]:
    """The first and last lines the finding and its fix span (``edits_span``:
    its fix's, when known)."""
    if edits_span is None and finding.fix:
        edits_span = _edits_span(finding.fix.edits)
    first, last = finding.line, finding.end_line or finding.line
    if edits_span is not None:
        first, last = min(first, edits_span[0]), max(last, edits_span[1])
    return first, last


def _snippet_lines(finding: Finding,
                   edits_span: Optional[Tuple[int, int]] = None) -> Tuple[int, int]:
    """The first and last lines a snippet shows: those the finding and its fix span
    when they fit in ``SNIPPET_LINES``, else the finding's own (a fix that adds
    ``@torch.no_grad()`` to a long function starts far above its finding)."""
    first, last = _span(finding, edits_span)
    if last - first >= SNIPPET_LINES:
        first, last = finding.line, finding.end_line or finding.line
    return first, min(last, first + SNIPPET_LINES - 1)


def _snippet(lines, finding: Finding, edits_span: Optional[Tuple[int, int]] = None):
    """The lines of :func:`_snippet_lines`, and the first one's number."""
    first, last = _snippet_lines(finding, edits_span)
    return tuple(lines[first - 1:min(last, len(lines))]), first


def _fixed_snippet(source: Tuple[str, ...], finding: Finding) -> Optional[str]:
    """The lines of :func:`_snippet` with the fix applied (``None``: no fix, or
    the fix reaches beyond them)."""
    edits = finding.fix.edits if finding.fix else ()
    first, _ = _snippet_lines(finding)
    last = first + len(source) - 1
    if not edits or not source or any(e.start[0] < first or e.end[0] > last + 1
                                      for e in edits):
        return None
    starts = [0]
    for text in source:
        starts.append(starts[-1] + len(text))
    text = "".join(source)
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        a = starts[edit.start[0] - first] + edit.start[1]
        b = starts[edit.end[0] - first] + edit.end[1]
        text = text[:a] + edit.text + text[b:]
    return text


def _describe_dropped(doc: Document, dropped: Dropped) -> str:
    f = dropped.finding
    return f"{doc.describe(f.line)}, col {f.col + 1}: {f.code} fix not applied: {dropped.reason}"


def check_file(path: str, options: Options, stdin: Optional[bytes] = None,
               name: Optional[str] = None) -> FileResult:
    name = name or path
    try:
        if stdin is None:
            kind = _not_regular(path)
            if kind:
                return FileResult(name, [], Counter(), error=f"not checked: {kind}")
            with open(path, "rb") as handle:
                data = handle.read()
        else:
            data = stdin
        doc = Document(data, name)
        with collector_off():  # (the file's trees: see ``run.collector_off``)
            result = check_document(doc, options)
        return result._replace(original=data)
    except CannotParse as exc:
        return FileResult(name, [], Counter(), error=str(exc))
    except OSError as exc:
        return FileResult(name, [], Counter(), error=f"cannot read: {exc.strerror or exc}")
    except Exception as exc:  # a bug: report it, go on with the other files, exit 2
        return FileResult(name, [], Counter(), internal=True,
                          error=f"internal error: {type(exc).__name__}: {exc}")


def _not_regular(path: str) -> Optional[str]:
    """What ``path`` is when it is not a regular file (reading a FIFO would block)."""
    import stat

    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        return None
    for test, kind in ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return f"{kind}, not a regular file"
    return "not a regular file"
