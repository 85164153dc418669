"""``torch04``: check and fix PyTorch 0.1-0.3 idioms, without flake8.

``torch04 check PATH...`` lints files, directories and notebooks with the rules
and findings of the flake8 plugin; ``--fix`` applies the safe fixes,
``--unsafe-fixes`` the unsafe ones too, ``--diff`` shows what ``--fix`` would
do.  ``torch04 explain CODE`` prints a rule's documentation.

Exit status: 0 when no finding remains, 1 when findings remain (after fixing,
those not fixed), when a file could not be parsed or read, or when ``--diff``
has changes to show; 2 on a usage error or an internal error (the other files
are still checked and fixed).  A file that cannot be decoded or parsed is
reported on stderr as ``PATH: cannot parse: REASON (line N)`` and left untouched.

Output formats (after ``--fix``, the findings that remain):

- ``text``: ``PATH:LINE:COL: CODE [*] MESSAGE``, columns 1-based as flake8
  prints them, ``[*]`` when ``--fix`` (with the options given) would fix it; in
  notebooks ``PATH:cell N, line M, col C: ...`` (N counts every cell from 1, M
  counts lines within the cell).  A summary line follows.
- ``json``: a list of objects ``{"filename", "cell" (null outside notebooks),
  "line", "column", "end_line", "end_column", "code", "message", "fix"}``:
  lines 1-based (within the cell in notebooks), columns 1-based character
  columns, the end exclusive (``end_column`` is one past the last character,
  plus one); ``fix`` is null or ``{"applicability": "safe"|"unsafe",
  "applicable": bool (would be applied with the options given), "edits": [{"line",
  "column", "end_line", "end_column", "content"}], "imports": [module or
  statement, ...]}``.  The summary and errors go to stderr.
- ``github``: ``::warning file=P,line=L,col=C,endLine=L,endColumn=C,title=CODE::CODE
  MESSAGE`` workflow commands (``%``, CR, LF escaped, and ``:`` and ``,`` in
  properties), ``::error file=P::REASON`` for files that cannot be parsed.

With ``-`` (standard input) and ``--fix``, the fixed source goes to stdout and
everything else to stderr.
"""
from __future__ import annotations

import argparse
import gc
import os
import re
import stat
import sys
from collections import Counter
from typing import TYPE_CHECKING, Iterator, List, NamedTuple, Optional, Sequence, TextIO, Tuple

from . import __version__
from ._core import SAFE, Finding, all_rules
from ._fix import Analysis, Dropped, fix_text

# (difflib, json, tempfile, the notebook and documentation modules are imported
# where they are needed: a plain check should not pay for them at start-up)
if TYPE_CHECKING:  # pragma: no cover
    from ._notebook import Notebook

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", "CVS", ".tox", ".nox", ".venv", "venv", "__pycache__",
    ".eggs", "*.egg-info", "*.egg", "build", "dist", "node_modules", ".ipynb_checkpoints",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "__pypackages__", "site-packages",
)
DEFAULT_SELECT = ("TV0",)
_VALID_PREFIX = re.compile(r"[A-Z]{1,3}[0-9]{0,3}\Z")
SOURCE_SUFFIXES = (".py", ".ipynb")


class UsageError(Exception):
    """A bad command line: reported, exit status 2."""


# ---------------------------------------------------------------------------
# --select / --ignore, as flake8 decides them


def _code_list(values: Optional[Sequence[str]], option: str) -> Optional[List[str]]:
    if values is None:
        return None
    codes = [c.strip().upper() for v in values for c in re.split(r"[,\s]+", v) if c.strip()]
    for code in codes:
        if not _VALID_PREFIX.match(code):
            raise UsageError(f"{option}: {code!r} is not a code or code prefix (like TV001, TV)")
    return codes


def selected_codes(
    codes: Sequence[str],
    select: Optional[Sequence[str]],
    ignore: Optional[Sequence[str]],
    extend_select: Sequence[str] = (),
) -> List[str]:
    """The codes to report, decided as flake8's ``DecisionEngine`` decides.

    A code matched by a ``--select``/``--extend-select`` prefix is selected
    explicitly, one matched only by the default (``TV0``) implicitly.  A code
    matched by an ``--ignore`` prefix is ignored unless it is selected
    explicitly by a longer prefix (a tie ignores).
    """
    explicit = [*(select or ()), *extend_select]
    selectors = [*(select if select is not None else DEFAULT_SELECT), *extend_select]
    chosen = []
    for code in codes:
        sel = _longest_prefix(code, selectors)
        ign = _longest_prefix(code, ignore or ())
        if sel is None:
            continue
        if ign is None or (
            _longest_prefix(code, explicit) is not None and len(sel) > len(ign)
        ):
            chosen.append(code)
    return chosen


