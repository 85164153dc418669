"""Output formats of ``torch04 check`` (``--output-format``), ``--statistics``,
``--show-fixes`` and the summary.

- ``concise`` (``text``): ``PATH:LINE:COL: CODE [*] MESSAGE`` a line;
- ``full``: grouped by file, each finding with its source lines, a caret under the
  flagged code, its fix as a diff and the fix's applicability;
- ``json`` (one array), ``json-lines`` (one object a line);
- ``github``: GitHub Actions workflow commands (annotations);
- ``gitlab``: GitLab Code Quality JSON;
- ``sarif``: SARIF 2.1.0 (GitHub code scanning);
- ``junit``: JUnit XML (one test suite a file, one failing test case a finding).

Machine formats name files relative to the current directory, without ``./``.
``json``, ``hashlib`` and ``xml`` are imported only by the formats that need them.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Dict, List, Optional, Sequence, TextIO

from ..analysis.findings import SAFE, UNSAFE
from ..pipeline import FileResult, Located, Options

FORMATS = ("concise", "full", "json", "json-lines", "github", "gitlab", "sarif", "junit")
#: formats that print to stdout what a program reads: the summary goes to stderr
MACHINE_FORMATS = ("json", "json-lines", "gitlab", "sarif", "junit")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


class Style:
    """ANSI colours, or nothing."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled and text else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def code(self, text: str) -> str:
        return self._wrap("1;31", text)

    def fix(self, text: str) -> str:
        return self._wrap("36", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def added(self, text: str) -> str:
        return self._wrap("32", text)

    def removed(self, text: str) -> str:
        return self._wrap("31", text)


def use_colour(choice: str, stream: TextIO) -> bool:
    """``--color``: ``always``, ``never``, or ``auto`` (a terminal, and ``NO_COLOR``
    unset or empty, as https://no-color.org asks)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def relative_name(name: str) -> str:
    """A path relative to the current directory, ``/``-separated, without ``./``
    (an absolute path outside the current directory stays absolute)."""
    if name in ("-", "stdin") or "://" in name:
        return name
    if os.path.isabs(name):
        rel = os.path.relpath(name)
        if not rel.startswith(".."):
            name = rel
    else:
        name = os.path.normpath(name)
    return name.replace(os.sep, "/")


def _position(loc: Located) -> str:
    col = loc.finding.col + 1
    if loc.cell is None:
        return f"{loc.line}:{col}"
    return f"cell {loc.cell}, line {loc.line}, col {col}"


# ---------------------------------------------------------------------------
# concise and full


def format_text(result: FileResult, out: TextIO, style: Optional[Style] = None) -> None:
    """``concise``: one line a finding."""
    style = style or Style(False)
    for loc in result.findings:
        mark = style.fix("[*]") + " " if loc.fixable else ""
        out.write(f"{style.bold(result.name)}:{_position(loc)}: "
                  f"{style.code(loc.finding.code)} {mark}{loc.finding.message}\n")


def applicability(loc: Located, options: Options) -> str:
    fix = loc.finding.fix
    if fix is None:
        return "no automatic fix: edit by hand as the message says"
    if loc.fixable:
        how = "--fix --unsafe-fixes" if fix.safety == UNSAFE else "--fix"
        return f"{fix.safety} fix, applied by {how}"
    if fix.safety == UNSAFE and not options.unsafe:
        return "unsafe fix, applied by --fix --unsafe-fixes"
    return f"{fix.safety} fix, not applicable here (see `torch04 rule {loc.finding.code}`)"


def format_full(result: FileResult, out: TextIO, options: Options,
                style: Optional[Style] = None) -> None:
    """``full``: a header a file, then each finding with its source and fix."""
    style = style or Style(False)
    if not result.findings:
        return
    out.write(style.bold(result.name) + ":\n")
    for loc in result.findings:
        f = loc.finding
        mark = style.fix("[*]") + " " if loc.fixable else ""
        out.write(f"  {_position(loc)}: {style.code(f.code)} {mark}{f.message}\n")
        lines = [line.rstrip("\r\n") for line in loc.source]
        if lines:
            width = len(str(loc.span_line + len(lines) - 1))
            gutter = " " * width
            out.write(f"    {gutter} {style.dim('|')}\n")
            for i, text in enumerate(lines):
                number = str(loc.span_line + i).rjust(width)
                out.write(f"    {style.dim(number + ' |')} {text}\n")
                if loc.span_line + i == loc.line:
                    start = f.col
                    end = (f.end_col if f.end_line == f.line and f.end_col > f.col
                           else len(text))
                    caret = " " * start + "^" * max(1, end - start)
                    out.write(f"    {gutter} {style.dim('|')} {style.code(caret)}\n")
            out.write(f"    {gutter} {style.dim('=')} {applicability(loc, options)}\n")
            if loc.fixed_source is not None:
                for text in lines:
                    out.write(f"    {gutter}   {style.removed('- ' + text)}\n")
                for text in loc.fixed_source.splitlines():
                    out.write(f"    {gutter}   {style.added('+ ' + text)}\n")
                if f.fix is not None and f.fix.imports:
                    added = ", ".join(f.fix.imports)
                    out.write(f"    {gutter}   (and imports {added} where missing)\n")
            out.write(f"    {gutter} {style.dim('=')} docs: {_url(f.code)}\n")
        out.write("\n")


# ---------------------------------------------------------------------------
# json and json-lines


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
        "end_column": _end_column(loc) + 1,
        "code": f.code,
        "message": f.message,
        "fix": fix,
        "url": _url(f.code),
    }


def _url(code: str) -> str:
    from ..ruledocs import rule_url

    return rule_url(code)


def _end_column(loc: Located) -> int:
    f = loc.finding
    return f.end_col if f.end_line else f.col


def write_json(results: Sequence[FileResult], out: TextIO, lines: bool = False) -> None:
    import json

    records = [json_record(r, loc) for r in results for loc in r.findings]
    if lines:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    else:
        out.write(json.dumps(records, indent=2, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------------------
# github


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(result: FileResult, loc: Located) -> str:
    f = loc.finding
    props = [f"file={_escape_property(relative_name(result.name))}"]
    message = f"{f.code} {f.message}"
    if loc.cell is None:
        props += [f"line={loc.line}", f"col={f.col + 1}"]
        if f.end_line == f.line and f.end_col > f.col:
            props += [f"endLine={loc.end_line}", f"endColumn={f.end_col + 1}"]
    else:
        message = f"cell {loc.cell}, line {loc.line}, col {f.col + 1}: {message}"
    props.append(f"title={_escape_property(f.code)}")
    return f"::warning {','.join(props)}::{_escape_data(message)}"


def github_error(result: FileResult) -> str:
    return (f"::error file={_escape_property(relative_name(result.name))}::"
            f"{_escape_data(result.error or '')}")


# ---------------------------------------------------------------------------
# gitlab


def write_gitlab(results: Sequence[FileResult], out: TextIO) -> None:
    """GitLab Code Quality: ``description``, ``check_name``, ``fingerprint`` (stable
    while the flagged line's text stays the same), ``severity``, ``location``."""
    import hashlib
    import json

    records = []
    seen: Counter = Counter()
    for r in results:
        path = relative_name(r.name)
        for loc in r.findings:
            f = loc.finding
            text = loc.source[loc.line - loc.span_line].strip() if loc.source else ""
            key = f"{path}\0{loc.cell}\0{f.code}\0{text}"
            seen[key] += 1
            digest = hashlib.sha256(f"{key}\0{seen[key]}".encode("utf-8", "replace"))
            where = "" if loc.cell is None else f"cell {loc.cell}, line {loc.line}: "
            records.append({
                "description": f"{where}{f.code} {f.message}",
                "check_name": f.code,
                "fingerprint": digest.hexdigest(),
                "severity": "major",
                "location": {"path": path,
                             "lines": {"begin": loc.line, "end": loc.end_line}},
            })
        if r.error:
            digest = hashlib.sha256(f"{path}\0error".encode("utf-8", "replace"))
            records.append({
                "description": r.error, "check_name": "torch04-error",
                "fingerprint": digest.hexdigest(), "severity": "blocker",
                "location": {"path": path, "lines": {"begin": 1}},
            })
    out.write(json.dumps(records, indent=2, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------------------
# sarif


def sarif_log(results: Sequence[FileResult], options: Options) -> dict:
    """A SARIF 2.1.0 log: one run, the selected rules, one result a finding (with its
    fix as ``fixes``), files that could not be checked as notifications."""
    from .. import __version__, ruledocs
    from ..analysis.registry import all_rules

    rules = all_rules()
    listed = [c for c in rules if c in options.codes] or list(rules)
    index = {code: i for i, code in enumerate(listed)}
    descriptors = []
    for code in listed:
        rule = rules[code]
        descriptors.append({
            "id": code,
            "name": rule.name,
            "shortDescription": {"text": ruledocs.summary(rule)},
            "fullDescription": {"text": rule.doc},
            "help": {"text": rule.doc, "markdown": rule.doc},
            "helpUri": ruledocs.rule_url(code),
            "defaultConfiguration": {"level": "warning"},
        })
    out_results = []
    notifications = []
    for r in results:
        uri = _uri(relative_name(r.name))
        for loc in r.findings:
            f = loc.finding
            physical: Dict[str, object] = {"artifactLocation": {"uri": uri,
                                                                "uriBaseId": "%SRCROOT%"}}
            message = f"{f.code} {f.message}"
            if loc.cell is None:
                region = {"startLine": loc.line, "startColumn": f.col + 1}
                if f.end_line:
                    region.update(endLine=loc.end_line, endColumn=_end_column(loc) + 1)
                physical["region"] = region
            else:
                message = f"cell {loc.cell}, line {loc.line}, col {f.col + 1}: {message}"
            result = {
                "ruleId": f.code,
                "level": "warning",
                "message": {"text": message},
                "locations": [{"physicalLocation": physical}],
            }
            if f.code in index:
                result["ruleIndex"] = index[f.code]
            if f.fix is not None and loc.cell is None and loc.edits:
                result["fixes"] = [{
                    "description": {"text": f"{f.fix.safety} fix"},
                    "artifactChanges": [{
                        "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                        "replacements": [
                            {"deletedRegion": {"startLine": l1, "startColumn": c1 + 1,
                                               "endLine": l2, "endColumn": c2 + 1},
                             "insertedContent": {"text": text}}
                            for l1, c1, l2, c2, text in loc.edits
                        ],
                    }],
                }]
            out_results.append(result)
        if r.error:
            notifications.append({
                "level": "error",
                "message": {"text": r.error},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}}],
            })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "torch04", "version": __version__,
                                "semanticVersion": __version__, "rules": descriptors}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": not any(r.internal for r in results),
                "toolExecutionNotifications": notifications,
            }],
            "results": out_results,
        }],
    }


