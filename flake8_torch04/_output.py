"""Output formats of ``torch04 check``: text lines, JSON records, GitHub annotations,
and the summary."""
from __future__ import annotations

from collections import Counter
from typing import List, Sequence, TextIO

from ._check import FileResult, Located, Options
from ._core import SAFE


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
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith(("s", "x", "ch", "sh")) else f"{n} {word}s"


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