def _longest_prefix(code: str, prefixes: Sequence[str]) -> Optional[str]:
    return max((p for p in prefixes if code.startswith(p)), key=len, default=None)


# ---------------------------------------------------------------------------
# finding files


def _pattern_regex(pattern: str) -> str:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 1:]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


class Excludes:
    """``.gitignore``-style patterns, matched against paths relative to the root walked.

    A pattern without a ``/`` (other than a trailing one) matches a name at any
    depth; one with a ``/`` is anchored at the root; a trailing ``/`` matches
    directories only; ``*``, ``?``, ``[...]`` stay within a path segment, ``**``
    crosses them; ``!`` re-includes; the last matching pattern decides.  A
    directory that is excluded is not entered.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.rules: List[Tuple["re.Pattern[str]", bool, bool]] = []
        for raw in patterns:
            pattern = raw.strip()
            if not pattern or pattern.startswith("#"):
                continue
            negate = pattern.startswith("!")
            pattern = pattern[1:] if negate else pattern
            dir_only = pattern.endswith("/")
            pattern = pattern.rstrip("/")
            if pattern.startswith("./"):
                pattern = pattern[2:]
            anchored = "/" in pattern
            body = _pattern_regex(pattern.lstrip("/"))
            regex = re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z", re.S)
            self.rules.append((regex, negate, dir_only))

    def excluded(self, relpath: str, is_dir: bool) -> bool:
        result = False
        for regex, negate, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if regex.match(relpath):
                result = not negate
        return result


def discover(paths: Sequence[str], excludes: Excludes) -> Iterator[str]:
    """Files to check: named files as given, ``.py``/``.ipynb`` files under directories."""
    seen = set()  # (device, inode): one file under two names is checked once
    for path in paths:
        info = _stat(path) if path != "-" else None
        if info is None or not stat.S_ISDIR(info.st_mode):
            identity = (info.st_dev, info.st_ino) if info is not None else path
            if identity not in seen:
                seen.add(identity)
                yield path  # (one that vanished is reported when it is read)
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            rel_dir = os.path.relpath(dirpath, path).replace(os.sep, "/")
            rel_dir = "" if rel_dir == "." else rel_dir + "/"
            dirnames[:] = sorted(
                d for d in dirnames if not excludes.excluded(rel_dir + d, is_dir=True)
            )
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                if excludes.excluded(rel_dir + name, is_dir=False):
                    continue
                full = os.path.join(dirpath, name)
                info = _stat(full)  # ``None``: a dangling link
                if info is not None and stat.S_ISREG(info.st_mode):
                    identity = (info.st_dev, info.st_ino)
                    if identity not in seen:
                        seen.add(identity)
                        yield full


def _stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(path)
    except OSError:
        return None


# ---------------------------------------------------------------------------
# files as text and back


class CannotParse(Exception):
    """A file that cannot be checked: reported with its reason, left untouched."""


class Located(NamedTuple):
    """A finding with where to show it: ``cell`` is ``None`` outside notebooks."""

    finding: Finding
    cell: Optional[int]
    line: int
    end_line: int
    fixable: bool  # would be applied with the options given
    edits: Tuple[Tuple[int, int, int, int, str], ...] = ()  # in the same coordinates


class Document:
    """A file's bytes as the text that is checked and fixed, and back to bytes."""

    notebook: Optional["Notebook"] = None
    locked = None

    def __init__(self, data: bytes, name: str) -> None:
        self.name = name
        self.data = data
        if name.endswith(".ipynb"):
            from ._notebook import LOCKED, Notebook, NotebookError

            self.encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
            try:
                raw = data.decode(self.encoding)
                self.notebook = Notebook(raw)
            except (UnicodeDecodeError, NotebookError) as exc:
                raise CannotParse(str(exc)) from None
            self.text = self.notebook.text
            self.locked = LOCKED
        else:
            try:
                self.encoding = source_encoding(data)
                self.text = data.decode(self.encoding)
            except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
                raise CannotParse(f"cannot decode: {_decode_error(data, exc)}") from None

    @property
    def applies(self) -> bool:
        """Whether the rules apply (a notebook of another language is skipped)."""
        return self.notebook is None or self.notebook.python

    def where(self, line: int) -> Tuple[Optional[int], int]:
        if self.notebook is None:
            return None, line
        return self._locator(line)

    def set_text(self, text: str) -> None:
        """Positions from now on refer to ``text``."""
        if self.notebook is not None:
            self._locator = self.notebook.locator(text)

    def describe(self, line: int) -> str:
        cell, line = self.where(line)
        return f"line {line}" if cell is None else f"cell {cell}, line {line}"

    def to_bytes(self, text: str) -> bytes:
        if self.notebook is not None:
            return self.notebook.render(text).encode(self.encoding)
        return text.encode(self.encoding)

    def diff(self, text: str) -> str:
        if self.notebook is not None:
            pairs = [(f"{self.name}:cell {n}", old, new)
                     for n, (old, new) in sorted(self.notebook.changed_cells(text).items())]
        else:
            pairs = [(self.name, self.text, text)] if text != self.text else []
        chunks = []
        for name, old, new in pairs:
            import difflib

            lines = difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), f"a/{name}", f"b/{name}"
            )
            for line in lines:
                chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end "
                              "of file\n")
        return "".join(chunks)


