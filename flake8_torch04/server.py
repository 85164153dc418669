"""``torch04 server``: the rules and their fixes in any editor, as a Language Server.

A Language Server Protocol server over stdio, built on pygls and lsprotocol
(``pip install 'flake8-torch04[server]'``; the flake8 plugin never imports
this module).  It

- publishes diagnostics when a Python file or a notebook is opened, changed or
  saved: the rule code, the message, the range (in the position encoding the
  client asked for: UTF-16 code units unless it offered another), and, where
  the rules' documentation can be linked, a link to it;
- offers code actions on those diagnostics: ``Fix TVnnn: ...`` for a finding
  whose fix can be applied (safe fixes are the preferred quick fix, unsafe ones
  say "(unsafe)" in their title and are never preferred), ``Disable TVnnn for
  this line`` (adds or extends a ``# noqa`` comment), and ``Fix all safe TV
  findings`` (``source.fixAll.torch04``), which edits the text exactly as
  ``torch04 check --fix`` would;
- runs the command ``torch04.fixAll`` (arguments: a document URI), which asks
  the client to apply the same edit (``workspace/applyEdit``).

It reads the same configuration as ``torch04 check`` for each file (see
:func:`settings_for`).  Notebooks opened as notebook documents get diagnostics
on their Python code cells, checked together as ``torch04`` checks a ``.ipynb``.
"""
from __future__ import annotations

import difflib
import json
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from . import __version__
from .analysis.findings import SAFE, Finding
from .fix.analysis import Analysis
from .fix.fixer import fix_text

SOURCE = "torch04"
FIX_ALL_KIND = "source.fixAll.torch04"
FIX_ALL_COMMAND = "torch04.fixAll"


# ---------------------------------------------------------------------------
# what is checked, and with which codes


def settings_for(path: str) -> Tuple[Tuple[str, ...], bool]:
    """The codes to report for ``path`` and whether unsafe fixes are offered, from
    the one configuration model (``config/settings.py``), as ``torch04 check``
    decides them for that file: the closest ``[tool.torch04]``, else ``[flake8]``
    as flake8 finds it (from the server's directory when the file lies under it,
    else from the file's).  A file the configuration excludes gets no diagnostics,
    as in Ruff's server.  Unsafe fixes are offered as code actions (marked as
    such) unless the configuration says ``unsafe-fixes = false``."""
    from .config import settings as config_settings
    from .config.select import UsageError

    where = path if os.path.isabs(path) else None
    try:
        settings = config_settings.load(where)
    except UsageError:
        settings = config_settings.load(where, isolated=True)
    if where is not None and settings.excluded(path):
        return (), False
    return settings.codes_for(path), settings.unsafe_fixes is not False


def _path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri


def analyse(text: str, path: str) -> Tuple[Optional[Analysis], Optional[List[Finding]]]:
    """The analysis of ``text`` (``None`` when it does not parse) and, for a file
    that parses only once its ``async=`` keywords are renamed (TV101), its
    findings in the original text's coordinates."""
    codes, _ = settings_for(path)
    try:
        return Analysis(text, codes, path), None
    except (SyntaxError, ValueError):
        pass
    if "TV101" not in codes:
        return None, None
    from .analysis.rescue import rescue, rescued_findings
    from .source.parse import parse

    rescued = rescue(text, parse)
    if rescued is None:
        return None, None
    try:
        analysis = Analysis(rescued.text, codes, path)
    except (SyntaxError, ValueError):
        return None, None
    return analysis, rescued_findings(rescued, analysis)[0]


# ---------------------------------------------------------------------------
# positions


def _line_texts(text: str) -> List[str]:
    from .source.text import lines_of

    return lines_of(text)