def _uri(path: str) -> str:
    from urllib.parse import quote

    if os.path.isabs(path):
        return "file://" + quote(path)
    return quote(path)


def write_sarif(results: Sequence[FileResult], out: TextIO, options: Options) -> None:
    import json

    out.write(json.dumps(sarif_log(results, options), indent=2, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------------------
# junit


def write_junit(results: Sequence[FileResult], out: TextIO) -> None:
    """JUnit XML: a ``testsuite`` a file, a failing ``testcase`` a finding (a file
    without findings has one passing test case), an ``error`` for a file that could
    not be checked."""
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="torch04")
    total = failures = errors = 0
    for r in results:
        path = relative_name(r.name)
        suite = ET.SubElement(suites, "testsuite", name=path)
        cases = 0
        for loc in r.findings:
            f = loc.finding
            case = ET.SubElement(suite, "testcase", name=f"torch04.{f.code}",
                                 classname=path, file=path, line=str(loc.line))
            failure = ET.SubElement(case, "failure", message=f"{f.code} {f.message}",
                                    type=f.code)
            failure.text = f"{path}:{_position(loc)}: {f.code} {f.message}"
            cases += 1
        if r.error:
            case = ET.SubElement(suite, "testcase", name="torch04.check", classname=path,
                                 file=path)
            error = ET.SubElement(case, "error", message=r.error)
            error.text = r.error
            cases += 1
            errors += 1
        if not cases:
            ET.SubElement(suite, "testcase", name="torch04.no-findings", classname=path,
                          file=path)
            cases = 1
        suite.set("tests", str(cases))
        suite.set("failures", str(len(r.findings)))
        suite.set("errors", "1" if r.error else "0")
        total += cases
        failures += len(r.findings)
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    suites.set("errors", str(errors))
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(suites, encoding="unicode") + "\n")