def source_encoding(data: bytes) -> str:
    """The encoding Python reads ``data`` in (PEP 263), as ``tokenize.detect_encoding``
    says; without a BOM and without ``coding`` in the first two lines it is UTF-8,
    which is decided here without importing ``tokenize``."""
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first != -1 else -1
    head = data if second == -1 else data[:second]
    if b"coding" not in head and not data.startswith(b"\xef\xbb\xbf"):
        return "utf-8"
    import io
    import tokenize

    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def _decode_error(data: bytes, exc: Exception) -> str:
    """The most telling reason: a UTF-8 decoding error names the byte and position."""
    if isinstance(exc, SyntaxError):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as utf8:
            return str(utf8)
        return exc.msg or str(exc)
    return str(exc)


def write_atomically(path: str, data: bytes) -> None:
    """Replace the file's content through a temporary file in the same directory,
    keeping its mode (and its owner, where allowed); a symlink's target is written."""
    real = os.path.realpath(path)
    info = os.stat(real)
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".torch04-", suffix=".tmp", dir=os.path.dirname(real))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(info.st_mode))
        if hasattr(os, "chown"):
            try:
                os.chown(tmp, info.st_uid, info.st_gid)
            except OSError:
                pass
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ---------------------------------------------------------------------------
# checking one file


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
        result = fix_text(doc.text, analyse, options.unsafe, hidden=hidden)
        dropped = tuple(_describe_dropped(doc, d) for d in result.dropped)
        if not result.converged:
            notes = ("fixes did not reach a fixpoint; run again",)
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


# ---------------------------------------------------------------------------
# output


def _position(loc: Located) -> str:
    col = loc.finding.col + 1
    if loc.cell is None:
        return f"{loc.line}:{col}"
    return f"cell {loc.cell}, line {loc.line}, col {col}"


def format_text(result: FileResult, out: TextIO) -> None:
    for loc in result.findings:
        mark = "[*] " if loc.fixable else ""
        out.write(f"{result.name}:{_position(loc)}: {loc.finding.code} {mark}"
                  f"{loc.finding.message}\n")


