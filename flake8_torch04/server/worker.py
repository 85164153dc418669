"""What ``torch04 server`` knows of one version of a text, and the edits it offers.

The server (``protocol.py``) speaks the protocol; this module does the work in
the server's worker process (it imports no protocol library):

- :func:`load_settings`: the one function that reads the configuration for a
  file (the codes, ``unsafe-fixes``, and a configuration error, if any);
- :func:`analyse`: a :class:`Snapshot` of one version of a text: its findings
  (each carrying its fix's edits), or its syntax error, kept until the next
  version so that code actions are answered from it without checking again;
- :func:`fix_one`, :func:`noqa_text`, :func:`fix_all`: the text after one
  quick fix (the finding's own edits, the imports they need and the
  ``Variable`` import they leave unused, checked as the fixer checks a round
  of fixes), after a ``# noqa``, and after ``torch04 check --fix``;
- :func:`text_edits`: the line edits that turn one text into another;
- ``run_*``: what the server asks the worker (:func:`run_analysis` keeps the
  snapshot and returns the diagnostics as plain tuples, :func:`run_edit`
  makes a code action's edits from the kept snapshot).
"""
from __future__ import annotations

import os
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..analysis.findings import SAFE, Finding
from ..analysis.run import collector_off
from ..fix.analysis import Analysis
from ..source.text import lines_of

SOURCE = "torch04"


# ---------------------------------------------------------------------------
# configuration


class FileSettings(NamedTuple):
    """The configuration that applies to one file."""

    codes: Tuple[str, ...]
    #: ``unsafe-fixes`` as configured (``None``: not set)
    unsafe_fixes: Optional[bool]
    #: why the configuration could not be used (the defaults apply meanwhile)
    error: Optional[str] = None
    #: the configuration file that holds the error
    error_file: Optional[str] = None
    #: where in it: (0-based line, start column, end column)
    error_at: Optional[Tuple[int, int, int]] = None
    #: the configuration excludes the file: nothing is reported on it
    excluded: bool = False
    #: ``target-version`` of the configuration (``analysis/era.py``)
    target_version: Optional[str] = None


def load_settings(path: str) -> FileSettings:
    """The settings for the file ``path``, as ``torch04 check`` reads them.

    The server's only access to the configuration (the server caches its
    answers per file until a configuration file changes).  A configuration
    that cannot be used is reported in ``error`` and the defaults apply.
    """
    from ..config import settings as config_settings
    from ..config.select import UsageError

    where = path if os.path.isabs(path) else None
    try:
        resolver = config_settings.resolver_for(where)
        settings = resolver.for_path(where)
    except UsageError as exc:
        settings = config_settings.load(where, isolated=True)
        message = str(exc)
        file = _file_named(message)
        at = None
        if file is not None:
            try:
                with open(file, encoding="utf-8", errors="replace") as handle:
                    at = error_range(handle.read(), message)
            except OSError:
                pass
        return FileSettings(settings.codes_for(path), None, message, file, at)
    # an excluded file is not reported on, as the pre-commit hook skips it
    # (`torch04 check --force-exclude`) and as Ruff's server does
    excluded = where is not None and config_settings.excluded_file(where, resolver)
    return FileSettings(() if excluded else settings.codes_for(path), settings.unsafe_fixes,
                        excluded=excluded, target_version=settings.target_version)


def _file_named(message: str) -> Optional[str]:
    """The configuration file a message starts with (``FILE: ...``)."""
    end = message.find(": ")
    while end > 0:
        if os.path.isfile(message[:end]):
            return message[:end]
        end = message.find(": ", end + 2)
    return None


