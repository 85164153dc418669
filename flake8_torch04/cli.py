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
import sys
from collections import Counter
from typing import List, Optional, Sequence, TextIO

from . import __version__
from ._check import FileResult, Options, check_file
from ._core import all_rules
from ._files import DEFAULT_EXCLUDES, Excludes, discover, write_atomically
from ._output import (
    _escape_data, _escape_property, format_text, github_annotation, json_record, summary_lines,
)
from ._select import UsageError, _code_list, selected_codes

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


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
                       help="codes or prefixes to report (default: TV); comma-separated, "
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
