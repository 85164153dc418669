"""``torch04``: check and fix PyTorch 0.1-0.3 idioms, without flake8.

``torch04 check PATH...`` lints files, directories and notebooks with the rules
and findings of the flake8 plugin; ``--fix`` applies the safe fixes,
``--unsafe-fixes`` the unsafe ones too, ``--diff`` shows what ``--fix`` would
do.  ``torch04 rule CODE`` (or ``explain``) prints a rule's page, ``rule --all``
every page.  The configuration is one model (``config/settings.py``), read per
file; ``--show-settings`` prints what governs a file.  Ruff's ``--fix-only``,
``--output-file``, ``--fixable``/``--unfixable``/``--extend-fixable`` and
``--target-version`` are here too.

Exit status: 0 when no finding remains, 1 when findings remain (after fixing,
those not fixed), when a file could not be parsed or read, or when ``--diff``
has changes to show; 2 on a usage error, an internal error (the other files
are still checked and fixed) or output that cannot be written (a full disk, a
closed standard output); 130 when interrupted (Ctrl-C), with one line on
stderr.  A reader that stops reading (``torch04 check | head``) does not change
the status.  A file that cannot be decoded or parsed is reported on stderr as
``PATH: cannot parse: REASON (line N)`` and left untouched.

The configuration (the closest ``[tool.torch04]`` in pyproject.toml, else ``[flake8]``
in setup.cfg/tox.ini/.flake8 as flake8 finds it) is read by ``config/settings.py``;
``--select`` and the other options on the command line apply over it.  Output
formats (after ``--fix``, the findings that remain) are written by
``cli/output.py``: ``concise`` (``PATH:LINE:COL: CODE [*] MESSAGE``, columns
1-based as flake8 prints them, ``[*]`` when ``--fix`` with the options given would
fix it; in notebooks ``PATH:cell N, line M, col C:
...``), ``full``, ``json``, ``json-lines``, ``github``, ``gitlab``, ``sarif`` and
``junit``; with the machine formats the summary and errors go to stderr.
``--statistics``, ``--show-fixes``, ``--exit-zero``, ``--add-noqa`` and
``--remove-noqa`` (``_addnoqa``), ``-j`` and the progress bar are here.

With ``-`` (standard input) and ``--fix``, the fixed source goes to stdout and
everything else to stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections import Counter
from typing import Iterator, List, Optional, Sequence, TextIO, Tuple

from .. import __version__
from ..analysis.registry import all_rules
from ..config.excludes import DEFAULT_EXCLUDES, Excludes
from ..config.select import UsageError, check_selectors, code_list
from ..pipeline import FileResult, Options, check_file
from ..source.document import NotWritten, write_atomically
from .discover import discover
from .output import FORMATS, MACHINE_FORMATS, Style, use_colour

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
#: fewer files than this are checked in this process whatever ``--jobs`` says
#: (starting worker processes costs more than it saves)
MIN_PARALLEL_FILES = 8
#: the progress bar shows once a run has taken this long (seconds)
PROGRESS_DELAY = 1.0


# ---------------------------------------------------------------------------
# the command line


class _BuildFormatter(argparse.HelpFormatter):
    """The formatter the parsers use while they are built: argparse makes one at
    each ``add_argument`` (to check the metavar, whatever the width), and its
    default width asks ``shutil`` for the terminal's, an import (with zlib, bz2
    and lzma) the command needs only for ``--help`` and usage errors.
    :func:`build_parser` gives the parsers argparse's own formatter back."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("width", 80)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torch04",
        description="Find and fix PyTorch 0.1-0.3 idioms that break or misbehave on "
                    "modern PyTorch (the flake8-torch04 rules, without flake8).",
        formatter_class=_BuildFormatter,
    )
    parser.add_argument("--version", action="version", version=f"torch04 {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    check = commands.add_parser(
        "check", help="check (and fix) files, directories and notebooks",
        description="Check Python files and Jupyter notebooks. Exit status: 0 when no "
                    "finding remains, 1 when findings remain or a file could not be "
                    "checked, 2 on a usage or internal error.",
        formatter_class=_BuildFormatter,
    )
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                       help="files or directories (default: .); - reads standard input")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes")
    check.add_argument("--fix-only", action="store_true",
                       help="apply the fixes (implies --fix) and report nothing of what "
                            "is left: exit 0 unless a file cannot be checked or written")
    check.add_argument("--fixable", action="append", metavar="CODES",
                       help="codes or prefixes whose fixes --fix may apply (default: TV, "
                            "every code); replaces the configuration's fixable")
    check.add_argument("--unfixable", action="append", metavar="CODES",
                       help="codes or prefixes whose fixes are never applied (wins over "
                            "--fixable)")
    check.add_argument("--extend-fixable", action="append", metavar="CODES",
                       help="codes or prefixes to add to fixable")
    check.add_argument("--unsafe-fixes", action="store_true", default=None,
                       help="with --fix or --diff, apply the unsafe fixes too")
    check.add_argument("--no-unsafe-fixes", action="store_false", dest="unsafe_fixes",
                       help="do not apply unsafe fixes (overrides unsafe-fixes = true in "
                            "the configuration)")
    check.add_argument("--diff", action="store_true",
                       help="print the changes --fix would make as a unified diff that "
                            "`git apply` accepts; write nothing")
    check.add_argument("--add-noqa", action="store_true",
                       help="add a `# noqa: CODE` comment for every finding (merged into "
                            "an existing `# noqa`), to start from a clean baseline")
    check.add_argument("--remove-noqa", action="append", metavar="CODES",
                       help="remove these codes (or prefixes) from `# noqa: ...` comments, "
                            "to take up one rule of an --add-noqa baseline")
    check.add_argument("--select", action="append", metavar="CODES",
                       help="codes or prefixes to report (default: TV); comma-separated, "
                            "repeatable; a code that matches no rule is an error")
    check.add_argument("--extend-select", action="append", metavar="CODES",
                       help="codes or prefixes to report in addition to --select")
    check.add_argument("--ignore", action="append", metavar="CODES",
                       help="codes or prefixes not to report; the longer prefix of "
                            "--select and --ignore wins")
    check.add_argument("--extend-ignore", action="append", metavar="CODES",
                       help="codes or prefixes not to report, in addition to --ignore")
    check.add_argument("--exclude", action="append", metavar="PATTERNS",
                       help=".gitignore-style patterns of paths to skip when walking "
                            "directories (replaces the configuration's and the default "
                            f"list: {', '.join(DEFAULT_EXCLUDES)})")
    check.add_argument("--extend-exclude", action="append", metavar="PATTERNS",
                       help="patterns to skip in addition to --exclude")
    check.add_argument("--force-exclude", action="store_true",
                       help="apply the excludes to files named on the command line too "
                            "(for pre-commit and editors, which name every file)")
    check.add_argument("--respect-gitignore", action="store_true", default=None,
                       help="skip what git ignores (.gitignore, .git/info/exclude; the "
                            "default)")
    check.add_argument("--no-respect-gitignore", action="store_false",
                       dest="respect_gitignore", help="check files that git ignores too")
    check.add_argument("--config", metavar="FILE",
                       help="read the configuration from FILE (pyproject.toml with "
                            "[tool.torch04], or setup.cfg/tox.ini/.flake8 with [flake8]) "
                            "instead of looking for one")
    check.add_argument("--isolated", action="store_true",
                       help="read no configuration file")
    check.add_argument("--target-version", metavar="VERSION",
                       help="the PyTorch version the code was written for (0.3, 0.4, "
                            "...); overrides target-version in the configuration")
    check.add_argument("--show-settings", action="store_true",
                       help="print the settings that apply to the first PATH and where each "
                            "came from, then exit")
    check.add_argument("-o", "--output-file", metavar="FILE",
                       help="write the report to FILE instead of standard output")
    check.add_argument("--output-format", choices=FORMATS + ("text",), default="concise",
                       metavar="FORMAT",
                       help="concise (default: one line a finding), full (source, caret "
                            "and fix), json, json-lines, github (Actions annotations), "
                            "gitlab (Code Quality), sarif (code scanning), junit")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                       help="colour concise and full output: auto (default: on a "
                            "terminal, unless NO_COLOR is set), always, never")
    check.add_argument("--statistics", action="store_true",
                       help="print one line a code (count, code, fixable, name) instead "
                            "of the findings")
    check.add_argument("--show-fixes", action="store_true",
                       help="with --fix or --diff, list the fixes by file and code")
    check.add_argument("--exit-zero", action="store_true",
                       help="exit 0 even when findings remain (still 1 for files that "
                            "cannot be checked, 2 for usage or internal errors)")
    check.add_argument("-j", "--jobs", type=int, metavar="N", default=None,
                       help="check files in N processes (default: the number of CPUs); "
                            "the output is in the same order whatever N")
    check.add_argument("--stdin-filename", metavar="NAME",
                       help="the name to report for - (a .ipynb name reads a notebook)")
    check.add_argument("-q", "--quiet", action="store_true",
                       help="print no summary and no progress bar")

    rule = commands.add_parser("rule", help="print a rule's page (docs/rules/TVnnn.md)",
                               aliases=["explain"], formatter_class=_BuildFormatter)
    rule.add_argument("code", nargs="?", help="a rule code such as TV003 (omit to list)")
    rule.add_argument("--all", action="store_true", help="print every rule's page")

    server = commands.add_parser(
        "server", help="run the Language Server over stdio (needs flake8-torch04[server])",
        description="A Language Server (LSP, over stdio) that publishes the findings as "
                    "diagnostics and offers their fixes as code actions.",
        formatter_class=_BuildFormatter,
    )
    for built in (parser, check, rule, server):
        built.formatter_class = argparse.HelpFormatter
    return parser