def error_range(file_text: str, message: str) -> Tuple[int, int, int]:
    """Where in the configuration file the error of ``message`` is: the first
    line naming the code or key the message quotes, else the ``[tool.torch04]``
    or ``[flake8]`` header, else the first line."""
    import re

    lines = file_text.splitlines()
    quoted = re.findall(r"'([^']+)'|: ([A-Z]{1,3}[0-9]*) matches no rule|([a-z-]+): expected",
                        message)
    needles = [next(q for q in group if q) for group in quoted]
    needles += ["[tool.torch04]", "[flake8]"]
    for needle in needles:
        for number, line in enumerate(lines):
            column = line.find(needle)
            if column >= 0 and not line.lstrip().startswith("#"):
                return number, column, column + len(needle)
    return 0, 0, len(lines[0]) if lines else 0


# ---------------------------------------------------------------------------
# one version of a text


class Snapshot:
    """The analysis of one version of a document (a file, or a notebook's code
    cells joined): what diagnostics and code actions are made from."""

    def __init__(self, uri: str, version: Optional[int], text: str, path: str,
                 settings: FileSettings) -> None:
        self.uri = uri
        self.version = version
        self.text = text
        self.path = path
        self.settings = settings
        self.analysis: Optional[Analysis] = None
        self.findings: List[Finding] = []
        #: the findings are of the text with its ``async=`` renamed (TV101)
        self.rescued = False
        #: (line, column, end line, end column, message) of a syntax error
        self.syntax: Optional[Tuple[int, int, int, int, str]] = None
        self.lines = lines_of(text)
        #: finding key -> why its fix cannot be applied here (``None``: it can)
        self.blockers: Dict[Tuple[str, int, int], Optional[str]] = {}
        #: whether "Fix all" would apply a fix
        self.fixable = False
        self.seconds = 0.0  # how long the analysis took
        #: what every quick fix on this text checks against, made at the first
        #: (the names pyflakes finds undefined; the ``Variable`` names in use)
        self.before: Optional[tuple] = None

    def finding(self, code: str, line: int, col: int) -> Optional[Finding]:
        for finding in self.findings:
            if (finding.code, finding.line, finding.col) == (code, line, col):
                return finding
        return None

    def offers(self, finding: Finding) -> bool:
        """Whether a quick fix is offered for the finding (unsafe ones too,
        unless the configuration says ``unsafe-fixes = false``)."""
        fix = finding.fix
        return (fix is not None and not self.rescued
                and self.blockers.get(key(finding), "no fix") is None
                and (fix.safety == SAFE or self.settings.unsafe_fixes is not False))


def key(finding: Finding) -> Tuple[str, int, int]:
    return finding.code, finding.line, finding.col


def analyse(uri: str, version: Optional[int], text: str, path: str,
            settings: FileSettings, locked=None) -> Snapshot:
    """The snapshot of ``text``: its findings, or its syntax error (a file that
    parses only once its ``async=`` keywords are renamed is checked so, with
    its findings in its own coordinates, when TV101 is selected)."""
    import time

    start = time.perf_counter()
    snapshot = Snapshot(uri, version, text, path, settings)
    codes = settings.codes
    with collector_off():
        try:
            snapshot.analysis = Analysis(text, codes, path, locked)
        except (SyntaxError, ValueError) as exc:
            _rescue(snapshot, exc, locked)
        else:
            analysis = snapshot.analysis
            snapshot.findings = analysis.findings
            unsafe = bool(settings.unsafe_fixes)
            for finding in snapshot.findings:
                if finding.fix is not None:
                    blocker = snapshot.blockers[key(finding)] = analysis.blocker(finding)
                    if blocker is None and (finding.fix.safety == SAFE or unsafe):
                        snapshot.fixable = True
    snapshot.seconds = time.perf_counter() - start
    return snapshot


def _rescue(snapshot: Snapshot, error: Exception, locked) -> None:
    from ..analysis.rescue import rescue, rescued_findings
    from ..source.parse import parse

    rescued = rescue(snapshot.text, parse)
    if rescued is not None and "TV101" in snapshot.settings.codes:
        try:
            analysis = Analysis(rescued.text, snapshot.settings.codes, snapshot.path, locked)
        except (SyntaxError, ValueError):
            pass
        else:
            snapshot.findings = rescued_findings(rescued, analysis)[0]
            snapshot.rescued = True
            snapshot.fixable = any(f.fix is not None for f in snapshot.findings)
            return
    hint = "; it has `async=` keywords: select TV101 to check it" if rescued else ""
    snapshot.syntax = _syntax_position(snapshot.lines, error, hint)


