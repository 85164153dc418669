"""``torch04 server`` as an editor drives it: a real LSP client session over stdio."""
import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "legacy_train.py"


def apply_edits(text, edits):
    """Apply LSP TextEdits (UTF-16 positions) to ``text`` as an editor does."""
    lines = text.splitlines(keepends=True)

    def offset(pos):
        before = "".join(lines[:pos.line])
        line = lines[pos.line] if pos.line < len(lines) else ""
        units, chars = 0, 0
        while units < pos.character and chars < len(line):
            units += 2 if ord(line[chars]) > 0xFFFF else 1
            chars += 1
        return len(before) + chars

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


class Session:
    """A client connected to ``python -m flake8_torch04 server``."""

    def __init__(self):
        self.client = LanguageClient("test-editor", "1")
        self.diagnostics = {}
        self.published = asyncio.Event()
        self.applied = []
        self.publications = []  # every publishDiagnostics, in order
        self.messages = []  # window/showMessage
        self.traces = []  # $/logTrace

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params):
            self.diagnostics[params.uri] = params.diagnostics
            self.publications.append(params)
            self.published.set()

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def show(params):
            self.messages.append(params)

        @self.client.feature(types.LOG_TRACE)
        def trace(params):
            self.traces.append(params.message)

        @self.client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params):
            self.applied.append(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

    async def start(self, root, notebooks=False, resolve=False, trace=False, **process):
        """``resolve``: the client resolves code actions' edits (as VS Code);
        ``trace``: the server tells each analysis; ``process``: ``env``, ``cwd``."""
        await self.client.start_io(sys.executable, "-m", "flake8_torch04", "server", **process)
        capabilities = types.ClientCapabilities(
            general=types.GeneralClientCapabilities(
                position_encodings=[types.PositionEncodingKind.Utf16]),
            notebook_document=types.NotebookDocumentClientCapabilities(
                synchronization=types.NotebookDocumentSyncClientCapabilities())
            if notebooks else None,
            workspace=types.WorkspaceClientCapabilities(apply_edit=True),
            text_document=types.TextDocumentClientCapabilities(
                code_action=types.CodeActionClientCapabilities(
                    code_action_literal_support=types.ClientCodeActionLiteralOptions(
                        code_action_kind=types.ClientCodeActionKindOptions(
                            value_set=["quickfix", "source.fixAll"])),
                    data_support=True,
                    resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])))
            if resolve else None,
        )
        result = await self.client.initialize_async(types.InitializeParams(
            capabilities=capabilities, root_uri=Path(root).as_uri(), process_id=None,
            trace=types.TraceValue.Verbose if trace else None))
        self.client.initialized(types.InitializedParams())
        return result

    async def wait(self, uri):
        for _ in range(200):
            if uri in self.diagnostics:
                return self.diagnostics.pop(uri)
            self.published.clear()
            try:
                await asyncio.wait_for(self.published.wait(), 0.5)
            except asyncio.TimeoutError:
                pass
        raise AssertionError(f"no diagnostics for {uri}")

    async def open(self, path, text, version=1):
        uri = Path(path).as_uri()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python",
                                                 version=version, text=text)))
        return uri, await self.wait(uri)

    async def change(self, uri, version, text):
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def actions(self, uri, diagnostics, line=0, end=10**6, only=None):
        return await self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=line, character=0),
                              end=types.Position(line=end, character=0)),
            context=types.CodeActionContext(diagnostics=diagnostics, only=only)))

    async def close(self):
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


def torch04_fix(path, *flags):
    subprocess.run([sys.executable, "-m", "flake8_torch04", "check", "--fix", "-q", *flags,
                    str(path)], capture_output=True, check=False)
    return path.read_text(encoding="utf-8")