def _patterns(values: Optional[Sequence[str]]) -> List[str]:
    return [p.strip() for v in values or () for p in v.split(",") if p.strip()]


def run_explain(code: Optional[str], out: TextIO, every: bool = False) -> int:
    from .. import ruledocs

    rules = all_rules()
    if every:
        out.write("\n".join(ruledocs.explain(rule) for rule in rules.values()))
        return EXIT_CLEAN
    if code is None:
        for rule in rules.values():
            out.write(f"{rule.code}  {rule.name}: {ruledocs.summary(rule)}\n")
        return EXIT_CLEAN
    rule = rules.get(code.strip().upper())
    if rule is None:
        raise UsageError(f"unknown rule {code!r}; known rules: {', '.join(rules)}")
    out.write(ruledocs.explain(rule))
    return EXIT_CLEAN


def run_server() -> int:
    try:
        from ..server import main as serve
    except ImportError as exc:
        raise UsageError(f"the server needs its extra: pip install 'flake8-torch04[server]' "
                         f"({exc})") from None
    return serve()


def _resolver(args: argparse.Namespace):
    """The configuration of the run (``config/settings.py``): each file's settings."""
    from ..config import settings as config_settings

    layer = config_settings.Layer(
        code_list(args.select, "--select"), code_list(args.extend_select, "--extend-select"),
        code_list(args.ignore, "--ignore"), code_list(args.extend_ignore, "--extend-ignore"),
    )
    check_selectors(("--" + option, code) for option, code in layer.selectors())
    fixes = {}
    for key in ("fixable", "unfixable", "extend_fixable"):
        fixes[key] = code_list(getattr(args, key), "--" + key.replace("_", "-"))
        check_selectors(("--" + key.replace("_", "-"), code) for code in fixes[key] or ())
    version = None if args.target_version is None else \
        config_settings.check_version(args.target_version, "--target-version")
    cli = config_settings.CommandLine(layer, args.unsafe_fixes, args.respect_gitignore,
                                      version, **fixes)
    return config_settings.Resolver(args.config, args.isolated, cli)


