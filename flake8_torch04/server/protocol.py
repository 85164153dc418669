"""``torch04 server``: the rules and their fixes in any editor, as a Language Server.

A Language Server Protocol server over stdio, built on pygls and lsprotocol
(``pip install 'flake8-torch04[server]'``; the flake8 plugin never imports
this module).  It

- publishes diagnostics when a Python file or a notebook is opened, changed or
  saved: the rule code, the message, the range (in the position encoding the
  client asked for: UTF-16 code units unless it offered another), and a link
  to the rule's page (see :func:`~flake8_torch04.ruledocs.rule_url`); a file
  that does not parse gets one error at its syntax error; a configuration
  that cannot be used is shown once (``window/showMessage``) and as an error
  on the configuration file, and the default rules apply meanwhile;
- offers code actions on those diagnostics: ``Fix TVnnn: ...`` for a finding
  whose fix can be applied (safe fixes are the preferred quick fix, unsafe ones
  say "(unsafe)" in their title and are never preferred), ``Disable TVnnn for
  this line`` (adds or extends a ``# noqa`` comment), and ``Fix all safe TV
  findings`` (``source.fixAll.torch04``), which edits the text exactly as
  ``torch04 check --fix`` would;
- runs the command ``torch04.fixAll`` (arguments: a document URI), which asks
  the client to apply the same edit (``workspace/applyEdit``).

How it stays quick: the text is checked in a worker process (see
``worker.py``), so that the messages are read and answered while it works (a
thread would hold the interpreter's lock through a parse), one analysis at a
time: at once after a pause in typing, else :data:`DEBOUNCE` seconds after
the last change; the diagnostics of a version that changed meanwhile are
never published.  The worker keeps each document's last analysis (a
:class:`~flake8_torch04.server.worker.Snapshot`: findings with their fixes'
edits), the server what code actions are listed from (a :class:`View`):
they are listed without checking again, and with a client that resolves
code actions (LSP 3.16 ``codeAction/resolve``) an action's edit is made by
the worker only when it is picked; "Fix all" runs the fixer only when
``source.fixAll`` is asked for or the action is picked.  The configuration of
each file is read once and kept until a configuration file changes
(``didSave``, ``workspace/didChangeWatchedFiles``); where the project's files
are is forgotten when a Python file is saved or changes.

With ``trace`` set (``initialize`` or ``$/setTrace``), each analysis is told
in a ``$/logTrace`` notification (``analysed URI vN in T ms``, or
``superseded``).  Notebooks opened as notebook documents get diagnostics on
their Python code cells, checked together as ``torch04`` checks a ``.ipynb``.
"""
from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..analysis.findings import SAFE
from ..ruledocs import rule_url
from . import worker
from .worker import SOURCE, Diag, FileSettings, Item, Result

FIX_ALL_KIND = "source.fixAll.torch04"
FIX_ALL_COMMAND = "torch04.fixAll"
FIX_ALL_TITLE = "Fix all safe TV findings"
#: seconds of quiet after a change before the text is checked
DEBOUNCE = 0.05
#: a text whose analysis takes longer is never checked at the first keystroke
#: (the analysis of a burst's first version would delay that of its last)
QUICK = 0.1
#: seconds after a save before the other open files are checked again
RECHECK = 0.25
#: seconds a code action request waits for the analysis of the current text
WAIT = 2.0
#: seconds without an analysis after which the worker collects its garbage
IDLE = 1.0
#: configuration files (a change re-reads the configuration)
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini", ".flake8")


def _path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri


def _uri(path: str) -> str:
    from pathlib import Path

    return Path(path).as_uri()


class Job(NamedTuple):
    """An analysis: what it reads, taken on the message loop when it starts."""

    uri: str
    generation: int
    version: Optional[int]
    text: str
    path: str
    #: a notebook's cells: (cell URI, or None for a markdown cell; source)
    cells: Optional[List[Tuple[Optional[str], str]]] = None