class Positions:
    """Character columns of the rules to the client's code units, and back."""

    def __init__(self, server: "Torch04Server", text: str) -> None:
        self.codec = server.workspace.position_codec
        self.lines = _line_texts(text)

    def position(self, line: int, col: int) -> types.Position:
        """A 1-based line and a 0-based character column as an LSP position."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return types.Position(line=line - 1, character=self.codec.client_num_units(text[:col]))

    def range(self, finding: Finding) -> types.Range:
        start = self.position(finding.line, finding.col)
        if finding.end_line:
            end = self.position(finding.end_line, finding.end_col)
        else:
            end = types.Position(line=start.line, character=start.character + 1)
        return types.Range(start=start, end=end)

    def text_edits(self, old: str, new: str) -> List[types.TextEdit]:
        """The line-level edits that turn ``old`` (this object's text) into ``new``."""
        new_lines = _line_texts(new)
        matcher = difflib.SequenceMatcher(None, self.lines, new_lines, autojunk=False)
        edits = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            edits.append(types.TextEdit(
                range=types.Range(start=types.Position(line=i1, character=0),
                                  end=types.Position(line=i2, character=0)),
                new_text="".join(new_lines[j1:j2]),
            ))
        if edits and not old.endswith(("\n", "\r")) and self.lines:
            # the last line has no newline: a range ending past it ends at its end
            last = len(self.lines)
            for index, edit in enumerate(edits):
                if edit.range.end.line == last:
                    end = types.Position(line=last - 1,
                                         character=self.codec.client_num_units(self.lines[-1]))
                    edits[index] = types.TextEdit(
                        range=types.Range(start=edit.range.start, end=end),
                        new_text=edit.new_text)
        return edits


# ---------------------------------------------------------------------------
# documentation links


def docs_href(code: str, name: str) -> Optional[str]:
    """The address of the rule's page (``ruledocs.rule_url``: the repository's
    ``docs/rules/TVnnn.md``, or ``TORCH04_DOCS_URL``)."""
    from .ruledocs import rule_url

    return rule_url(code)


def _rule_name(code: str) -> str:
    from .analysis.registry import load

    return load(code).name


# ---------------------------------------------------------------------------
# the server


class Document:
    """One checked text: a file, or a notebook's code cells joined."""

    def __init__(self, uri: str, text: str, path: str,
                 cells: Optional[Dict[int, str]] = None, notebook=None) -> None:
        self.uri = uri
        self.text = text
        self.path = path
        self.cells = cells  # notebook: cell number -> cell URI
        self.analysis, self.rescued = analyse(text, path)
        self._locator = notebook.locator(text) if notebook is not None else None

    def where(self, line: int) -> Tuple[str, int]:
        """The URI and line (1-based) a line of the checked text is shown at."""
        if self._locator is None:
            return self.uri, line
        cell, cell_line = self._locator(line)
        return self.cells.get(cell, self.uri), cell_line

    @property
    def findings(self) -> List[Finding]:
        if self.rescued is not None:
            return self.rescued
        return self.analysis.findings if self.analysis is not None else []


class Torch04Server(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "torch04", __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    notebook="jupyter-notebook",
                    cells=[types.NotebookCellLanguage(language="python")],
                )],
                save=True,
            ),
        )
        self.documents: Dict[str, Document] = {}  # by the URI diagnostics are keyed to
        self.cell_owner: Dict[str, str] = {}  # cell URI -> notebook URI

    # -- checking -----------------------------------------------------------

    def check_text_document(self, uri: str) -> None:
        if uri in self.cell_owner:
            self.check_notebook(self.cell_owner[uri])
            return
        doc = self.workspace.get_text_document(uri)
        if doc.language_id not in (None, "", "python") and not uri.endswith(".py"):
            return
        document = Document(uri, doc.source, _path(uri))
        self.documents[uri] = document
        self.publish(document, {uri: []})

    def check_notebook(self, notebook_uri: str) -> None:
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if notebook is None:
            return
        cells, uris = [], {}
        for number, cell in enumerate(notebook.cells, 1):
            if cell.kind == types.NotebookCellKind.Code:
                source = self.workspace.get_text_document(cell.document).source
                cells.append({"cell_type": "code", "source": source, "metadata": {},
                              "outputs": [], "execution_count": None})
            else:
                cells.append({"cell_type": "markdown", "source": "", "metadata": {}})
            uris[number] = cell.document
            self.cell_owner[cell.document] = notebook_uri
        from .source.notebook import Notebook, NotebookError

        raw = json.dumps({"cells": cells, "metadata": {"language_info": {"name": "python"}},
                          "nbformat": 4, "nbformat_minor": 5})
        try:
            parsed = Notebook(raw)
        except NotebookError:
            return
        document = Document(notebook_uri, parsed.text, _path(notebook_uri), cells=uris,
                            notebook=parsed)
        self.documents[notebook_uri] = document
        for uri in uris.values():
            self.documents[uri] = document
        self.publish(document, {uri: [] for uri in uris.values()})

    def publish(self, document: Document, by_uri: Dict[str, List[types.Diagnostic]]) -> None:
        for finding in document.findings:
            uri, line = document.where(finding.line)
            by_uri.setdefault(uri, []).append(self.diagnostic(document, finding, uri, line))
        for uri, diagnostics in by_uri.items():
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    def _cell_positions(self, document: Document, uri: str) -> Positions:
        text = document.text if uri == document.uri else \
            self.workspace.get_text_document(uri).source
        return Positions(self, text)

    def diagnostic(self, document: Document, finding: Finding, uri: str,
                   line: int) -> types.Diagnostic:
        positions = self._cell_positions(document, uri)
        shift = line - finding.line
        shifted = finding._replace(line=line, end_line=(finding.end_line + shift
                                                        if finding.end_line else 0))
        href = docs_href(finding.code, _rule_name(finding.code))
        return types.Diagnostic(
            range=positions.range(shifted),
            message=finding.message,
            severity=types.DiagnosticSeverity.Warning,
            code=finding.code,
            code_description=types.CodeDescription(href=href) if href else None,
            source=SOURCE,
            data={"line": finding.line, "col": finding.col, "code": finding.code},
        )

    # -- fixing -------------------------------------------------------------

    def fixed_text(self, document: Document, finding: Optional[Finding] = None,
                   unsafe: bool = False) -> Optional[str]:
        """The text after fixing one finding, or every applicable one (``None``: no change)."""
        codes, _ = settings_for(document.path)
        first = [True]

        def analyse_once(text: str) -> Analysis:
            analysis = Analysis(text, codes, document.path)
            if finding is not None:
                keep = [f for f in analysis.findings
                        if first and (f.code, f.line, f.col) ==
                        (finding.code, finding.line, finding.col)]
                analysis.findings = keep
                first.clear()
            return analysis

        result = fix_text(document.text, analyse_once, unsafe or finding is not None,
                          max_rounds=1 if finding is not None else 10)
        return result.text if result.text != document.text else None

    def edit(self, document: Document, new: str) -> types.WorkspaceEdit:
        edits = Positions(self, document.text).text_edits(document.text, new)
        version = self.workspace.get_text_document(document.uri).version
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=document.uri, version=version),
            edits=edits,
        )])

    def code_actions(self, params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        document = self.documents.get(uri)
        if document is None or document.cells is not None or document.rescued is not None:
            return []  # (notebooks, and files rescued from ``async=``: diagnostics only)
        only = params.context.only
        actions: List[types.CodeAction] = []
        wanted = {d.code for d in params.context.diagnostics if d.source == SOURCE}
        _, unsafe_allowed = settings_for(document.path)
        if not only or any(k in (types.CodeActionKind.QuickFix,) for k in only):
            for finding in self._findings_in(document, params.range):
                if params.context.diagnostics and finding.code not in wanted:
                    continue
                diagnostics = [d for d in params.context.diagnostics
                               if d.code == finding.code and d.data and
                               d.data.get("line") == finding.line and
                               d.data.get("col") == finding.col]
                fix = finding.fix
                if fix is not None and document.analysis.blocker(finding) is None and (
                        fix.safety == SAFE or unsafe_allowed):
                    new = self.fixed_text(document, finding)
                    if new is not None:
                        unsafe = fix.safety != SAFE
                        actions.append(types.CodeAction(
                            title=f"Fix {finding.code}" + (" (unsafe)" if unsafe else "")
                                  + f": {_suggestion(finding.message)}",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=diagnostics or None,
                            is_preferred=not unsafe,
                            edit=self.edit(document, new),
                        ))
                actions.append(types.CodeAction(
                    title=f"Disable {finding.code} for this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diagnostics or None,
                    edit=self.edit(document, add_noqa(document.text, finding)),
                ))
        if not only or any(FIX_ALL_KIND.startswith(k) or k == types.CodeActionKind.SourceFixAll
                           for k in only):
            new = self.fixed_text(document)
            if new is not None:
                actions.append(types.CodeAction(
                    title="Fix all safe TV findings", kind=FIX_ALL_KIND,
                    edit=self.edit(document, new),
                ))
        return actions

    def _findings_in(self, document: Document, range_: types.Range) -> Iterable[Finding]:
        first, last = range_.start.line + 1, range_.end.line + 1
        seen = set()
        for finding in document.findings:
            end = finding.end_line or finding.line
            key = (finding.code, finding.line, finding.col)
            if finding.line <= last and end >= first and key not in seen:
                seen.add(key)
                yield finding


def _suggestion(message: str) -> str:
    """The fix part of a message (after ``; ``), for an action's title."""
    return message.rsplit("; ", 1)[-1]


def add_noqa(text: str, finding: Finding) -> str:
    """``text`` with a ``# noqa`` for the finding, where flake8 honours it (as
    ``torch04 check --add-noqa`` adds it)."""
    from .fix.addnoqa import add_noqa as add

    return add(text, [finding])[0]


def build_server() -> Torch04Server:
    server = Torch04Server()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: Torch04Server, params: types.DidOpenTextDocumentParams) -> None:
        ls.check_text_document(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: Torch04Server, params: types.DidChangeTextDocumentParams) -> None:
        ls.check_text_document(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: Torch04Server, params: types.DidSaveTextDocumentParams) -> None:
        ls.check_text_document(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Torch04Server, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri not in ls.cell_owner:
            ls.documents.pop(uri, None)
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: Torch04Server, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.check_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: Torch04Server,
                        params: types.DidChangeNotebookDocumentParams) -> None:
        ls.check_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: Torch04Server, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.check_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: Torch04Server, params: types.DidCloseNotebookDocumentParams) -> None:
        for cell in params.cell_text_documents:
            ls.cell_owner.pop(cell.uri, None)
            ls.documents.pop(cell.uri, None)
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))
        ls.documents.pop(params.notebook_document.uri, None)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix,
                                                   FIX_ALL_KIND]),
    )
    def code_action(ls: Torch04Server, params: types.CodeActionParams):
        return ls.code_actions(params)

    @server.command(FIX_ALL_COMMAND)
    def fix_all(ls: Torch04Server, *args: Any):
        uri = args[0] if args else None
        if isinstance(uri, list):  # (pygls passes the arguments as one list)
            uri = uri[0] if uri else None
        document = ls.documents.get(uri) if isinstance(uri, str) else None
        if document is None or document.cells is not None or document.rescued is not None:
            return None
        new = ls.fixed_text(document)
        if new is None:
            return None
        ls.workspace_apply_edit(types.ApplyWorkspaceEditParams(
            edit=ls.edit(document, new), label="Fix all safe TV findings"))
        return None

    return server


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve over stdio until the client exits."""
    build_server().start_io()
    return 0