# ---------------------------------------------------------------------------
# --statistics, --show-fixes, the summary


def statistics(results: Sequence[FileResult]) -> List[dict]:
    """One row a code, most frequent first: count, code, name, fixable count."""
    from ..analysis.registry import all_rules

    rules = all_rules()
    counts: Counter = Counter()
    fixable: Counter = Counter()
    for r in results:
        for loc in r.findings:
            counts[loc.finding.code] += 1
            fixable[loc.finding.code] += loc.fixable
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        rule = rules.get(code)
        rows.append({"code": code, "name": rule.name if rule else "", "count": count,
                     "fixable": fixable[code]})
    return rows


def write_statistics(results: Sequence[FileResult], out: TextIO, machine: bool) -> None:
    rows = statistics(results)
    if machine:
        import json

        out.write(json.dumps(rows, indent=2) + "\n")
        return
    width = max((len(str(row["count"])) for row in rows), default=1)
    for row in rows:
        if row["fixable"] == row["count"]:
            mark = "[*]"
        elif row["fixable"]:
            mark = "[-]"  # some of them
        else:
            mark = "[ ]"
        out.write(f"{str(row['count']).rjust(width)}\t{row['code']}\t{mark} {row['name']}\n")


def write_fixes(results: Sequence[FileResult], out: TextIO, diff: bool) -> None:
    """``--show-fixes``: what was (or, with ``--diff``, would be) fixed, file by file."""
    from ..analysis.registry import all_rules

    rules = all_rules()
    fixed = [r for r in results if r.fixed]
    total = sum(sum(r.fixed.values()) for r in fixed)
    if not fixed:
        out.write("No fixes would be applied.\n" if diff else "No fixes applied.\n")
        return
    verb = "Would fix" if diff else "Fixed"
    out.write(f"{verb} {_plural(total, 'finding')}:\n")
    for r in fixed:
        out.write(f"- {r.name}:\n")
        for code, n in sorted(r.fixed.items()):
            name = rules[code].name if code in rules else ""
            out.write(f"    {n} \u00d7 {code} ({name})\n")


#: how ``run_check`` reports a checked file it did not write
_NOT_WRITTEN = ("not written:", "cannot write:")


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
    unwritten = sum(1 for r in results if r.error and not r.internal
                    and r.error.startswith(_NOT_WRITTEN))
    errors = sum(1 for r in results if r.error and not r.internal) - unwritten
    if errors:
        lines.append(f"{_plural(errors, 'file')} could not be checked (left untouched).")
    if unwritten:  # (checked, their findings counted above)
        lines.append(f"{_plural(unwritten, 'file')} checked but not written (left untouched).")
    dropped = sum(len(r.dropped) for r in results)
    if dropped:
        lines.append(f"{_plural(dropped, 'fix')} not applied (see above).")
    return lines