class View(NamedTuple):
    """What the server keeps of a document's last analysis (the worker
    keeps the rest: the text's tree, the findings' fixes)."""

    uri: str
    version: Optional[int]
    text: str
    items: List[Item]
    rescued: bool
    fixable: bool
    settings: FileSettings

    def in_lines(self, first: int, last: int) -> List[Item]:
        """The findings whose range meets lines ``first``..``last`` (1-based)."""
        return [i for i in self.items if i.line <= last and i.end_line >= first]


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
        self.pool: Optional[ProcessPoolExecutor] = None
        self.views: Dict[str, View] = {}  # by document (or notebook) URI
        self.cell_owner: Dict[str, str] = {}  # cell URI -> notebook URI
        #: a document's generation: one more at each change; an analysis
        #: publishes only when its generation is still the document's
        self.generation: Dict[str, int] = {}
        self.due: Dict[str, float] = {}  # documents to analyse -> from when (monotonic)
        self.changed: Dict[str, float] = {}  # when a document last changed
        self.seconds: Dict[str, float] = {}  # how long its last analysis took
        self.running: Optional[Job] = None  # the analysis under way
        self.timer: Optional[asyncio.TimerHandle] = None
        self.idle: Optional[asyncio.TimerHandle] = None  # the garbage collection's
        self.waiters: Dict[str, List[asyncio.Future]] = {}
        self.config_errors: Dict[str, str] = {}  # configuration file -> error published
        self.shown: Set[Tuple[Optional[str], str]] = set()  # errors told by showMessage
        self.analyses = 0  # analyses run (superseded ones included)
        self.resolves = True  # the client resolves code actions' edits

    # -- the worker process -------------------------------------------------

    def executor(self) -> ProcessPoolExecutor:
        """The process that analyses and fixes (started at once, then kept):
        a process of its own, so that the messages are read and answered
        while it works."""
        if self.pool is None:
            import multiprocessing

            self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=worker.start_worker)
        return self.pool

    async def in_worker(self, func, *args):
        return await asyncio.get_running_loop().run_in_executor(self.executor(), func, *args)

    def _lost_worker(self, error: BaseException) -> None:
        self.pool = None
        self.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Error,
            message=f"torch04: the analysis stopped ({type(error).__name__}: {error}); "
                    f"it restarts at the next change"))

    def encoding(self) -> str:
        encoding = self.workspace.position_codec.encoding
        return str(getattr(encoding, "value", encoding) or "utf-16")

    # -- the configuration and the project ---------------------------------

    def files_changed(self, paths: Sequence[str], saved: Optional[str] = None) -> None:
        """Forget what changed: the configuration when a configuration file
        did (every open document is checked again), where the project's
        modules are when a Python file did (the other open documents are)."""
        names = {os.path.basename(p) for p in paths}
        config = bool(names & set(CONFIG_FILES))
        python = any(p.endswith((".py", ".pyi")) for p in paths)
        if not config and not python:
            return
        self.executor().submit(worker.run_forget, None, config, True)
        if config:
            for file in list(self.config_errors):
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                    uri=_uri(file), diagnostics=[]))
            self.config_errors.clear()
        for uri in list(self.views):
            if uri != saved and uri not in self.cell_owner:
                self.schedule(uri, DEBOUNCE if config else RECHECK)

    # -- scheduling ---------------------------------------------------------

    def schedule(self, uri: str, delay: float = DEBOUNCE) -> None:
        """Check the document ``uri`` once it has not changed for ``delay``
        seconds: a change moves the time on, and the result of an analysis
        already running for an older version is dropped.  A change after
        :data:`DEBOUNCE` seconds of quiet is checked at once when the text's
        analysis is quick (typing checks the first keystroke and then the
        last of a burst)."""
        self.generation[uri] = self.generation.get(uri, 0) + 1
        now = time.monotonic()
        if delay == DEBOUNCE and now - self.changed.get(uri, 0.0) > DEBOUNCE \
                and self.seconds.get(uri, 0.0) < QUICK:
            delay = 0
        self.changed[uri] = now
        self.due[uri] = now + delay
        self._next()

    def forget(self, uri: str) -> None:
        self.generation[uri] = self.generation.get(uri, 0) + 1
        self.due.pop(uri, None)
        if self.views.pop(uri, None) is not None and self.pool is not None:
            self.pool.submit(worker.run_forget, uri)
        self._wake(uri)

    def pending(self, uri: str) -> bool:
        return uri in self.due or (self.running is not None and self.running.uri == uri)

    def _next(self) -> None:
        """Start the analysis that is due, one at a time (the worker runs
        them in order: a text that changes meanwhile waits, and only its
        newest version is analysed next)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        loop = asyncio.get_running_loop()
        if self.running is None and not self.due and self.pool is not None:
            self.idle = loop.call_later(IDLE, self._collect)
        if self.running is not None or not self.due:
            return
        uri, when = min(self.due.items(), key=lambda item: item[1])
        wait = when - time.monotonic()
        if wait > 0:
            self.timer = loop.call_later(wait, self._next)
            return
        del self.due[uri]
        job = self._job(uri)
        if job is None:
            self._wake(uri)
            self._next()
            return
        self.running = job
        try:
            future = loop.run_in_executor(
                self.executor(), worker.run_analysis, job.uri, job.version, job.text,
                job.path, self.encoding(), job.cells)
        except BrokenProcessPool as exc:
            self.running = None
            self._lost_worker(exc)
            return
        future.add_done_callback(lambda done: self._done(job, done))

    def _collect(self) -> None:
        """(When no analysis ran for :data:`IDLE` seconds.)"""
        self.idle = None
        if self.pool is not None and self.running is None and not self.due:
            self.pool.submit(worker.run_collect)

    def _job(self, uri: str) -> Optional[Job]:
        """The text of the document as it is now (``None``: not one to check)."""
        generation = self.generation.get(uri, 0)
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is not None:
            cells: List[Tuple[Optional[str], str]] = []
            for cell in notebook.cells:
                if cell.kind == types.NotebookCellKind.Code:
                    self.cell_owner[cell.document] = uri
                    cells.append((cell.document,
                                  self.workspace.get_text_document(cell.document).source))
                else:
                    cells.append((None, ""))
            return Job(uri, generation, notebook.version, "", _path(uri), cells)
        doc = self.workspace.text_documents.get(unquote(uri))
        if doc is None or (doc.language_id not in (None, "", "python")
                           and not uri.endswith(".py")):
            return None
        return Job(uri, generation, doc.version, doc.source, _path(uri))

    def _done(self, job: Job, future: "asyncio.Future[Optional[Result]]") -> None:
        """(On the loop.)  Publish an analysis' diagnostics unless its
        document changed meanwhile; start the next."""
        self.running = None
        result = None
        try:
            result = future.result()
        except BrokenProcessPool as exc:
            self._lost_worker(exc)
        except Exception as exc:  # a bug: say it, keep serving
            self.window_log_message(types.LogMessageParams(
                type=types.MessageType.Error,
                message=f"torch04: {job.uri}: {type(exc).__name__}: {exc}"))
        if result is not None:
            self.analyses += 1
            self.seconds[job.uri] = result.seconds
            if self.generation.get(job.uri) == job.generation:
                self._store(job, result)
            else:
                self._trace(f"analysed {job.uri} v{job.version} in "
                            f"{result.seconds * 1000:.0f} ms: superseded, not published")
        self._wake(job.uri)
        self._next()

    def _store(self, job: Job, result: Result) -> None:
        self.views[job.uri] = View(job.uri, job.version, job.text, result.items,
                                   result.rescued, result.fixable, result.settings)
        for uri, found in result.by_uri.items():
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, diagnostics=[to_diagnostic(d) for d in found],
                version=job.version if uri == job.uri else None))
        self._trace(f"analysed {job.uri} v{job.version} in {result.seconds * 1000:.0f} ms: "
                    f"{len(result.items)} findings, published")
        self._report_config(result.settings)

    def _wake(self, uri: str) -> None:
        for waiter in self.waiters.pop(uri, ()):
            if not waiter.done():
                waiter.set_result(None)

    async def current(self, uri: str, wait: float = WAIT) -> Optional[View]:
        """What is known of the document's current text, waiting for its
        analysis when one is pending (``None``: none within ``wait`` seconds)."""
        deadline = time.monotonic() + wait
        while True:
            view = self.views.get(uri)
            if not self.pending(uri):
                return view if view is not None and self._fresh(view) else None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.setdefault(uri, []).append(waiter)
            try:
                await asyncio.wait_for(waiter, left)
            except asyncio.TimeoutError:
                return None

    def _fresh(self, view: View) -> bool:
        doc = self.workspace.text_documents.get(unquote(view.uri))
        if doc is None:
            return False
        if doc.version is not None and view.version is not None:
            return doc.version == view.version
        return doc.source == view.text

    # -- messages -----------------------------------------------------------

    def _trace(self, message: str) -> None:
        if self.protocol.trace not in (None, types.TraceValue.Off):
            self.log_trace(types.LogTraceParams(message=message))

    def _report_config(self, settings: FileSettings) -> None:
        """A configuration error: once as a message, and on the configuration file."""
        if settings.error is None:
            return
        file = settings.error_file
        if file is not None and self.config_errors.get(file) != settings.error:
            self.config_errors[file] = settings.error
            line, col, end = settings.error_at or (0, 0, 0)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=_uri(file), diagnostics=[types.Diagnostic(
                    range=types.Range(start=types.Position(line=line, character=col),
                                      end=types.Position(line=line, character=end)),
                    message=settings.error, severity=types.DiagnosticSeverity.Error,
                    source=SOURCE)]))
        if (file, settings.error) not in self.shown:
            self.shown.add((file, settings.error))
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error,
                message=f"torch04: {settings.error} (the default rules apply until it is "
                        f"fixed)"))

    # -- code actions -------------------------------------------------------

    async def code_actions(self, params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        only = params.context.only
        if uri in self.cell_owner or self.workspace.get_notebook_document(notebook_uri=uri):
            return []  # (notebooks: diagnostics only)
        view = await self.current(uri)
        if view is None:
            return []
        actions: List[types.CodeAction] = []
        if not only or _asked(types.CodeActionKind.QuickFix, only):
            actions.extend(self._quick_fixes(view, params))
        if only and any(k in (types.CodeActionKind.SourceFixAll, FIX_ALL_KIND) for k in only):
            action = await self.fix_all_action(view)  # (asked for: the fixer runs)
            if action is not None:
                actions.append(action)
        elif (not only or _asked(FIX_ALL_KIND, only)) and view.fixable:
            title = _fix_all_title(view.settings)
            actions.append(types.CodeAction(
                title=title, kind=FIX_ALL_KIND,
                data={"uri": uri, "version": view.version, "action": "fixAll"},
                command=None if self.resolves else types.Command(
                    title=title, command=FIX_ALL_COMMAND, arguments=[uri])))
        if not self.resolves:  # the client cannot ask for the edits later
            for index, action in enumerate(actions):
                if action.edit is None and action.command is None:
                    actions[index] = await self.resolve(action)
        return actions

    def _quick_fixes(self, view: View, params: types.CodeActionParams) -> List[types.CodeAction]:
        """Each finding's fix and ``# noqa`` in the range, from what the last
        analysis said: no edit is made here (see :meth:`resolve`)."""
        asked = params.context.diagnostics
        wanted = {d.code for d in asked if d.source == SOURCE}
        actions = []
        for item in view.in_lines(params.range.start.line + 1, params.range.end.line + 1):
            if asked and item.code not in wanted:
                continue
            matched = [d for d in asked if d.code == item.code and isinstance(d.data, dict)
                       and d.data.get("line") == item.line
                       and d.data.get("col") == item.col] or None
            data = {"uri": view.uri, "version": view.version, "code": item.code,
                    "line": item.line, "col": item.col}
            if item.offer is not None:
                unsafe = item.offer != SAFE
                actions.append(types.CodeAction(
                    title=f"Fix {item.code}" + (" (unsafe)" if unsafe else "")
                          + f": {_suggestion(item.message)}",
                    kind=types.CodeActionKind.QuickFix, diagnostics=matched,
                    is_preferred=not unsafe, data=dict(data, action="fix")))
            if not view.rescued:
                actions.append(types.CodeAction(
                    title=f"Disable {item.code} for this line",
                    kind=types.CodeActionKind.QuickFix, diagnostics=matched,
                    data=dict(data, action="noqa")))
        return actions

    async def fix_all_action(self, view: View) -> Optional[types.CodeAction]:
        """The "Fix all" action with its edit (the fixer runs)."""
        action = await self.resolve(types.CodeAction(
            title=_fix_all_title(view.settings), kind=FIX_ALL_KIND,
            data={"uri": view.uri, "version": view.version, "action": "fixAll"}))
        return action if action.edit is not None else None

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        """The action with its edit, made now by the worker from the text's
        last analysis: a quick fix's from its finding's edits, the fix-all's
        by the fixer."""
        data = action.data if isinstance(action.data, dict) else {}
        uri, version, what = data.get("uri"), data.get("version"), data.get("action")
        view = await self.current(uri) if isinstance(uri, str) else None
        if view is None or view.version != version:
            return action  # the text changed since: the client asks again
        try:
            edits, why = await self.in_worker(
                worker.run_edit, uri, version, what, data.get("code", ""),
                data.get("line", 0), data.get("col", 0), self.encoding())
        except BrokenProcessPool as exc:
            self._lost_worker(exc)
            return action
        if edits is None:
            if what == "fix":
                self.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"torch04: {data.get('code')} fix not applied: {why}"))
            return action
        if not self._fresh(view):
            return action
        action.edit = types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=uri, version=version),
            edits=[types.TextEdit(range=types.Range(
                start=types.Position(line=l0, character=c0),
                end=types.Position(line=l1, character=c1)), new_text=text)
                for l0, c0, l1, c1, text in edits])])
        return action


def to_diagnostic(diag: Diag) -> types.Diagnostic:
    l0, c0, l1, c1 = diag.range
    rng = types.Range(start=types.Position(line=l0, character=c0),
                      end=types.Position(line=l1, character=c1))
    if diag.code is None:
        return types.Diagnostic(range=rng, message=diag.message, source=SOURCE,
                                severity=types.DiagnosticSeverity.Error)
    return types.Diagnostic(
        range=rng, message=diag.message, severity=types.DiagnosticSeverity.Warning,
        code=diag.code, code_description=types.CodeDescription(href=rule_url(diag.code)),
        source=SOURCE, data={"line": diag.line, "col": diag.col, "code": diag.code})


def _asked(kind: str, only: Sequence[str]) -> bool:
    """Whether ``only`` asks for actions of ``kind`` (a kind or one of its parents)."""
    return any(kind == k or kind.startswith(k + ".") for k in only)


def _fix_all_title(settings: FileSettings) -> str:
    return "Fix all TV findings (unsafe fixes too)" if settings.unsafe_fixes else FIX_ALL_TITLE


def _suggestion(message: str) -> str:
    """The fix part of a message (after ``; ``), for an action's title."""
    return message.rsplit("; ", 1)[-1]