def json_record(result: FileResult, loc: Located) -> dict:
    f = loc.finding
    fix = None
    if f.fix is not None:
        fix = {
            "applicability": f.fix.safety,
            "applicable": loc.fixable,
            "edits": [
                {"line": line, "column": col + 1, "end_line": end_line,
                 "end_column": end_col + 1, "content": text}
                for line, col, end_line, end_col, text in loc.edits
            ],
            "imports": list(f.fix.imports),
        }
    return {
        "filename": result.name,
        "cell": loc.cell,
        "line": loc.line,
        "column": f.col + 1,
        "end_line": loc.end_line,
        "end_column": (f.end_col if f.end_line else f.col) + 1,
        "code": f.code,
        "message": f.message,
        "fix": fix,
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(result: FileResult, loc: Located) -> str:
    f = loc.finding
    props = [f"file={_escape_property(result.name)}"]
    message = f"{f.code} {f.message}"
    if loc.cell is None:
        props += [f"line={loc.line}", f"col={f.col + 1}"]
        if f.end_line == f.line and f.end_col > f.col:
            props += [f"endLine={loc.end_line}", f"endColumn={f.end_col + 1}"]
    else:
        message = f"cell {loc.cell}, line {loc.line}, col {f.col + 1}: {message}"
    props.append(f"title={_escape_property(f.code)}")
    return f"::warning {','.join(props)}::{_escape_data(message)}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _by_code(counts: Counter) -> str:
    return ", ".join(f"{code}: {n}" for code, n in sorted(counts.items()))


def summary_lines(results: Sequence[FileResult], options: Options) -> List[str]:
    lines = []
    fixed = Counter()
    for r in results:
        fixed.update(r.fixed)
    changed = sum(1 for r in results if r.new_data is not None)
    if options.fix or options.diff:
        verb = "Would fix" if options.diff and not options.fix else "Fixed"
        detail = f" ({_by_code(fixed)})" if fixed else ""
        lines.append(f"{verb} {_plural(sum(fixed.values()), 'finding')} in "
                     f"{_plural(changed, 'file')}{detail}.")
    findings = [loc for r in results for loc in r.findings]
    counts = Counter(loc.finding.code for loc in findings)
    with_findings = sum(1 for r in results if r.findings)
    what = "remaining finding" if options.fix or options.diff else "finding"
    line = f"Found {_plural(len(findings), what)}"
    if findings:
        line += f" in {with_findings} of {_plural(len(results), 'file')} ({_by_code(counts)})"
        fixable = sum(1 for loc in findings if loc.fixable)
        more = sum(1 for loc in findings if not loc.fixable and loc.finding.fix is not None
                   and loc.finding.fix.safety != SAFE and not options.unsafe)
        flags = "--fix --unsafe-fixes" if options.unsafe else "--fix"
        line += f"; {fixable} fixable with {flags}"
        if more:
            line += f", {more} more with --unsafe-fixes"
    else:
        line += f" in {_plural(len(results), 'file')}"
    lines.append(line + ".")
    errors = sum(1 for r in results if r.error and not r.internal)
    if errors:
        lines.append(f"{_plural(errors, 'file')} could not be checked (left untouched).")
    dropped = sum(len(r.dropped) for r in results)
    if dropped:
        lines.append(f"{_plural(dropped, 'fix')} not applied (see above).")
    return lines


# ---------------------------------------------------------------------------
# the command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torch04",
        description="Find and fix PyTorch 0.1-0.3 idioms that break or misbehave on "
                    "modern PyTorch (the flake8-torch04 rules, without flake8).",
    )
    parser.add_argument("--version", action="version", version=f"torch04 {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    check = commands.add_parser(
        "check", help="check (and fix) files, directories and notebooks",
        description="Check Python files and Jupyter notebooks. Exit status: 0 when no "
                    "finding remains, 1 when findings remain or a file could not be "
                    "checked, 2 on a usage or internal error.",
    )
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                       help="files or directories (default: .); - reads standard input")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes")
    check.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix or --diff, apply the unsafe fixes too")
    check.add_argument("--diff", action="store_true",
                       help="print the changes --fix would make as a unified diff; write "
                            "nothing")
    check.add_argument("--select", action="append", metavar="CODES",
                       help="codes or prefixes to report (default: TV0); comma-separated, "
                            "repeatable")
    check.add_argument("--extend-select", action="append", metavar="CODES",
                       help="codes or prefixes to report in addition to --select")
    check.add_argument("--ignore", action="append", metavar="CODES",
                       help="codes or prefixes not to report; the longer prefix of "
                            "--select and --ignore wins")
    check.add_argument("--exclude", action="append", metavar="PATTERNS",
                       help=".gitignore-style patterns of paths to skip when walking "
                            "directories (replaces the default list: "
                            f"{', '.join(DEFAULT_EXCLUDES)})")
    check.add_argument("--extend-exclude", action="append", metavar="PATTERNS",
                       help="patterns to skip in addition to --exclude")
    check.add_argument("--output-format", choices=("text", "json", "github"), default="text",
                       help="text (default), json, or github (GitHub Actions annotations)")
    check.add_argument("--stdin-filename", metavar="NAME",
                       help="the name to report for - (a .ipynb name reads a notebook)")
    check.add_argument("-q", "--quiet", action="store_true", help="print no summary")

    explain = commands.add_parser("explain", help="print a rule's documentation")
    explain.add_argument("code", nargs="?", help="a rule code such as TV003 (omit to list)")
    return parser


def _patterns(values: Optional[Sequence[str]]) -> List[str]:
    return [p for v in values or () for p in v.split(",") if p.strip()]