def _syntax_position(lines: Sequence[str], error: Exception,
                     hint: str) -> Tuple[int, int, int, int, str]:
    message = getattr(error, "msg", None) or str(error) or "invalid syntax"
    line = getattr(error, "lineno", None) or 1
    line = max(1, min(line, len(lines) or 1))
    text = lines[line - 1].rstrip("\r\n") if lines else ""
    col = max(0, min((getattr(error, "offset", None) or 1) - 1, len(text)))
    end_line = getattr(error, "end_lineno", None) or line
    end_offset = getattr(error, "end_offset", None) or 0
    if end_line == line and end_offset - 1 > col:
        end_col = min(end_offset - 1, len(text))
    else:
        end_line, end_col = line, min(col + 1, len(text)) if col < len(text) else col
    return line, col, end_line, end_col, f"SyntaxError: {message}{hint}"


# ---------------------------------------------------------------------------
# positions and diagnostics


def unit_counter(encoding: str) -> Callable[[str], int]:
    """How many of the client's position units a string is (LSP position encodings)."""
    if encoding == "utf-8":
        return lambda text: len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len
    return lambda text: len(text.encode("utf-16-le", "surrogatepass")) // 2


class Units:
    """Character columns as the client counts them (its position encoding)."""

    def __init__(self, count: Callable[[str], int], lines: Sequence[str]) -> None:
        self.count = count
        self.lines = lines

    def column(self, line: int, col: int) -> int:
        """A 0-based character column of a 1-based line, in the client's units."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return col if text.isascii() else self.count(text[:col])

    def range(self, line: int, col: int, end_line: int, end_col: int) -> Tuple[int, int, int, int]:
        """0-based (line, character, end line, end character); no end: one character."""
        start = self.column(line, col)
        if not end_line:
            return line - 1, start, line - 1, start + 1
        return line - 1, start, end_line - 1, self.column(end_line, end_col)


class Diag(NamedTuple):
    """A diagnostic as the worker sends it (the server makes the LSP object)."""

    range: Tuple[int, int, int, int]
    message: str
    code: Optional[str] = None  # None: a syntax error
    line: int = 0  # the finding's own line and column (its key)
    col: int = 0


def finding_diag(finding: Finding, units: Units, line: int, end_line: int) -> Diag:
    """A finding as a diagnostic, shown at ``line`` (a notebook cell's own)."""
    return Diag(units.range(line, finding.col, end_line, finding.end_col), finding.message,
                finding.code, finding.line, finding.col)


def syntax_diag(snapshot: Snapshot, units: Units,
                where: Callable[[int], int] = lambda line: line) -> Diag:
    line, col, end_line, end_col, message = snapshot.syntax
    return Diag(units.range(where(line), col, where(end_line), end_col), message)


# ---------------------------------------------------------------------------
# the text after a fix


def fix_one(snapshot: Snapshot, finding: Finding) -> Tuple[Optional[str], str]:
    """The text with the finding's fix applied, as the fixer applies it in a
    round of its own: its edits, the imports it needs, and the
    ``from torch.autograd import Variable`` it leaves unused removed (unless
    another module of the project takes the name).  The result is checked
    as the fixer checks a round: it must parse, read each replaced expression
    back as the same expression, and leave no name undefined.  Nothing is
    analysed again.  ``(None, why)`` when the fix cannot be applied."""
    from ..analysis.project.importers import forget
    from ..fix.edits import BadEdit, edit_spans, overlaps
    from ..fix.fixer import Round, checked_text
    from ..fix.guard import undefined_names
    from ..fix.imports import project_users, remove_variable_imports, variable_names_in_use
    from ..source.parse import dominant_newline

    analysis = snapshot.analysis
    if analysis is None or snapshot.rescued or finding.fix is None:
        return None, "no fix"
    blocker = snapshot.blockers.get(key(finding))
    if blocker is not None:
        return None, blocker
    text, tree = snapshot.text, analysis.tree
    try:
        spans = sorted(edit_spans(text, finding.fix.edits))
    except BadEdit as exc:
        return None, f"the fix does not fit the text: {exc}"
    if any(overlaps(a, b) for a, b in zip(spans, spans[1:])):
        return None, "the fix's own edits overlap"
    newline = dominant_newline(text)
    with collector_off():
        if snapshot.before is None:
            snapshot.before = undefined_names(tree), variable_names_in_use(text, tree)
        undefined, variables = snapshot.before
        round_ = Round(text, tree, [finding], newline, undefined, None, None)
        try:
            built = round_.build([finding])
        except BadEdit as exc:
            return None, f"the fix does not fit the text: {exc}"
        if built.broken:
            return None, next(iter(built.broken.values()))
        if built.error is not None:
            return None, ("the fix would make invalid code: " if built.tree is None
                          else "the fix is unsafe here: ") + built.error
        new = built.text
        if variables:
            forget()  # (the project's modules as they are now)
            try:
                new = checked_text(remove_variable_imports(
                    new, variables, newline, built.tree, project_users(snapshot.path, [])),
                    new)
            except BadEdit:
                pass
    return (new, "") if new != text else (None, "the fix changes nothing")


def noqa_text(text: str, finding: Finding) -> str:
    """``text`` with a ``# noqa`` for the finding, where flake8 honours it (as
    ``torch04 check --add-noqa`` adds it)."""
    from ..fix.addnoqa import add_noqa

    return add_noqa(text, [finding])[0]


def fix_all(text: str, path: str, settings: FileSettings) -> Optional[str]:
    """``text`` as ``torch04 check --fix`` leaves the file ``path`` holding it
    (``None``: no change): the same function with the same inputs."""
    from ..analysis.project.importers import forget
    from ..pipeline import Options, check_document
    from ..source.document import Document

    forget()  # (the project's modules as they are now)

    class EditorText(Document):
        def __init__(self) -> None:  # (the text, not the file's bytes)
            self.name = path
            self.text = text
            self.encoding = "utf-8"
            self.data = text.encode("utf-8", "surrogatepass")

    with collector_off():
        result = check_document(EditorText(), Options(
            settings.codes, fix=True, unsafe=bool(settings.unsafe_fixes), snippets=False))
    if result.error or result.new_data is None:
        return None
    return result.new_data.decode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------
# edits


#: how many lines past a difference are searched for the texts to agree again
RESYNC = 400
#: how many equal lines make the texts agree again
AGREE = 3


def line_changes(a: Sequence[str], b: Sequence[str]) -> List[Tuple[int, int, int, int]]:
    """``(i1, i2, j1, j2)``: ``a[i1:i2]`` is replaced by ``b[j1:j2]``, in order.

    A greedy diff for texts that differ in a few places (a fix, or the many
    small fixes of a whole file): at each difference, the nearest place where
    :data:`AGREE` lines agree again.  Linear in the length of the texts, where
    ``difflib`` takes half a second on 10,000 lines.  Always a correct edit
    script, if not always the shortest.
    """
    n, m = len(a), len(b)

    def agree(x: int, y: int) -> bool:
        if n - x < AGREE or m - y < AGREE:
            return a[x:] == b[y:]
        return a[x:x + AGREE] == b[y:y + AGREE]

    changes = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            i += 1
            j += 1
            continue
        found = None
        for distance in range(1, RESYNC):
            for da in range(distance + 1):
                db = distance - da
                if i + da <= n and j + db <= m and agree(i + da, j + db):
                    found = da, db
                    break
            if found:
                break
        if found is None:
            break
        changes.append((i, i + found[0], j, j + found[1]))
        i, j = i + found[0], j + found[1]
    if i < n or j < m:  # the rest: what is left after the common end
        end = 0
        while end < n - i and end < m - j and a[n - 1 - end] == b[m - 1 - end]:
            end += 1
        changes.append((i, n - end, j, m - end))
    return changes


Edit = Tuple[int, int, int, int, str]  # (line, character, end line, end character, text)


def text_edits(old: str, new: str, count: Callable[[str], int],
               old_lines: Optional[Sequence[str]] = None) -> List[Edit]:
    """The line edits that turn ``old`` into ``new`` (0-based lines; columns
    in the client's units: ``count`` counts them)."""
    lines = lines_of(old) if old_lines is None else old_lines
    new_lines = lines_of(new)
    edits = []
    last = len(lines)
    open_end = bool(lines) and not lines[-1].endswith(("\n", "\r"))
    for i1, i2, j1, j2 in line_changes(lines, new_lines):
        if i2 == last and open_end:
            # the last line has no newline: a range past it ends at its end
            end_line, end_col = last - 1, count(lines[-1])
        else:
            end_line, end_col = i2, 0
        edits.append((i1, 0, end_line, end_col, "".join(new_lines[j1:j2])))
    return edits


# ---------------------------------------------------------------------------
# the worker process: it keeps the snapshots, the server asks


#: the last snapshot of each document, by URI
SNAPSHOTS: Dict[str, Snapshot] = {}
#: each file's settings, until a configuration file changes
SETTINGS: Dict[str, FileSettings] = {}


class Item(NamedTuple):
    """What the server lists a finding's code actions from."""

    code: str
    line: int
    col: int
    end_line: int
    message: str
    offer: Optional[str]  # the quick fix's safety, or None: no quick fix


class Result(NamedTuple):
    """The worker's answer to :func:`run_analysis`."""

    uri: str
    version: Optional[int]
    seconds: float
    by_uri: Dict[str, List[Diag]]
    items: List[Item]
    rescued: bool
    fixable: bool
    settings: FileSettings


def settings_for(path: str) -> FileSettings:
    found = SETTINGS.get(path)
    if found is None:
        found = SETTINGS[path] = load_settings(path)
    return found


def _target(settings: FileSettings) -> None:
    """What the rules read as the project's ``target-version`` (one document at a
    time: the worker analyses one after the other)."""
    from ..analysis import era

    era.configured_target = settings.target_version


def start_worker() -> None:
    """The worker process's start: its output is not the protocol's (what it
    prints goes to standard error)."""
    import sys

    os.dup2(2, 1)
    sys.stdout = sys.stderr


def warm() -> None:
    """Load the rules before the first analysis needs them."""
    from ..analysis.registry import all_rules

    all_rules()


def run_analysis(uri: str, version: Optional[int], text: str, path: str, encoding: str,
                 cells: Optional[List[Tuple[Optional[str], str]]] = None) -> Optional[Result]:
    """Analyse a document, keep its snapshot, and say what to publish.

    ``cells``: a notebook's cells, ``(cell URI, source)`` (``None`` for a
    markdown cell), checked together as ``torch04`` checks a ``.ipynb``.

    What stays alive afterwards (the snapshot's tree: a large file's is
    hundreds of thousands of objects) is frozen out of the cyclic garbage
    collector's reach: otherwise its next collection scans it all (0.1 s on
    10,000 lines) while the server waits for the result.  The garbage cycles
    of an analysis (``ast.literal_eval`` makes some at each call) are
    collected by :func:`run_collect`, which the server asks for when idle.
    """
    import gc

    with collector_off():
        result = _analysis(uri, version, text, path, encoding, cells)
        gc.freeze()
    return result


def run_collect() -> None:
    """Collect the garbage cycles the analyses left (see :func:`run_analysis`)."""
    import gc

    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _analysis(uri: str, version: Optional[int], text: str, path: str, encoding: str,
              cells: Optional[List[Tuple[Optional[str], str]]]) -> Optional[Result]:
    settings = settings_for(path)
    _target(settings)
    count = unit_counter(encoding)
    if cells is not None:
        made = _notebook(uri, version, path, settings, count, cells)
        if made is None:
            return None
        snapshot, by_uri = made
        items: List[Item] = []
    else:
        snapshot = analyse(uri, version, text, path, settings)
        units = Units(count, snapshot.lines)
        if snapshot.syntax is not None:
            by_uri = {uri: [syntax_diag(snapshot, units)]}
        else:
            by_uri = {uri: [finding_diag(f, units, f.line, f.end_line)
                            for f in snapshot.findings]}
        items = [Item(f.code, f.line, f.col, f.end_line or f.line, f.message,
                      f.fix.safety if snapshot.offers(f) else None) for f in snapshot.findings]
    if settings.excluded:  # (not even a syntax error: the file is not the project's)
        by_uri, items = {key: [] for key in by_uri}, []
    SNAPSHOTS[uri] = snapshot
    return Result(uri, version, snapshot.seconds, by_uri, items, snapshot.rescued,
                  snapshot.fixable, settings)


def run_edit(uri: str, version: Optional[int], action: str, code: str = "", line: int = 0,
             col: int = 0, encoding: str = "utf-16") -> Tuple[Optional[List[Edit]], str]:
    """The edits of a code action on the kept snapshot of ``version``:
    ``fix`` (one finding's), ``noqa``, or ``fixAll``; ``(None, why)`` when
    there is none."""
    snapshot = SNAPSHOTS.get(uri)
    if snapshot is None or snapshot.version != version:
        return None, "the text changed"
    _target(snapshot.settings)
    if action == "fixAll":
        new: Optional[str] = fix_all(snapshot.text, snapshot.path, snapshot.settings)
        why = "nothing to fix"
    else:
        finding = snapshot.finding(code, line, col)
        if finding is None:
            return None, "no such finding"
        if action == "noqa":
            new, why = noqa_text(snapshot.text, finding), ""
        else:
            new, why = fix_one(snapshot, finding)
    if new is None:
        return None, why
    return text_edits(snapshot.text, new, unit_counter(encoding), snapshot.lines), ""


def run_forget(uri: Optional[str] = None, config: bool = False, files: bool = False) -> None:
    """Drop a closed document's snapshot; forget the configuration, or where
    the project's files are."""
    if uri is not None:
        SNAPSHOTS.pop(uri, None)
    if config:
        SETTINGS.clear()
    if files:
        from ..analysis.project.modules import forget_files

        forget_files()


def _notebook(uri: str, version: Optional[int], path: str, settings: FileSettings, count,
              cells: List[Tuple[Optional[str], str]]):
    """A notebook's snapshot and its diagnostics by cell URI."""
    import json

    from ..source.notebook import Notebook, NotebookError

    raw = json.dumps({"cells": [
        {"cell_type": "code", "source": source, "metadata": {}, "outputs": [],
         "execution_count": None} if cell is not None else
        {"cell_type": "markdown", "source": "", "metadata": {}} for cell, source in cells],
        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5})
    try:
        parsed = Notebook(raw)
    except NotebookError:
        return None
    snapshot = analyse(uri, version, parsed.text, path, settings, parsed.locked)
    locate = parsed.locator(parsed.text)
    uris = {number: cell for number, (cell, _) in enumerate(cells, 1) if cell is not None}
    units = {cell: Units(count, lines_of(source)) for cell, source in cells if cell is not None}
    by_uri: Dict[str, List[Diag]] = {cell: [] for cell in uris.values()}

    def where(line: int) -> Tuple[str, int]:
        cell, cell_line = locate(line)
        return uris.get(cell, uri), cell_line

    if snapshot.syntax is not None:
        cell, _ = where(snapshot.syntax[0])
        if cell in units:
            by_uri[cell].append(syntax_diag(snapshot, units[cell], lambda n: where(n)[1]))
        return snapshot, by_uri
    for finding in snapshot.findings:
        cell, line = where(finding.line)
        if cell in units:
            end = finding.end_line + line - finding.line if finding.end_line else 0
            by_uri[cell].append(finding_diag(finding, units[cell], line, end))
    return snapshot, by_uri