def build_server() -> Torch04Server:
    server = Torch04Server()

    @server.feature(types.INITIALIZE)
    def initialize(ls: Torch04Server, params: types.InitializeParams) -> None:
        if params.trace is not None:
            ls.protocol.trace = params.trace
        action = params.capabilities.text_document and \
            params.capabilities.text_document.code_action
        support = action.resolve_support if action is not None else None
        ls.resolves = bool(support and "edit" in support.properties and action.data_support)
        ls.executor().submit(worker.warm)  # (the worker starts while the client does)

    @server.feature(types.INITIALIZED)
    def initialized(ls: Torch04Server, params: types.InitializedParams) -> None:
        workspace = ls.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is not None and watched.dynamic_registration:
            ls.client_register_capability(types.RegistrationParams(registrations=[
                types.Registration(
                    id="torch04-watched-files",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                        watchers=[types.FileSystemWatcher(glob_pattern=f"**/{name}")
                                  for name in CONFIG_FILES + ("*.py",)]))]))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: Torch04Server, *args) -> None:
        if ls.pool is not None:
            ls.pool.shutdown(wait=False, cancel_futures=True)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: Torch04Server, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in ls.cell_owner:
            ls.schedule(ls.cell_owner[uri])
        else:
            ls.schedule(uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: Torch04Server, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.schedule(ls.cell_owner.get(uri, uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: Torch04Server, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.files_changed([_path(uri)], saved=uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: Torch04Server, params: types.DidChangeWatchedFilesParams) -> None:
        ls.files_changed([_path(change.uri) for change in params.changes])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Torch04Server, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri not in ls.cell_owner:
            ls.forget(uri)
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: Torch04Server, params: types.DidOpenNotebookDocumentParams) -> None:
        for cell in params.notebook_document.cells:
            ls.cell_owner[cell.document] = params.notebook_document.uri
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: Torch04Server,
                        params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: Torch04Server, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.files_changed([_path(params.notebook_document.uri)])

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: Torch04Server, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.forget(params.notebook_document.uri)
        for cell in params.cell_text_documents:
            ls.cell_owner.pop(cell.uri, None)
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix,
                                                   FIX_ALL_KIND],
                                resolve_provider=True),
    )
    async def code_action(ls: Torch04Server, params: types.CodeActionParams):
        return await ls.code_actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: Torch04Server, action: types.CodeAction):
        return await ls.resolve(action)

    @server.command(FIX_ALL_COMMAND)
    async def fix_all_command(ls: Torch04Server, *args: Any):
        uri = args[0] if args else None
        if isinstance(uri, list):  # (pygls passes the arguments as one list)
            uri = uri[0] if uri else None
        view = await ls.current(uri) if isinstance(uri, str) else None
        if view is None:
            return None
        action = await ls.fix_all_action(view)
        if action is not None:
            ls.workspace_apply_edit(types.ApplyWorkspaceEditParams(
                edit=action.edit, label=action.title))
        return None

    return server


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve over stdio until the client exits."""
    build_server().start_io()
    return 0