def run_explain(code: Optional[str], out: TextIO) -> int:
    from . import _docs

    rules = all_rules()
    if code is None:
        for rule in rules.values():
            out.write(f"{rule.code}  {rule.name}: {_docs.summary(rule)}\n")
        return EXIT_CLEAN
    rule = rules.get(code.strip().upper())
    if rule is None:
        raise UsageError(f"unknown rule {code!r}; known rules: {', '.join(rules)}")
    out.write(_docs.explain(rule))
    return EXIT_CLEAN


def run_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    rules = list(all_rules())
    codes = tuple(selected_codes(rules, _code_list(args.select, "--select"),
                                 _code_list(args.ignore, "--ignore"),
                                 _code_list(args.extend_select, "--extend-select") or ()))
    options = Options(codes, fix=args.fix, unsafe=args.unsafe_fixes, diff=args.diff,
                      quiet=args.quiet)
    if args.paths.count("-") > 1:
        raise UsageError("- (standard input) can be given only once")
    for path in args.paths:
        if path != "-" and not os.path.exists(path):
            raise UsageError(f"{path}: no such file or directory")
    excludes = Excludes(
        (_patterns(args.exclude) if args.exclude is not None else list(DEFAULT_EXCLUDES))
        + _patterns(args.extend_exclude)
    )
    fmt = args.output_format
    results: List[FileResult] = []
    fixed_stdin: Optional[bytes] = None
    for path in discover(args.paths, excludes):
        if path == "-":
            name = args.stdin_filename or "stdin"
            data = sys.stdin.buffer.read()
            result = check_file(path, options, stdin=data, name=name)
            if options.fix and not options.diff:
                fixed_stdin = result.new_data if result.new_data is not None else data
        else:
            result = check_file(path, options)
            if options.fix and not options.diff and result.new_data is not None:
                try:
                    write_atomically(path, result.new_data)
                except OSError as exc:
                    result = result._replace(
                        new_data=None, fixed=Counter(),
                        error=f"cannot write: {exc.strerror or exc}",
                        findings=[], internal=False)
        results.append(result)
    return _report(results, options, fmt, stdout, stderr, fixed_stdin)


def _report(results: List[FileResult], options: Options, fmt: str, stdout: TextIO,
            stderr: TextIO, fixed_stdin: Optional[bytes]) -> int:
    # with a fixed standard input on stdout, everything else goes to stderr
    out = stderr if fixed_stdin is not None else stdout
    info = stderr if fmt == "json" or options.diff or fixed_stdin is not None else stdout
    if options.diff:
        for r in results:
            stdout.write(r.diff)
    else:
        if fmt == "json":
            records = [json_record(r, loc) for r in results for loc in r.findings]
            import json

            out.write(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
        for r in results:
            if fmt == "text":
                format_text(r, out)
            elif fmt == "github":
                for loc in r.findings:
                    out.write(github_annotation(r, loc) + "\n")
    for r in results:
        for note in r.dropped + r.notes:
            stderr.write(f"{r.name}: {note}\n")
        if r.error:
            if fmt == "github":
                out.write(f"::error file={_escape_property(r.name)}::"
                          f"{_escape_data(r.error)}\n")
            stderr.write(f"{r.name}: {r.error}\n")
    if not options.quiet:
        for line in summary_lines(results, options):
            info.write(line + "\n")
    if fixed_stdin is not None:
        stdout.flush()
        buffer = getattr(stdout, "buffer", None)
        if buffer is not None:
            buffer.write(fixed_stdin)
            buffer.flush()
        else:
            stdout.write(fixed_stdin.decode("utf-8", "surrogateescape"))
    if any(r.internal for r in results):
        return EXIT_ERROR
    remaining = any(r.findings for r in results) or any(r.error for r in results)
    if options.diff and any(r.diff for r in results):
        remaining = True
    return EXIT_FINDINGS if remaining else EXIT_CLEAN


#: the cyclic garbage collector's first threshold while files are checked: each
#: file's tree is hundreds of thousands of objects, none in a cycle, and at
#: Python's default (700) the collector keeps rescanning them (mypy raises it too)
GC_THRESHOLD = 20_000


def main(argv: Optional[Sequence[str]] = None) -> int:
    threshold = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*threshold)


def _main(argv: Optional[Sequence[str]]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 for --help/--version, 2 for usage errors
        return int(exc.code or 0)
    try:
        if args.command == "explain":
            return run_explain(args.code, sys.stdout)
        if args.diff and args.fix:
            args.fix = False  # --diff writes nothing
        return run_check(args, sys.stdout, sys.stderr)
    except UsageError as exc:
        sys.stderr.write(f"torch04: error: {exc}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
