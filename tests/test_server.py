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

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params):
            self.diagnostics[params.uri] = params.diagnostics
            self.published.set()

        @self.client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params):
            self.applied.append(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

    async def start(self, root, notebooks=False):
        await self.client.start_io(sys.executable, "-m", "flake8_torch04", "server")
        capabilities = types.ClientCapabilities(
            general=types.GeneralClientCapabilities(
                position_encodings=[types.PositionEncodingKind.Utf16]),
            notebook_document=types.NotebookDocumentClientCapabilities(
                synchronization=types.NotebookDocumentSyncClientCapabilities())
            if notebooks else None,
            workspace=types.WorkspaceClientCapabilities(apply_edit=True),
        )
        result = await self.client.initialize_async(types.InitializeParams(
            capabilities=capabilities, root_uri=Path(root).as_uri(), process_id=None))
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


def test_a_file_that_does_not_parse_gets_no_diagnostics_and_the_server_lives_on(tmp_path):
    async def session():
        s = Session()
        await s.start(tmp_path)
        _, broken = await s.open(tmp_path / "broken.py", "x = Variable(\n")
        _, fine = await s.open(tmp_path / "fine.py", SOURCE)
        await s.close()
        return broken, fine

    broken, fine = run(session())
    assert list(broken) == []
    assert {d.code for d in fine} == {"TV001", "TV003"}


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