def test_fix_all_equals_torch04_check_fix(tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    copy = tmp_path / "legacy_train.py"
    copy.write_text(text, encoding="utf-8")
    expected = torch04_fix(copy)
    assert expected != text

    async def session():
        s = Session()
        result = await s.start(tmp_path)
        kinds = result.capabilities.code_action_provider.code_action_kinds
        assert "source.fixAll.torch04" in kinds
        uri, diagnostics = await s.open(tmp_path / "legacy_train.py", text)
        assert {d.code for d in diagnostics} >= {"TV001", "TV002", "TV003", "TV004"}
        assert all(d.source == "torch04" and d.message for d in diagnostics)
        actions = await s.actions(uri, [], only=["source.fixAll.torch04"])
        assert [a.title for a in actions] == ["Fix all safe TV findings"]
        edits = actions[0].edit.document_changes[0].edits
        fixed = apply_edits(text, edits)
        # the command does the same through workspace/applyEdit
        await s.client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="torch04.fixAll", arguments=[uri]))
        for _ in range(100):
            if s.applied:
                break
            await asyncio.sleep(0.05)
        await s.close()
        return fixed, s.applied

    fixed, applied = run(session())
    assert fixed == expected
    assert len(applied) == 1
    assert apply_edits(text, applied[0].document_changes[0].edits) == expected


SOURCE = textwrap.dedent("""\
    import torch
    from torch.autograd import Variable

    def step(model, x, opt):
        s = "héllo 😀"; out = Variable(x)
        loss = model(out).sum()
        loss.backward()
        opt.step()
        return loss.data[0]
""")


def test_diagnostics_quick_fixes_and_noqa_with_non_ascii_lines(tmp_path):
    async def session():
        s = Session()
        await s.start(tmp_path)
        uri, diagnostics = await s.open(tmp_path / "step.py", SOURCE)
        by_code = {d.code: d for d in diagnostics}
        assert set(by_code) == {"TV001", "TV003"}
        wrap = by_code["TV001"]
        # UTF-16 columns: the emoji counts two code units, "é" one
        line = SOURCE.splitlines()[4]
        assert wrap.range.start.line == 4
        assert wrap.range.start.character == len(line[:line.index("Variable")]) + 1
        actions = await s.actions(uri, [wrap], line=4, end=4)
        titles = [a.title for a in actions]
        assert titles[0].startswith("Fix TV001") and actions[0].is_preferred
        assert "Disable TV001 for this line" in titles
        fixed = apply_edits(SOURCE, actions[0].edit.document_changes[0].edits)
        assert 's = "héllo 😀"; out = x\n' in fixed
        noqa = next(a for a in actions if a.title.startswith("Disable"))
        silenced = apply_edits(SOURCE, noqa.edit.document_changes[0].edits)
        assert 'out = Variable(x)  # noqa: TV001\n' in silenced
        # the editor changes the text: diagnostics follow
        s.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=silenced)]))
        after = await s.wait(uri)
        await s.close()
        return after

    after = run(session())
    assert {d.code for d in after} == {"TV003"}


def test_unsafe_fixes_are_marked_and_never_preferred(tmp_path):
    source = textwrap.dedent("""\
        import torch

        def check(x):
            return type(x) == torch.FloatTensor
    """)

    async def session():
        s = Session()
        await s.start(tmp_path)
        uri, diagnostics = await s.open(tmp_path / "types.py", source)
        actions = await s.actions(uri, diagnostics)
        await s.close()
        return diagnostics, actions

    diagnostics, actions = run(session())
    assert [d.code for d in diagnostics] == ["TV005"]
    fix = next(a for a in actions if a.title.startswith("Fix TV005"))
    assert "(unsafe)" in fix.title and not fix.is_preferred
    assert "isinstance(x, torch.FloatTensor)" in apply_edits(
        source, fix.edit.document_changes[0].edits)


