#!/usr/bin/env python3
"""How quickly ``torch04 server`` answers an editor: numbers, not a test.

Usage::

    python bench/lsp_bench.py                 # 1,000- and 10,000-line files
    python bench/lsp_bench.py --lines 1000 --repeat 50
    python bench/lsp_bench.py --findings 1250 5000 10000   # only 7.

It starts the real server (``python -m flake8_torch04 server``) and speaks
JSON-RPC to it over stdio with Content-Length framing, as an editor does,
declaring what VS Code declares (UTF-16 positions, code actions with
``data`` and ``resolveSupport`` for ``edit``) and ``trace: "verbose"`` so
that the server tells each analysis it runs (``$/logTrace``).  On a legacy
file made by repeating ``examples/legacy_train.py`` (as bench/benchmark.py
does) it measures:

1. ``didOpen`` -> ``publishDiagnostics``;
2. ``textDocument/codeAction`` on a line with a finding (with that line's
   diagnostics in the context) and on a line without one, without ``only``,
   as VS Code asks on every cursor move: median and max round trip;
3. ``codeAction/resolve`` of the first quick fix, and "Fix all"
   (``only: ["source.fixAll"]``, which runs the fixer): median;
4. ``didChange`` (one line edited) -> ``publishDiagnostics`` of that
   version: median and max;
5. a burst of 10 changes within 200 ms: how many analyses ran, and the
   versions published (only the last may be);
6. ``codeAction`` on another open file (the example itself) sent right after
   a change of the large one, while its analysis runs;
7. (``--findings``) ``didOpen`` -> ``publishDiagnostics`` of a file with that
   many findings that share one fix (one function of ``Variable(t,
   volatile=True)`` calls: TV001 and TV002 each, and every TV002 carries the
   function's one fix): the time must grow with the findings, not their square.

The machine's load average is printed first: on a shared machine the
analysis itself (its time is in the server's trace) varies with it.
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmark import legacy_file  # noqa: E402

TIMEOUT = 120.0


class Editor:
    """A JSON-RPC client of the server: requests, notifications, and what it sends."""

    def __init__(self, cwd: Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "flake8_torch04", "server"], cwd=cwd, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.responses: Dict[int, "queue.Queue"] = {}
        self.notes: "queue.Queue" = queue.Queue()  # (arrival time, method, params)
        self.next_id = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.notes.put((time.perf_counter(), None, None))
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            now = time.perf_counter()
            if "method" in message and "id" in message:  # a request of the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" in message:
                self.notes.put((now, message["method"], message.get("params")))
            else:
                self.responses.setdefault(message["id"], queue.Queue()).put((now, message))

    def _send(self, message: Dict[str, Any]) -> None:
        body = json.dumps(message).encode("utf-8")
        with self.lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> Any:
        """Send a request; return (seconds to the answer, its result)."""
        self.next_id += 1
        ident = self.next_id
        answer = self.responses.setdefault(ident, queue.Queue())
        start = time.perf_counter()
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        end, message = answer.get(timeout=TIMEOUT)
        del self.responses[ident]
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return end - start, message.get("result")

    def notify(self, method: str, params: Any) -> float:
        start = time.perf_counter()
        self._send({"jsonrpc": "2.0", "method": method, "params": params})
        return start

    def wait_diagnostics(self, uri: str, version: int, seen: Optional[list] = None):
        """Wait for the diagnostics of ``version``; (arrival time, diagnostics).
        Every publication and trace on the way is appended to ``seen``."""
        deadline = time.perf_counter() + TIMEOUT
        while True:
            when, method, params = self.notes.get(timeout=max(0.1, deadline - time.perf_counter()))
            if method is None:
                raise RuntimeError("the server exited")
            if seen is not None:
                seen.append((when, method, params))
            if (method == "textDocument/publishDiagnostics" and params["uri"] == uri
                    and params.get("version") == version):
                return when, params["diagnostics"]

    def drain(self, seconds: float) -> List[tuple]:
        """What the server sends in the next ``seconds``."""
        got = []
        end = time.perf_counter() + seconds
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                return got
            try:
                got.append(self.notes.get(timeout=left))
            except queue.Empty:
                return got

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


CAPABILITIES = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"didSave": True},
        "publishDiagnostics": {"versionSupport": True, "codeDescriptionSupport": True,
                               "dataSupport": True},
        "codeAction": {
            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                "", "quickfix", "refactor", "source", "source.fixAll"]}},
            "isPreferredSupport": True, "dataSupport": True,
            "resolveSupport": {"properties": ["edit"]},
        },
    },
    "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}},
}


def ms(values: List[float]) -> str:
    return (f"median {statistics.median(values) * 1000:6.1f} ms, "
            f"max {max(values) * 1000:6.1f} ms (n={len(values)})")


def analysis_ms(seen: List[tuple]) -> List[float]:
    """The analysis times the server's traces tell (``analysed ... in N ms``)."""
    import re

    return [float(m.group(1)) for _, method, params in seen if method == "$/logTrace"
            for m in [re.search(r"^analysed .* in (\d+) ms", params["message"])] if m]


