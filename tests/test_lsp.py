"""The findings in an editor: the real python-lsp-server, its flake8 plugin, over LSP.

This is how VS Code (through a pylsp client), Neovim, Emacs, Sublime and others
show flake8 plugins: the server runs ``flake8 -`` on the buffer and publishes
each reported line as a diagnostic.  The test speaks JSON-RPC over the server's
stdin/stdout as an editor does, with a deadline on every read.
"""
import json
import os
import queue
import shutil
import subprocess
import sys
import textwrap
import threading
import time

import pytest

pytest.importorskip("pylsp", reason="python-lsp-server is not installed "
                                    "(pip install -e '.[test]')")

TIMEOUT = 60  # seconds for any one answer; a hang fails the test instead of blocking

# Non-ASCII text before the findings on 0-based lines 4 and 9: LSP positions
# count characters (UTF-16 units, the same as code points here), not UTF-8 bytes.
SOURCE = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable

    x = torch.ones(2)
    y = {"température": Variable(x)}
    z = Variable(x)  # noqa: TV001
    w = Variable(
        x,
        volatile=True)
    étiquette = "ü"; v = Variable(x, requires_grad=False)
    """
)


def position(line: int, text: str, nth: int = 1):
    """(line, character) of the ``nth`` occurrence of ``text`` on 0-based ``line``."""
    source_line = SOURCE.splitlines()[line]
    character = -1
    for _ in range(nth):
        character = source_line.index(text, character + 1)
    return line, character


EXPECTED = {
    ("TV001",) + position(4, "Variable(x)"),
    ("TV001",) + position(6, "Variable("),
    ("TV002",) + position(8, "volatile=True"),
    ("TV001",) + position(9, "Variable(x, requires_grad=False)"),
}


class Server:
    """A language server subprocess and the JSON-RPC messages it sends."""

    def __init__(self, args, cwd, stderr):
        self.proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr)
        self.messages = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        stream = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)  # the server closed its output
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body.decode("utf-8")))

    def send(self, message):
        message = dict(message, jsonrpc="2.0")
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params):
        """Send a request and return its result, skipping the server's notifications."""
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        answer = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m,
                           f"the answer to {method}")
        assert "error" not in answer, answer
        return answer["result"]

    def wait(self, matches, what):
        deadline = time.monotonic() + TIMEOUT
        while True:
            left = deadline - time.monotonic()
            try:
                message = self.messages.get(timeout=max(left, 0))
            except queue.Empty:
                pytest.fail(f"no {what} from the language server within {TIMEOUT}s")
            if message is None:
                pytest.fail(f"the language server exited before sending {what}")
            if "method" in message and "id" in message:  # a request to the client
                self.send({"id": message["id"], "result": None})
            if matches(message):
                return message

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdin.close()
            self.proc.stdout.close()


def flake8_executable():
    """The flake8 of this environment, as an editor is told to use it."""
    found = shutil.which("flake8", path=os.path.dirname(sys.executable))
    assert found, f"no flake8 next to {sys.executable}"
    return found


@pytest.fixture
def server(tmp_path):
    with open(tmp_path / "pylsp.log", "wb") as log:
        server = Server([sys.executable, "-m", "pylsp"], cwd=tmp_path, stderr=log)
        try:
            yield server
        finally:
            server.close()
    print((tmp_path / "pylsp.log").read_text(errors="replace"))  # shown on failure


def open_legacy_file(server, root):
    """Initialize as an editor does, open the legacy file, return its diagnostics."""
    path = root / "legacy.py"
    path.write_text(SOURCE, encoding="utf-8")
    uri = path.as_uri()
    server.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                  "capabilities": {}})
    server.notify("initialized", {})
    # the settings an editor sends: flake8 on, the plugins it includes off
    server.notify("workspace/didChangeConfiguration", {"settings": {"pylsp": {"plugins": {
        "flake8": {"enabled": True, "executable": flake8_executable()},
        "pycodestyle": {"enabled": False},
        "pyflakes": {"enabled": False},
        "mccabe": {"enabled": False},
    }}}})
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": SOURCE}})
    published = server.wait(
        lambda m: m.get("method") == "textDocument/publishDiagnostics"
        and m["params"]["uri"] == uri and m["params"]["diagnostics"],
        "diagnostics for legacy.py",
    )
    return published["params"]["diagnostics"]


def test_pylsp_flake8_plugin_publishes_tv_diagnostics(server, tmp_path):
    diagnostics = open_legacy_file(server, tmp_path)
    assert {d["source"] for d in diagnostics} == {"flake8"}
    tv = [d for d in diagnostics if d["code"].startswith("TV")]
    found = {(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
             for d in tv}
    assert found == EXPECTED
    for d in tv:
        assert d["range"]["end"]["line"] == d["range"]["start"]["line"]
        assert d["message"].startswith(d["code"] + " `")
        assert d["severity"] == 2  # Warning
    messages = {d["range"]["start"]["line"]: d["message"] for d in tv}
    assert "`Variable(x)`" in messages[4] and "use `x`" in messages[4]


def test_character_columns_differ_from_byte_offsets():
    # the check above would not tell characters from bytes without non-ASCII text
    for code, line, character in EXPECTED:
        if line in (4, 9):
            prefix = SOURCE.splitlines()[line][:character]
            assert len(prefix.encode("utf-8")) > len(prefix), (code, line)