def test_a_file_that_does_not_parse_gets_one_error_at_its_syntax_error(tmp_path):
    async def session():
        s = Session()
        await s.start(tmp_path)
        _, broken = await s.open(tmp_path / "broken.py", "import torch\nx = 'é' + Variable(\n")
        _, fine = await s.open(tmp_path / "fine.py", SOURCE)
        await s.close()
        return broken, fine

    broken, fine = run(session())
    # where this Python's parser says (3.10+: at the "(" never closed; 3.9: at the
    # end of the line, "unexpected EOF while parsing"); "é" is one UTF-16 unit
    with pytest.raises(SyntaxError) as error:
        compile("import torch\nx = 'é' + Variable(\n", "broken.py", "exec")
    assert [(d.source, d.severity, d.range.start.line, d.range.start.character)
            for d in broken] == [("torch04", types.DiagnosticSeverity.Error,
                                 error.value.lineno - 1, error.value.offset - 1)]
    assert error.value.msg in broken[0].message
    if sys.version_info >= (3, 10):
        assert broken[0].range.start.character == "x = 'é' + Variable(".index("(")
    assert {d.code for d in fine} == {"TV001", "TV003"}


def test_a_file_the_configuration_excludes_gets_no_diagnostics(tmp_path):
    """As the pre-commit hook (`torch04 check --force-exclude`) skips it: a generated
    or vendored file open in the editor is not the project's to migrate."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torch04]\nextend-exclude = ["gen_*.py", "vendor"]\n', encoding="utf-8")
    (tmp_path / "vendor").mkdir()

    async def session():
        s = Session()
        await s.start(tmp_path)
        found = []
        for name in ("gen_a.py", "vendor/v.py", "kept.py"):
            _, diagnostics = await s.open(tmp_path / name, SOURCE)
            found.append({d.code for d in diagnostics})
        _, broken = await s.open(tmp_path / "gen_b.py", "x = (\n")
        await s.close()
        return found, broken

    (generated, vendored, kept), broken = run(session())
    assert (generated, vendored, list(broken)) == (set(), set(), [])
    assert kept == {"TV001", "TV003"}


def test_notebook_cells_get_their_own_diagnostics(tmp_path):
    cells = ["import torch\nfrom torch.autograd import Variable\n",
             "%matplotlib inline\nx = Variable(torch.ones(1))\n"]

    async def session():
        s = Session()
        await s.start(tmp_path, notebooks=True)
        nb_uri = (tmp_path / "nb.ipynb").as_uri()
        cell_uris = [f"{nb_uri}#cell{i}" for i in range(len(cells))]
        s.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=nb_uri, notebook_type="jupyter-notebook", version=1,
                cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=u)
                       for u in cell_uris]),
            cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python",
                                                        version=1, text=t)
                                 for u, t in zip(cell_uris, cells)]))
        second = await s.wait(cell_uris[1])
        await s.close()
        return second

    second = run(session())
    assert [(d.code, d.range.start.line, d.range.start.character) for d in second] == [
        ("TV001", 1, 4)]


@pytest.mark.parametrize("end", ["", "\n", "\r\n"])
def test_a_backslash_that_ends_a_cell_is_the_syntax_error_of_that_cell(tmp_path, end):
    """Python reports the next cell's marker line; the diagnostic goes to the
    cell the backslash ends, on it (it was on the next cell, at line -1)."""
    from flake8_torch04.server import worker

    path = str(tmp_path / "nb.ipynb")
    result = worker.run_analysis("file:///nb.ipynb", 1, "", path, "utf-16", [
        ("c1", "import torch\nx = 1 + \\" + end), (None, "# notes"), ("c3", "y = 2\n")])
    assert [(cell, d.range, d.message) for cell, found in result.by_uri.items()
            for d in found] == [("c1", (1, 8, 1, 9), "SyntaxError: invalid syntax")]


def test_the_configuration_of_torch04_check_applies(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.torch04]\nextend-ignore = ["TV003"]\n')

    async def session():
        s = Session()
        await s.start(tmp_path)
        _, diagnostics = await s.open(tmp_path / "step.py", SOURCE)
        await s.close()
        return diagnostics

    assert {d.code for d in run(session())} == {"TV001"}


def test_a_file_with_async_keywords_gets_its_findings_in_its_own_coordinates(tmp_path):
    source = ("import torch\nfrom torch.autograd import Variable\n"
              "x = Variable(torch.ones(1)).cuda(async=True)\n")

    async def session():
        s = Session()
        await s.start(tmp_path)
        _, diagnostics = await s.open(tmp_path / "old.py", source)
        await s.close()
        return diagnostics

    found = sorted((d.code, d.range.start.line, d.range.start.character) for d in run(session()))
    assert found == [("TV001", 2, 4), ("TV101", 2, 33)]


# ---------------------------------------------------------------------------
# code actions from the last analysis, edits made when picked (codeAction/resolve)

CLIP = textwrap.dedent("""\
    from torch.nn.utils import clip_grad_norm


    def step(model):
        return clip_grad_norm(model.parameters(), 0.5)