def code_action(editor: Editor, uri: str, line: int, diagnostics: List[dict],
                only: Optional[List[str]] = None):
    context: Dict[str, Any] = {"diagnostics": diagnostics, "triggerKind": 2}
    if only:
        context["only"] = only
    return editor.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 4}},
        "context": context})


def bench_file(path: Path, repeat: int) -> None:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(True)
    print(f"\n{path.name}: {len(lines)} lines")
    editor = Editor(path.parent)
    try:
        editor.request("initialize", {"processId": None, "rootUri": path.parent.as_uri(),
                                      "capabilities": CAPABILITIES, "trace": "verbose"})
        editor.notify("initialized", {})
        uri = path.as_uri()
        start = editor.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        when, diagnostics = editor.wait_diagnostics(uri, 1)
        print(f"  didOpen -> publishDiagnostics: {(when - start) * 1000:.0f} ms "
              f"({len(diagnostics)} diagnostics)")

        # a line with a fixable finding near the middle, and one without any
        by_line: Dict[int, List[dict]] = {}
        covered = set()
        for d in diagnostics:
            by_line.setdefault(d["range"]["start"]["line"], []).append(d)
            covered.update(range(d["range"]["start"]["line"], d["range"]["end"]["line"] + 1))
        middle = len(lines) // 2
        # (the nearest to the middle whose actions include a quick fix)
        with_finding = None
        for n in sorted(by_line, key=lambda n: abs(n - middle)):
            _, actions = code_action(editor, uri, n, by_line[n])
            if any(a["title"].startswith("Fix TV") for a in actions):
                with_finding = n
                break
        without = min((n for n in range(len(lines)) if n not in covered),
                      key=lambda n: abs(n - middle))
        first_action = None
        for name, line in (("a line with a finding", with_finding),
                           ("a line without one", without)):
            times = []
            for _ in range(repeat):
                seconds, actions = code_action(editor, uri, line, by_line.get(line, []))
                times.append(seconds)
            if os.environ.get("LSP_BENCH_VERBOSE"):
                print("    actions:", [a["title"] for a in actions])
            fixes = [a for a in actions if a["title"].startswith("Fix TV")]
            if fixes and first_action is None:
                first_action = fixes[0]
            print(f"  codeAction on {name} (line {line + 1}, {len(actions)} actions, no edits "
                  f"listed: {all('edit' not in a for a in actions)}): {ms(times)}")
        if first_action is not None:
            times = []
            for _ in range(max(3, repeat // 5)):
                seconds, resolved = editor.request("codeAction/resolve", first_action)
                times.append(seconds)
            print(f"  codeAction/resolve of '{first_action['title'][:40]}...' "
                  f"(edit made: {'edit' in resolved}): {ms(times)}")
        times = []
        for _ in range(3):
            seconds, actions = code_action(editor, uri, with_finding, [], only=["source.fixAll"])
            times.append(seconds)
        edits = len(actions[0]["edit"]["documentChanges"][0]["edits"]) if actions else 0
        print(f"  codeAction only=source.fixAll (runs the fixer; {edits} edits): {ms(times)}")

        # didChange -> publishDiagnostics, one edit at a time
        editor.drain(0.3)
        version = 1
        seen = []
        # (a blank line: what is typed there is a comment, and the text parses)
        edit_line = min((n for n in range(len(lines)) if not lines[n].strip()),
                        key=lambda n: abs(n - middle))
        times = []
        for i in range(repeat):
            version += 1
            # a "#" typed at the start of the line, then deleted
            end = 0 if i % 2 == 0 else 1
            start = editor.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {
                    "start": {"line": edit_line, "character": 0},
                    "end": {"line": edit_line, "character": end}},
                    "text": "#" if i % 2 == 0 else ""}]})
            when, _ = editor.wait_diagnostics(uri, version, seen)
            times.append(when - start)
            seen += editor.drain(0.15)
        print(f"  didChange -> publishDiagnostics: {ms(times)}; the analysis itself: "
              f"median {statistics.median(analysis_ms(seen)):.0f} ms")

        # requests on another file while this one is analysed
        other = path.parent / "other.py"
        other_text = (ROOT / "examples" / "legacy_train.py").read_text(encoding="utf-8")
        editor.notify("textDocument/didOpen", {"textDocument": {
            "uri": other.as_uri(), "languageId": "python", "version": 1, "text": other_text}})
        _, other_diagnostics = editor.wait_diagnostics(other.as_uri(), 1)
        target = other_diagnostics[0]
        target_line = target["range"]["start"]["line"]
        editor.drain(0.3)
        times = []
        for i in range(repeat):
            version += 1
            end = 0 if i % 2 == 0 else 1
            editor.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {
                    "start": {"line": edit_line, "character": 0},
                    "end": {"line": edit_line, "character": end}},
                    "text": "#" if i % 2 == 0 else ""}]})
            time.sleep(0.005)
            seconds, _ = code_action(editor, other.as_uri(), target_line, [target])
            times.append(seconds)
            editor.wait_diagnostics(uri, version)
            editor.drain(0.1)
        print(f"  codeAction on another file while this one is analysed: {ms(times)}")

        # a burst: 10 changes within 200 ms
        editor.drain(0.3)
        seen: List[tuple] = []
        first = version + 1
        start = time.perf_counter()
        for i in range(10):
            version += 1
            editor.notify("textDocument/didChange", {  # "#abcdefghi" typed
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {
                    "start": {"line": edit_line, "character": i},
                    "end": {"line": edit_line, "character": i}}, "text": "#abcdefghi"[i]}]})
            time.sleep(max(0.0, start + (i + 1) * 0.02 - time.perf_counter()))
        sent = time.perf_counter() - start
        when, _ = editor.wait_diagnostics(uri, version, seen)
        seen += editor.drain(1.0)
        traces = [p["message"] for _, m, p in seen if m == "$/logTrace"]
        if os.environ.get("LSP_BENCH_VERBOSE"):
            for when_, m, p in seen:
                print(f"    {(when_ - start) * 1000:7.1f} ms {m} "
                      f"{p.get('message', p.get('version'))}")
        analysed = [t for t in traces if t.startswith("analysed")]
        published = [p.get("version") for _, m, p in seen
                     if m == "textDocument/publishDiagnostics" and p["uri"] == uri]
        print(f"  burst of 10 changes (v{first}-v{version}) in {sent * 1000:.0f} ms: "
              f"{len(analysed)} analyses, {len(traces) - len(analysed)} skipped, versions "
              f"published {published}; last published {(when - start) * 1000:.0f} ms "
              f"after the first change")
    finally:
        editor.close()