class Progress:
    """A progress bar on a terminal's stderr, shown once a run has taken
    ``PROGRESS_DELAY`` seconds, erased at the end."""

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        self.total = total
        self.stream = stream
        isatty = getattr(stream, "isatty", None)
        self.enabled = enabled and total > 1 and bool(isatty and isatty())
        self.shown = False

    def update(self, done: int) -> None:
        if not self.enabled or (not self.shown and self.clock() - self.start < PROGRESS_DELAY):
            return
        self.shown = True
        width = 30
        filled = width * done // self.total
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] "
                          f"{done}/{self.total} files")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _check_job(job: Tuple[str, Options]) -> FileResult:
    return check_file(*job)


def _ignore_ctrl_c() -> None:
    """A worker process's start: Ctrl-C is the main process's to handle.

    The terminal sends SIGINT to every process of the group: a worker that took
    it printed its own traceback before the main process's one line, and one
    stopped while it sent a result left the main process waiting for the rest
    of it (the pool's end then never came).  The workers end when the main
    process ends the pool."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """SIGINT ignored while the workers start: a worker takes the handler as it
    is (a forked one, and a spawned one the ignoring), before
    :func:`_ignore_ctrl_c` runs.  A Ctrl-C in those milliseconds is lost (the
    next one is not).  (Signals are the main thread's only.)"""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _check_all(jobs: List[Tuple[str, Options]], processes: int,
               progress: Progress) -> Iterator[FileResult]:
    """Results in the order of ``jobs``, from ``processes`` worker processes."""
    pool = None
    if processes > 1 and len(jobs) >= MIN_PARALLEL_FILES:
        import multiprocessing

        try:
            with _workers_ignore_ctrl_c():
                pool = multiprocessing.Pool(min(processes, len(jobs)), _ignore_ctrl_c)
        except (OSError, ImportError, ValueError):
            pool = None  # (no semaphores, no /dev/shm: check in this process)
    if pool is not None:
        chunk = max(1, min(16, len(jobs) // (processes * 4)))
        with pool:
            for done, result in enumerate(pool.imap(_check_job, jobs, chunk), 1):
                progress.update(done)
                yield result
        return
    for done, job in enumerate(jobs, 1):
        result = _check_job(job)
        progress.update(done)
        yield result


def run_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    if args.output_file is not None and not args.show_settings:
        try:
            report = open(args.output_file, "w", encoding="utf-8", newline="")
        except OSError as exc:
            raise UsageError(f"--output-file: {args.output_file}: "
                             f"{(exc.strerror or str(exc)).lower()}") from None
        with report:
            return _run_check(args, report, stderr)
    return _run_check(args, stdout, stderr)


def show_settings(resolver, path: str, out: TextIO) -> int:
    """``--show-settings``: the settings that govern ``path`` and where each came from."""
    out.write(f"Settings for {path}:\n")
    for line in resolver.for_path(path).describe(path):
        out.write(f"  {line}\n")
    return EXIT_CLEAN


def _write_fixed(by_path: dict, options: Options, resolver) -> None:
    """Write each fixed file; one that cannot be is reported as it stays."""
    for name, result in list(by_path.items()):
        if result.new_data is None:
            continue
        try:
            write_atomically(result.name, result.new_data, original=result.original)
        except (NotWritten, OSError) as exc:
            reason = (f"not written: {exc}" if isinstance(exc, NotWritten)
                      else f"cannot write: {exc.strerror or exc}")
            # what is reported is the file as it stays: checked, not fixed
            by_path[name] = check_file(result.name, options._replace(
                codes=resolver.for_path(result.name).codes_for(result.name),
                fix=False))._replace(error=reason)


def _fix_again(by_path: dict, file_jobs: list, processes: int, options: Options,
               resolver) -> None:
    """Once the fixed files are written, check and fix those files once more: what
    a file's findings read of the other modules (a caller's argument, a class's
    attributes) is now their fixed code, which may call for more fixes (a
    ``self.mu.data[0]`` that TV144 takes once another module's ``Variable(...)``
    is gone), and what is left to report is what a later check reports.  A file
    that was 0.3 code by its own text keeps being fixed as 0.3 code (its fixes
    may have removed that text: ``target-version`` 0.3 for it).  Where the run
    wrote one file only, nothing it reads changed but itself: no second pass."""
    from ..analysis.era import file_evidence
    from ..analysis.project.importers import forget

    again = []
    for path, job in file_jobs:
        first = by_path.get(path)
        if first is None or first.new_data is None or first.error or first.original is None:
            continue
        if job.target_version is None and \
                file_evidence(first.original.decode("utf-8", "replace")):
            job = job._replace(target_version="0.3")
        again.append((path, job))
    if len(again) < 2:
        return  # (one file written: its own rounds of fixes saw it as it is now)
    from ..analysis import era

    forget()  # (the project as written now)
    try:
        _merge_again(by_path, _check_all(again, processes, Progress(0, sys.stderr, False)))
    finally:
        era.configured_target = options.target_version  # (the run's own setting again)


def _merge_again(by_path: dict, results) -> None:
    """Take the second pass's results: its fixes counted with the first's, written
    over the first's; a file it could not check or write keeps the first's."""
    for result in results:
        first = by_path[result.name]
        if result.error:
            continue  # (the first pass's result stands, written)
        merged = result._replace(fixed=first.fixed + result.fixed, original=first.original,
                                 dropped=tuple(dict.fromkeys(first.dropped + result.dropped)),
                                 notes=tuple(dict.fromkeys(first.notes + result.notes)))
        if result.new_data is not None:
            try:
                write_atomically(result.name, result.new_data, original=result.original)
            except (NotWritten, OSError):
                continue  # (the first pass's result stands, written)
        else:
            merged = merged._replace(new_data=first.new_data)
        by_path[result.name] = merged


def _settle_imports(by_path: dict) -> None:
    """Once the run's fixes are written, drop again the imports from torch a fix
    kept because another module of the project used them or could not be parsed:
    the same run may have fixed that module (its ``Variable(...)`` calls, its
    ``async=``), and the import is dead now.  Only the import is touched; a file
    is written only when the result parses, and what stays kept is noted again."""
    from ..analysis.project.importers import forget
    from ..fix.imports import KEPT, kept_imports, project_users, remove_variable_imports
    from ..source.document import CannotParse, Document
    from ..source.parse import dominant_newline, parse

    kept = {name: kept_imports(r.notes) for name, r in by_path.items()
            if r.new_data is not None and not r.error}
    kept = {name: names for name, names in kept.items() if names}
    if not kept:
        return
    forget()  # (the project as written now)
    for name, names in kept.items():
        first = by_path[name]
        try:
            with open(first.name, "rb") as handle:
                data = handle.read()
            doc = Document(data, first.name)
            if doc.notebook is not None:
                continue
            notes: List[str] = []
            text = remove_variable_imports(doc.text, names, dominant_newline(doc.text),
                                           None, project_users(first.name, notes))
            if text == doc.text:
                continue
            parse(text)
            write_atomically(first.name, doc.to_bytes(text), original=data)
        except (OSError, SyntaxError, ValueError, NotWritten, CannotParse):
            continue  # (the first pass's result stands, written)
        by_path[name] = first._replace(notes=tuple(
            n for n in first.notes if not n.startswith(KEPT)) + tuple(notes))


def _run_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..analysis.project.importers import forget

    forget()  # (one index of the project's importers per run)
    resolver = _resolver(args)
    if args.show_settings:
        return show_settings(resolver, args.paths[0], stdout)
    if args.fix_only:
        args.fix = True
    settings = resolver.for_path(None)  # the current directory's: the run's own settings
    unsafe = bool(settings.unsafe_fixes)
    fmt = "concise" if args.output_format == "text" else args.output_format
    options = Options(settings.codes(), fix=args.fix, unsafe=unsafe, diff=args.diff,
                      quiet=args.quiet, snippets=fmt in ("full", "gitlab"),
                      fixable=frozenset(settings.fixable_codes()),
                      target_version=settings.target_version)
    remove = code_list(args.remove_noqa, "--remove-noqa")
    if remove:
        check_selectors(("--remove-noqa", code) for code in remove)
    if args.add_noqa + bool(remove) + (args.fix or args.diff) > 1:
        raise UsageError("--add-noqa, --remove-noqa and --fix/--diff cannot be combined")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs: give a number of processes of at least 1")
    if args.paths.count("-") > 1:
        raise UsageError("- (standard input) can be given only once")
    if (args.add_noqa or remove) and "-" in args.paths:
        raise UsageError("--add-noqa and --remove-noqa cannot read standard input")
    for path in args.paths:
        if path != "-":
            try:
                os.stat(path)
            except OSError as exc:  # (ENOENT, ELOOP, EACCES, ...: say which)
                reason = (exc.strerror or str(exc)).lower()
                raise UsageError(f"{path}: {reason}") from None
    cli_excludes = _patterns(args.exclude) if args.exclude is not None else (
        list(DEFAULT_EXCLUDES) if settings.exclude is None else [])
    excludes = Excludes(cli_excludes + _patterns(args.extend_exclude))
    # each path is matched by the configuration that governs its directory (a nested
    # pyproject.toml's excludes apply under it); a named file's directories are matched
    # too, except by [flake8] excludes: flake8 matches a file it is given by its own
    # name and path only
    skip = resolver.skip(replaced=args.exclude is not None)
    problems: List[Tuple[str, str, bool]] = []
    paths = list(discover(args.paths, excludes, skip=skip, force_exclude=args.force_exclude,
                          gitignore=settings.respect_gitignore, problems=problems))
    if args.add_noqa:
        return _run_add_noqa(paths, resolver, options, stdout, stderr)
    if remove:
        return _run_remove_noqa(paths, remove, options, stdout, stderr)
    # what could not be walked is reported as a file that could not be checked
    results: List[FileResult] = [
        FileResult(name, [], Counter(), error=reason) if is_error
        else FileResult(name, [], Counter(), notes=(reason,))
        for name, reason, is_error in problems]
    fixed_stdin: Optional[bytes] = None
    jobs = []
    for path in paths:
        name = (args.stdin_filename or "stdin") if path == "-" else path
        governing = resolver.for_path(name if path != "-" or args.stdin_filename else None)
        codes = governing.codes_for(name)
        job = options if codes is options.codes else options._replace(codes=codes)
        if governing is not settings:
            job = job._replace(unsafe=bool(governing.unsafe_fixes),
                               fixable=frozenset(governing.fixable_codes()),
                               target_version=governing.target_version)
        jobs.append((path, job))
    file_jobs = [job for job in jobs if job[0] != "-"]
    processes = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    progress = Progress(len(file_jobs), stderr, not args.quiet)
    by_path = {}
    try:
        for result in _check_all(file_jobs, processes, progress):
            by_path[result.name] = result
    finally:
        progress.close()
    # (written once every file is checked: what a file's findings read of the
    # project's other modules, a caller's argument, is the code as it was, not
    # half fixed)
    if options.fix and not options.diff:
        _write_fixed(by_path, options, resolver)
        _fix_again(by_path, file_jobs, processes, options, resolver)
        _settle_imports(by_path)
        _note_era(by_path)
    for path, job_options in jobs:
        if path == "-":
            name = args.stdin_filename or "stdin"
            data = sys.stdin.buffer.read()
            result = check_file(path, job_options, stdin=data, name=name)
            if options.fix and not options.diff:
                fixed_stdin = result.new_data if result.new_data is not None else data
            results.append(result)
        else:
            results.append(by_path[path])
    if args.fix_only:  # (Ruff's --fix-only: what is left is not reported)
        results = [r._replace(findings=[], incomplete=False) for r in results]
    style = Style(use_colour(args.color, stdout) and fmt in ("concise", "full"))
    status = _write_report(results, options, fmt, stdout, stderr, fixed_stdin, args, style)
    if args.exit_zero and status == EXIT_FINDINGS and not any(r.error for r in results):
        return EXIT_CLEAN
    return status


#: what a fix run says where it removed the last pre-0.4 idiom of a project
ERA_NOTE = ("no PyTorch 0.3 idiom is left in the project at {root} after these fixes: a "
            "later check takes it for modern code, and the rules for 0.3 code only ({codes}) "
            "stop reporting there; set `target-version = \"0.3\"` in the configuration (or "
            "pass --target-version 0.3) to keep them")


def _note_era(by_path) -> None:
    """Tell, on one fixed file of each, which projects the fixes turned into what a
    later check takes for modern code (:func:`..analysis.era.evidence_lost`), where
    the run leaves findings of the rules for 0.3 code: a later check leaves them out."""
    from ..analysis.era import ERA_RULES, evidence_lost

    fixed = [(name, r.original.decode("utf-8", "replace")) for name, r in by_path.items()
             if r.new_data is not None and r.original is not None and not r.error]
    if not fixed or not any(f.finding.code in ERA_RULES for r in by_path.values()
                            for f in r.findings):
        return  # (nothing a later check would leave out)
    for root in evidence_lost(fixed):
        name = next((n for n, _ in fixed
                     if os.path.abspath(n).startswith(root + os.sep)), fixed[0][0])
        result = by_path[name]
        by_path[name] = result._replace(notes=tuple(result.notes) + (
            ERA_NOTE.format(root=os.path.relpath(root) if root != os.getcwd() else ".",
                            codes=", ".join(sorted(ERA_RULES))),))


def _run_add_noqa(paths: List[str], resolver, options: Options, stdout: TextIO,
                  stderr: TextIO) -> int:
    from ..fix.addnoqa import add_noqa
    from ..pipeline import check_document
    from ..source.document import Document

    def edit(path: str, doc, report) -> Tuple[str, Counter]:
        file_options = options._replace(codes=resolver.for_path(path).codes_for(path))
        result = check_document(doc, file_options)
        if result.error:
            raise _NotRewritten(result.error)
        if not result.findings:
            return doc.text, Counter()
        text, codes = add_noqa(doc.text, [loc.finding for loc in result.findings], doc.locked)
        if codes:
            check = check_document(Document(doc.to_bytes(text), path), file_options)
            if check.error:  # (never expected: a comment at the end of a logical line)
                raise _NotRewritten(f"noqa comments not added: {check.error}")
            for loc in check.findings:
                report(f"{path}:{loc.line}:{loc.finding.col + 1}: {loc.finding.code} could "
                       f"not be silenced with a noqa comment")
        return text, codes

    return _rewrite_noqa(paths, "Added", edit, options, stdout, stderr)


def _run_remove_noqa(paths: List[str], codes: List[str], options: Options,
                     stdout: TextIO, stderr: TextIO) -> int:
    from ..fix.addnoqa import remove_noqa

    return _rewrite_noqa(paths, "Removed", lambda path, doc, report: remove_noqa(doc.text, codes),
                         options, stdout, stderr)


class _NotRewritten(Exception):
    """A file ``--add-noqa``/``--remove-noqa`` leaves alone, with the reason."""


def _rewrite_noqa(paths: List[str], verb: str, edit, options: Options, stdout: TextIO,
                  stderr: TextIO) -> int:
    """Rewrite each file's ``# noqa`` comments with ``edit(path, document, report)``,
    which returns the new text and the codes added or removed (``report(line)``
    says what went wrong, and the run then exits 1); written as ``--fix`` writes
    (never over a file that changed meanwhile, nor a read-only one)."""
    from ..source.document import CannotParse, Document

    changed: Counter = Counter()
    files = 0
    failed = False
    problems: List[str] = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            doc = Document(data, path)
            text, codes = edit(path, doc, problems.append)
            if not codes:
                continue
            write_atomically(path, doc.to_bytes(text), original=data)
        except (CannotParse, _NotRewritten) as exc:
            problems.append(f"{path}: {exc}")
            continue
        except NotWritten as exc:
            problems.append(f"{path}: not written: {exc}")
            continue
        except OSError as exc:
            problems.append(f"{path}: cannot write: {exc.strerror or exc}")
            continue
        finally:
            for line in problems:
                stderr.write(line + "\n")
            failed = failed or bool(problems)
            problems.clear()
        changed.update(codes)
        files += 1
    if not options.quiet:
        total = sum(changed.values())
        detail = " (" + ", ".join(f"{c}: {n}" for c, n in sorted(changed.items())) + ")" \
            if changed else ""
        stdout.write(f"{verb} {total} noqa code{'s' if total != 1 else ''} in {files} "
                     f"file{'s' if files != 1 else ''}{detail}.\n")
    return EXIT_FINDINGS if failed else EXIT_CLEAN


def _report(results: List[FileResult], options: Options, fmt: str, stdout: TextIO,
            stderr: TextIO, fixed_stdin: Optional[bytes], args: argparse.Namespace,
            style: Style) -> int:
    from . import output as cli_output

    # with a fixed standard input on stdout, everything else goes to stderr
    out = stderr if fixed_stdin is not None else stdout
    machine = fmt in MACHINE_FORMATS
    info = stderr if machine or options.diff or fixed_stdin is not None else stdout
    if options.diff:
        for r in results:
            stdout.write(r.diff)
    elif args.statistics:
        cli_output.write_statistics(results, out, machine)
    else:
        if fmt in ("json", "json-lines"):
            cli_output.write_json(results, out, lines=fmt == "json-lines")
        elif fmt == "gitlab":
            cli_output.write_gitlab(results, out)
        elif fmt == "sarif":
            cli_output.write_sarif(results, out, options)
        elif fmt == "junit":
            cli_output.write_junit(results, out)
        for r in results:
            if fmt == "concise":
                cli_output.format_text(r, out, style)
            elif fmt == "full":
                cli_output.format_full(r, out, options, style)
            elif fmt == "github":
                for loc in r.findings:
                    out.write(cli_output.github_annotation(r, loc) + "\n")
    for r in results:
        for note in r.dropped + r.notes:
            stderr.write(f"{r.name}: {note}\n")
        if r.error:
            if fmt == "github":
                out.write(cli_output.github_error(r) + "\n")
            stderr.write(f"{r.name}: {r.error}\n")
    if args.show_fixes and (options.fix or options.diff):
        cli_output.write_fixes(results, info, diff=options.diff)
    if not options.quiet:
        for line in cli_output.summary_lines(results, options):
            info.write(line + "\n")
    if fixed_stdin is not None:
        stdout.flush()
        buffer = getattr(stdout, "buffer", None)
        if buffer is not None:
            buffer.write(fixed_stdin)
            buffer.flush()
        else:
            stdout.write(fixed_stdin.decode("utf-8", "surrogateescape"))
    return exit_status(results, options)


def exit_status(results: Sequence[FileResult], options: Options) -> int:
    if any(r.internal for r in results):
        return EXIT_ERROR
    remaining = any(r.findings or r.error or r.incomplete for r in results)
    if options.diff and any(r.diff for r in results):
        remaining = True
    return EXIT_FINDINGS if remaining else EXIT_CLEAN


class OutputError(Exception):
    """The output could not be written: reported on stderr, exit status 2."""


def _write_report(results: List[FileResult], options: Options, fmt: str, stdout: TextIO,
                  stderr: TextIO, fixed_stdin: Optional[bytes], args: argparse.Namespace,
                  style: Style) -> int:
    """:func:`_report`, with the failures of standard output said in one line.

    A reader that goes away (``torch04 check | head``) ends the output, not the
    exit status: it is what the run found.  A full disk or a closed standard
    output is an error (2), and so is a fixed standard input that could not be
    written out, so that an editor never takes an empty output for the fix.
    """
    try:
        status = _report(results, options, fmt, stdout, stderr, fixed_stdin, args, style)
        stdout.flush()
        return status
    except BrokenPipeError:
        _silence_stdout()
        if fixed_stdin is not None:
            raise OutputError("the fixed source could not be written to standard output "
                              "(the pipe was closed)") from None
        return exit_status(results, options)
    except OSError as exc:
        _silence_stdout()
        what = "the fixed source" if fixed_stdin is not None else "the output"
        raise OutputError(f"cannot write {what}: {exc.strerror or exc}") from None


def _quietly(write) -> int:
    """``write()``, ended quietly when the reader of standard output goes away
    (``torch04 rule --all | head -1``), as ``check`` ends."""
    try:
        status = write()
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_CLEAN


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that flushing it at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass


#: the cyclic garbage collector's first threshold while files are checked: each
#: file's tree is hundreds of thousands of objects, none in a cycle, and at
#: Python's default (700) the collector keeps rescanning them (mypy raises it too)
GC_THRESHOLD = 20_000


def main(argv: Optional[Sequence[str]] = None) -> int:
    threshold = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        return _main(argv)
    except KeyboardInterrupt:  # (a file being written is never left half-written)
        sys.stderr.write("torch04: interrupted\n")
        return EXIT_INTERRUPTED
    finally:
        gc.set_threshold(*threshold)


def _main(argv: Optional[Sequence[str]]) -> int:
    if sys.stdout is None:  # started with standard output closed
        sys.stderr.write("torch04: error: standard output is closed\n")
        return EXIT_ERROR
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 for --help/--version, 2 for usage errors
        return int(exc.code or 0)
    try:
        if args.command in ("rule", "explain"):
            return _quietly(lambda: run_explain(args.code, sys.stdout, args.all))
        if args.command == "server":
            return run_server()
        if args.diff and args.fix:
            args.fix = False  # --diff writes nothing
        status = run_check(args, sys.stdout, sys.stderr)
    except (UsageError, OutputError) as exc:
        sys.stderr.write(f"torch04: error: {exc}\n")
        return EXIT_ERROR
    if argv is None:  # (the command itself, not a caller in the same process)
        _exit_now(status)
    return status


def _exit_now(status: int) -> None:
    """End the process with ``status`` at once, as mypy does, when nothing else in it
    can be waiting for Python's own exit: the objects a run leaves (its modules, the
    project's caches) are not freed one by one and collected, which costs a run of
    ``check`` over a few hundred files about 10 ms.  Nothing is skipped that anyone
    would see: this returns (and Python exits as usual) when a function is registered
    with ``atexit`` (coverage, multiprocessing, logging), another thread runs, a
    tracer or profiler is on (``pdb``, ``cProfile``), or the output cannot be flushed.
    """
    import atexit

    ncallbacks = getattr(atexit, "_ncallbacks", None)
    if ncallbacks is None or ncallbacks() or sys.gettrace() is not None \
            or sys.getprofile() is not None:
        return
    monitoring = getattr(sys, "monitoring", None)  # (Python 3.12: cProfile's profiler)
    if monitoring is not None and any(monitoring.get_tool(tool) for tool in range(6)):
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # (a closed or broken stream: Python reports it as it always did)
        return
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