""")


def test_actions_are_listed_without_edits_and_made_when_picked(tmp_path):
    copy = tmp_path / "clip.py"
    copy.write_text(CLIP, encoding="utf-8")
    expected = torch04_fix(copy)  # the fix renames and adds the import it needs
    assert "from torch.nn.utils import clip_grad_norm_\n" in expected
    example = EXAMPLE.read_text(encoding="utf-8")
    (tmp_path / "legacy_train.py").write_text(example, encoding="utf-8")
    expected_example = torch04_fix(tmp_path / "legacy_train.py")

    async def session():
        s = Session()
        result = await s.start(tmp_path, resolve=True)
        assert result.capabilities.code_action_provider.resolve_provider
        uri, diagnostics = await s.open(tmp_path / "step.py", CLIP)
        (found,) = diagnostics
        assert found.code == "TV122"
        line = found.range.start.line
        listed = await s.actions(uri, [found], line=line, end=line)
        resolved = [await s.client.code_action_resolve_async(a) for a in listed]
        # a line without a finding: only the lazy "Fix all"
        elsewhere = await s.actions(uri, [], line=1, end=1)
        example_uri, _ = await s.open(tmp_path / "legacy_train.py", example)
        whole = await s.actions(example_uri, [], line=0, end=0)
        fix_all = [await s.client.code_action_resolve_async(a) for a in whole]
        await s.close()
        return listed, resolved, elsewhere, fix_all

    listed, resolved, elsewhere, fix_all = run(session())
    assert [a.title.split(":")[0] for a in listed] == [
        "Fix TV122", "Disable TV122 for this line", "Fix all safe TV findings"]
    assert all(a.edit is None and a.data for a in listed)  # nothing made for a cursor move
    assert [a.title for a in elsewhere] == ["Fix all safe TV findings"]
    assert elsewhere[0].edit is None
    fix, noqa, everything = (apply_edits(CLIP, a.edit.document_changes[0].edits)
                             for a in resolved)
    assert fix == expected  # the finding's edits and the import they need
    assert everything == expected
    assert "clip_grad_norm(model.parameters(), 0.5)  # noqa: TV122\n" in noqa
    assert [a.title for a in fix_all] == ["Fix all safe TV findings"]
    assert apply_edits(example, fix_all[0].edit.document_changes[0].edits) == expected_example


def test_the_quick_fix_of_the_last_variable_removes_its_import(tmp_path):
    source = ("import torch\nfrom torch.autograd import Variable\n\n"
              "x = Variable(torch.ones(1))\n")

    async def session():
        s = Session()
        await s.start(tmp_path, resolve=True)
        uri, (found,) = await s.open(tmp_path / "one.py", source)
        listed = await s.actions(uri, [found], line=3, end=3)
        fix = await s.client.code_action_resolve_async(listed[0])
        await s.close()
        return fix

    fix = run(session())
    assert fix.title.startswith("Fix TV001")
    assert apply_edits(source, fix.edit.document_changes[0].edits) == (
        "import torch\n\nx = torch.ones(1)\n")


# ---------------------------------------------------------------------------
# errors shown


def test_a_configuration_error_is_shown_once_and_on_the_configuration_file(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.torch04]\nselect = ["TV010"]\n', encoding="utf-8")

    async def session():
        s = Session()
        await s.start(tmp_path)
        _, first = await s.open(tmp_path / "a.py", SOURCE)
        _, second = await s.open(tmp_path / "b.py", SOURCE)
        on_config = await s.wait(pyproject.as_uri())
        # the configuration is mended: the server is told, reads it again
        pyproject.write_text('[tool.torch04]\nselect = ["TV001"]\n', encoding="utf-8")
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=pyproject.as_uri(),
                                     type=types.FileChangeType.Changed)]))
        cleared = await s.wait(pyproject.as_uri())
        after = await s.wait((tmp_path / "a.py").as_uri())
        await s.close()
        return first, second, on_config, cleared, after, s.messages

    first, second, on_config, cleared, after, messages = run(session())
    # the defaults apply meanwhile
    assert {d.code for d in first} == {d.code for d in second} == {"TV001", "TV003"}
    (message,) = messages  # once, though two files read the configuration
    assert message.type == types.MessageType.Error
    assert "TV010 matches no rule" in message.message and "pyproject.toml" in message.message
    (error,) = on_config
    assert error.severity == types.DiagnosticSeverity.Error and error.source == "torch04"
    assert (error.range.start.line, error.range.start.character) == (1, len('select = ["'))
    assert "TV010" in error.message
    assert list(cleared) == []
    assert {d.code for d in after} == {"TV001"}


def test_a_module_created_later_is_seen_once_the_server_is_told(tmp_path):
    train = "import torch\nfrom model import *\n\nx = Variable(torch.ones(1))\n"

    async def session():
        s = Session()
        await s.start(tmp_path)
        uri, before = await s.open(tmp_path / "train.py", train)
        # model.py appears: the project's files are read again when the client says so
        (tmp_path / "model.py").write_text("from torch.autograd import Variable\n")
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(tmp_path / "model.py").as_uri(),
                                     type=types.FileChangeType.Created)]))
        after = await s.wait(uri)
        await s.close()
        return before, after

    before, after = run(session())
    assert list(before) == []  # `Variable` is unknown while model.py does not exist
    assert [(d.code, d.range.start.line) for d in after] == [("TV001", 3)]


# ---------------------------------------------------------------------------
# changes: analysed off the message loop, stale results never published


def test_a_superseded_version_is_never_published(tmp_path):
    big = EXAMPLE.read_text(encoding="utf-8") * 60  # an analysis of a few hundred ms

    async def wait_version(s, uri, version):
        for _ in range(400):
            if any(p.uri == uri and p.version == version for p in s.publications):
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"no diagnostics for version {version}")

    async def session():
        s = Session()
        await s.start(tmp_path, trace=True)
        uri, _ = await s.open(tmp_path / "big.py", big)
        s.publications.clear()
        s.traces.clear()
        # v2's analysis starts after the debounce; v3-v12 come while it runs
        await s.change(uri, 2, big + "y = 1\n")
        await asyncio.sleep(0.12)
        for version in range(3, 13):
            await s.change(uri, version, SOURCE if version == 12 else big + f"y = {version}\n")
            await asyncio.sleep(0.015)
        await wait_version(s, uri, 12)
        # while an analysis runs, requests are answered
        await asyncio.sleep(0.5)
        await s.close()
        return [p for p in s.publications if p.uri == uri], s.traces

    published, traces = run(session())
    assert [p.version for p in published] == [12]
    assert {d.code for d in published[0].diagnostics} == {"TV001", "TV003"}
    analysed = [t for t in traces if t.startswith("analysed") and " v1 " not in t]
    assert 2 <= len(analysed) <= 3
    assert "v2 " in analysed[0] and analysed[0].endswith("superseded, not published")
    assert "v12 " in analysed[-1] and analysed[-1].endswith("published")


# ---------------------------------------------------------------------------
# edits and links


def test_line_changes_turn_one_text_into_the_other():
    import random

    from flake8_torch04.server.worker import line_changes

    rng = random.Random(4)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randrange(0, 40))]
        b = list(a)
        for _ in range(rng.randrange(0, 6)):
            at = rng.randrange(0, len(b) + 1)
            b[at:at + rng.randrange(0, 3)] = [rng.choice("abcdef")
                                              for _ in range(rng.randrange(0, 3))]
        out, i = [], 0
        changes = line_changes(a, b)
        for i1, i2, j1, j2 in changes:
            assert i1 >= i
            out += a[i:i1] + b[j1:j2]
            i = i2
        assert out + a[i:] == b
        assert (changes == []) == (a == b)


def test_rule_urls_come_from_the_package_metadata(monkeypatch):
    from importlib import metadata

    from flake8_torch04 import ruledocs

    class Meta:
        def get_all(self, name):
            return ["Documentation, https://example.org/docs",
                    "Source, https://example.org/torch04/"] if name == "Project-URL" else None

        def get(self, name):
            return None

    monkeypatch.delenv("TORCH04_DOCS_URL", raising=False)
    monkeypatch.setattr(metadata, "metadata", lambda name: Meta())
    ruledocs.project_home.cache_clear()
    try:
        assert (ruledocs.rule_url("TV003")
                == "https://example.org/torch04/blob/main/docs/rules/TV003.md")
    finally:
        ruledocs.project_home.cache_clear()
    monkeypatch.setenv("TORCH04_DOCS_URL", "https://docs.example.org/rules/")
    assert ruledocs.rule_url("TV003") == "https://docs.example.org/rules/TV003.md"
    monkeypatch.setenv("TORCH04_DOCS_URL", "https://docs.example.org/{code}.html")
    assert ruledocs.rule_url("TV003") == "https://docs.example.org/TV003.html"


def test_rule_links_after_a_non_editable_install(tmp_path):
    import os
    import shutil

    source, site, work = tmp_path / "src", tmp_path / "site", tmp_path / "work"
    source.mkdir()
    for name in ("setup.cfg", "pyproject.toml", "DESCRIPTION.md", "LICENSE", "MANIFEST.in"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "flake8_torch04", source / "flake8_torch04",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # (built as a user's `pip install .` builds: in an isolated environment, with the
    # build backend from the package index; a fresh venv may have no setuptools)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--target", str(site), str(source)], check=True, capture_output=True)
    (meta,) = site.glob("flake8_torch04-*.dist-info")
    assert ("Project-URL: Source, https://github.com/flake8-torch04/flake8-torch04\n"
            in (meta / "METADATA").read_text(encoding="utf-8"))
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TORCH04_DOCS_URL"}
    env["PYTHONPATH"] = str(site)
    imported = subprocess.run([sys.executable, "-c", "import flake8_torch04; "
                               "print(flake8_torch04.__file__)"], cwd=work, env=env,
                              capture_output=True, text=True, check=True).stdout
    assert imported.startswith(str(site))  # the installed copy, not a checkout

    async def session():
        s = Session()
        await s.start(work, cwd=str(work), env=env)
        _, diagnostics = await s.open(work / "step.py", SOURCE)
        await s.close()
        return diagnostics

    links = {d.code: d.code_description.href for d in run(session())}
    assert links == {code: f"https://github.com/flake8-torch04/flake8-torch04/blob/main/docs/"
                           f"rules/{code}.md" for code in ("TV001", "TV003")}


def test_fixes_keep_an_import_another_module_takes_with_a_star_import(tmp_path):
    """Issue 32: the server's fixes ask the project's other modules, as the CLI does."""
    model = textwrap.dedent("""\
        import torch
        from torch.autograd import Variable

        x = Variable(torch.ones(2))
    """)
    (tmp_path / "model.py").write_text(model, encoding="utf-8")
    (tmp_path / "train.py").write_text("from model import *\ny = Variable(x)\n",
                                       encoding="utf-8")

    async def session():
        s = Session()
        await s.start(tmp_path)
        uri, diagnostics = await s.open(tmp_path / "model.py", model)
        every = await s.actions(uri, [], only=["source.fixAll.torch04"])
        one = await s.actions(uri, diagnostics)
        await s.close()
        return diagnostics, every, one

    diagnostics, every, one = run(session())
    assert [d.code for d in diagnostics] == ["TV001"]
    fix_one = next(a for a in one if a.title.startswith("Fix TV001"))
    for action in (every[0], fix_one):
        fixed = apply_edits(model, action.edit.document_changes[0].edits)
        assert "x = torch.ones(2)" in fixed
        assert "from torch.autograd import Variable\n" in fixed