def findings_file(findings: int, directory: Path) -> Path:
    """A file with ``findings`` findings (see 7. above)."""
    path = directory / f"findings_{findings}.py"
    path.write_text("import torch\nfrom torch.autograd import Variable\n\n\ndef f(t):\n"
                    + "".join(f"    x{i} = Variable(t, volatile=True)\n"
                              for i in range(findings // 2))
                    + "    return t\n", encoding="utf-8")
    return path


def bench_findings(path: Path) -> None:
    editor = Editor(path.parent)
    try:
        editor.request("initialize", {"processId": None, "rootUri": path.parent.as_uri(),
                                      "capabilities": CAPABILITIES, "trace": "verbose"})
        editor.notify("initialized", {})
        warm = path.with_name("warm.py")  # (the worker's start and the rules' loading)
        editor.notify("textDocument/didOpen", {"textDocument": {
            "uri": warm.as_uri(), "languageId": "python", "version": 1,
            "text": "import torch\nx = torch.autograd.Variable(torch.zeros(1))\n"}})
        editor.wait_diagnostics(warm.as_uri(), 1)
        uri = path.as_uri()
        seen: List[tuple] = []
        start = editor.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1,
            "text": path.read_text(encoding="utf-8")}})
        when, diagnostics = editor.wait_diagnostics(uri, 1, seen)
        analysed = analysis_ms(seen + editor.drain(0.5))  # (traced after publishing)
        print(f"  {len(diagnostics):>6} findings: didOpen -> publishDiagnostics "
              f"{(when - start):6.2f} s (the worker's analysis "
              f"{analysed[-1] / 1000 if analysed else float('nan'):6.2f} s)")
    finally:
        editor.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--findings", type=int, nargs="*",
                        help="only 7.: files with these many findings sharing one fix")
    args = parser.parse_args(argv)
    print(f"torch04 server over stdio; {os.cpu_count()} CPUs; load average "
          f"{os.getloadavg()[0]:.2f}; Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.findings:
            for findings in args.findings:
                bench_findings(findings_file(findings, Path(tmp)))
            return 0
        for size in args.lines:
            bench_file(legacy_file(size, Path(tmp)), args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
