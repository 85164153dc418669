"""Applying fixes to source text, the pyupgrade/Ruff way.

Rules describe fixes as :class:`~flake8_torch04._source.Edit`\\ s in the
coordinates of the text they saw: (1-based line, 0-based character column).
:func:`fix_text` applies them in rounds:

1. check the text; keep the findings whose fix is applicable (safe, or unsafe
   when asked) and whose edits touch no line that a ``# noqa`` for the code
   covers (nor a *locked* line: notebook magics and cell boundaries);
2. take those fixes in source order, skipping any whose edits overlap one
   already taken (it is found again, and applied, in a later round);
3. apply the edits back to front, add the imports the fixes need, and re-parse:
   a fix that makes the text unparsable is dropped and reported, never kept;
4. repeat until a round changes nothing, at most :data:`MAX_ROUNDS` times.

When the fixes removed the last use of a ``from torch.autograd import
Variable``, that import is removed too.

Edits are applied to the text with its own line endings (``\\r\\n``, ``\\r`` or
``\\n``; rules see ``\\n``): positions are the same in both, and newlines in
inserted text take the file's dominant line ending.

``Fix.imports`` entries are either a module (``"torch"``, ``"torch.nn.init"``),
meaning the replacement spells the full dotted path from the top package so the
top name (``torch``) must be bound to it, or a whole import statement
(``"from torch.nn import init"``, ``"import torch.nn as nn"``) whose bound name
the replacement uses.  A missing import is added at module level, after the
file's first block of imports; a fix whose name is bound to something else is
not applied.
"""
from __future__ import annotations

import ast
import re
import warnings
from collections import Counter
from typing import (
    Callable, Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Pattern, Sequence, Set,
    Tuple,
)

from ._core import SAFE, UNSAFE, Finding, check
from ._noqa import Noqa
from ._resolve import import_bindings
from ._source import Edit, lines_of

#: rounds of fixing before giving up on reaching a fixpoint
MAX_ROUNDS = 10

_NEWLINE = re.compile(r"\r\n|\r|\n")
VARIABLE_MODULES = ("torch.autograd", "torch.autograd.variable")


# ---------------------------------------------------------------------------
# lines and newlines


def normalize_newlines(text: str) -> str:
    return _NEWLINE.sub("\n", text) if "\r" in text else text


def dominant_newline(text: str) -> str:
    """The most common line ending of ``text`` (``\\n`` when it has none)."""
    counts = Counter(_NEWLINE.findall(text))
    if not counts:
        return "\n"
    return max(("\n", "\r\n", "\r"), key=lambda nl: counts[nl])


def parse(text: str) -> ast.Module:
    """``ast.parse`` that reports every failure as ``SyntaxError``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            return ast.parse(normalize_newlines(text))
    except SyntaxError:
        raise
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, deep nesting
        raise SyntaxError(str(exc) or type(exc).__name__) from exc


# ---------------------------------------------------------------------------
# analysis of one text


class Analysis:
    """The findings of one text after ``--select``/``--ignore`` and ``# noqa``."""

    def __init__(
        self,
        text: str,
        codes: Sequence[str],
        filename: str = "",
        locked: Optional[Pattern[str]] = None,
    ) -> None:
        self.text = text
        self.tree = parse(text)
        self.lines = lines_of(normalize_newlines(text))
        self.noqa = Noqa(self.lines)
        self.locked = locked
        findings: List[Finding] = []
        if not self.noqa.exempt:
            findings = [
                f for f in check(self.tree, self.lines, filename, codes)
                if not self.noqa.suppresses(f.line, f.code)
            ]
        self.findings = findings
        self._bindings: Optional[Dict[str, Set[Optional[str]]]] = None

    def blocker(self, finding: Finding) -> Optional[str]:
        """Why the finding's fix may not be applied here, or ``None``."""
        fix = finding.fix
        if fix is None:
            return "no fix"
        for edit in fix.edits:
            for line in touched_lines(edit):
                if self.noqa.suppresses(line, finding.code):
                    return f"line {line} has a `# noqa` for {finding.code}"
                if self.locked is not None and 0 < line <= len(self.lines):
                    if self.locked.match(self.lines[line - 1]):
                        return f"line {line} is not Python"
        for spec in fix.imports:
            name, qualname, _ = import_spec(spec)
            bound = self.bindings().get(name)
            if bound is not None and bound != {qualname}:
                return f"the fix needs `{name}` but the name is bound to something else"
        return None

    def fixable(self, finding: Finding, unsafe: bool) -> bool:
        fix = finding.fix
        return (
            fix is not None
            and (fix.safety == SAFE or (unsafe and fix.safety == UNSAFE))
            and self.blocker(finding) is None
        )

    def bindings(self) -> Dict[str, Set[Optional[str]]]:
        if self._bindings is None:
            self._bindings = module_bindings(self.tree)
        return self._bindings


def touched_lines(edit: Edit) -> range:
    """Lines an edit changes; an edit ending at column 0 leaves its last line alone."""
    (l1, _), (l2, c2) = edit.start, edit.end
    if l2 > l1 and c2 == 0:
        l2 -= 1
    return range(l1, l2 + 1)


# ---------------------------------------------------------------------------
# edits


class BadEdit(ValueError):
    """Edits that do not fit the text: out of range, reversed, or overlapping."""


def _offsets(lines: Sequence[str]) -> List[int]:
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def _offset(lines: Sequence[str], starts: Sequence[int], pos: Tuple[int, int]) -> int:
    line, col = pos
    if line == len(lines) + 1 and col == 0:
        return starts[-1]
    if not 0 < line <= len(lines) or col < 0:
        raise BadEdit(f"position {pos} is outside the text")
    text = lines[line - 1]
    content = len(text.rstrip("\r\n"))
    if col <= content:
        return starts[line - 1] + col
    if col == content + 1 and content < len(text):
        return starts[line]  # just past the line ending, as rules count it
    raise BadEdit(f"position {pos} is outside the text")


def edit_spans(text: str, edits: Iterable[Edit]) -> List[Tuple[int, int, str]]:
    """``(start, end, replacement)`` character offsets of edits into ``text``."""
    lines = lines_of(text)
    starts = _offsets(lines)
    spans = []
    for edit in edits:
        start, end = _offset(lines, starts, edit.start), _offset(lines, starts, edit.end)
        if end < start:
            raise BadEdit(f"edit ends before it starts: {edit}")
        spans.append((start, end, edit.text))
    return spans


def overlaps(a: Tuple[int, int, str], b: Tuple[int, int, str]) -> bool:
    """Spans conflict when they share a character or insert at the same place."""
    return (a[0] < b[1] and b[0] < a[1]) or a[0] == b[0]


def apply_spans(text: str, spans: Sequence[Tuple[int, int, str]], newline: str = "\n") -> str:
    """Apply non-overlapping spans back to front; inserted newlines become ``newline``."""
    out = text
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        if newline != "\n":
            new = _NEWLINE.sub(newline, new)
        out = out[:start] + new + out[end:]
    return out


def apply_edits(text: str, edits: Iterable[Edit], newline: Optional[str] = None) -> str:
    """Apply edits given in ``text``'s coordinates (they must not overlap)."""
    spans = edit_spans(text, edits)
    ordered = sorted(spans, key=lambda s: (s[0], s[1]))
    for a, b in zip(ordered, ordered[1:]):
        if overlaps(a, b):
            raise BadEdit("overlapping edits")
    return apply_spans(text, spans, newline or dominant_newline(text))


# ---------------------------------------------------------------------------
# imports


def import_spec(spec: str) -> Tuple[str, Optional[str], str]:
    """``(bound name, qualified name, statement)`` for a ``Fix.imports`` entry."""
    if spec.startswith(("import ", "from ")):
        node = ast.parse(spec).body[0]
        (name, qualname), = import_bindings(node)
        return name, qualname, spec
    top = spec.split(".", 1)[0]
    return top, top, f"import {spec}"


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def module_bindings(tree: ast.Module) -> Dict[str, Set[Optional[str]]]:
    """Names bound at module level -> what they are bound to.

    Imports give their qualified name; any other binding (assignment, ``def``,
    ``class``, loop target ...) gives ``None``.
    """
    bound: Dict[str, Set[Optional[str]]] = {}
    stack: List[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, qualname in import_bindings(node):
                bound.setdefault(name, set()).add(qualname)
            continue
        if isinstance(node, _SCOPES):
            if not isinstance(node, ast.Lambda):
                bound.setdefault(node.name, set()).add(None)
            stack.extend(getattr(node, "decorator_list", ()))
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.setdefault(node.id, set()).add(None)
        stack.extend(ast.iter_child_nodes(node))
    return bound


def _is_docstring(node: ast.AST) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def import_line(tree: ast.Module) -> int:
    """The line before which a new module-level import goes.

    After the first block of imports (which may follow the docstring and
    ``__future__`` imports); without one, before the first statement.
    """
    body = tree.body
    if not body:
        return 1
    i = 1 if _is_docstring(body[0]) else 0
    while i < len(body) and isinstance(body[i], (ast.Import, ast.ImportFrom)):
        i += 1
    if i == 0:
        return body[0].lineno
    return body[i - 1].end_lineno + 1


def add_imports(text: str, specs: Iterable[str], newline: str) -> str:
    """Add the import statements of ``specs`` whose names the text does not bind."""
    tree = parse(text)
    bound = module_bindings(tree)
    missing = []
    for spec in sorted(set(specs)):
        name, qualname, statement = import_spec(spec)
        if qualname not in bound.get(name, ()) and statement not in missing:
            missing.append(statement)
    if not missing:
        return text
    lines = lines_of(text)
    line = import_line(tree)
    block = "".join(statement + newline for statement in missing)
    if line > len(lines):
        if lines and not lines[-1].endswith(("\n", "\r")):
            block = newline + block
        return text + block
    return apply_spans(text, edit_spans(text, [Edit((line, 0), (line, 0), block)]), newline)


def _variable_imports(tree: ast.Module) -> List[Tuple[ast.ImportFrom, ast.alias, List]]:
    """``from torch.autograd import Variable`` statements that are direct children
    of the module or of a function body: (statement, alias, the body holding it)."""
    found = []
    bodies: List[List[ast.AST]] = [tree.body]
    bodies.extend(n.body for n in ast.walk(tree)
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    for body in bodies:
        for stmt in body:
            if (isinstance(stmt, ast.ImportFrom) and not stmt.level
                    and stmt.module in VARIABLE_MODULES):
                for alias in stmt.names:
                    if alias.name == "Variable":
                        found.append((stmt, alias, body))
    return found


def name_uses(tree: ast.Module, name: str) -> int:
    """Uses of ``name`` in the file: ``Name`` nodes and strings in ``__all__``."""
    uses = sum(1 for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                uses += sum(1 for c in ast.walk(node.value)
                            if isinstance(c, ast.Constant) and c.value == name)
    return uses


def variable_names_in_use(text: str) -> FrozenSet[str]:
    """Names bound by ``from torch.autograd import Variable`` that the text uses."""
    try:
        tree = parse(text)
    except SyntaxError:
        return frozenset()
    names = {(alias.asname or alias.name) for _, alias, _ in _variable_imports(tree)}
    return frozenset(n for n in names if name_uses(tree, n))


def remove_variable_imports(text: str, names: Iterable[str], newline: str,
                            taken: Optional[Callable[[str], Optional[str]]] = None) -> str:
    """Remove the ``Variable`` imports of ``names`` that nothing uses any more.

    Only a statement that stands alone on its lines, holds no comment, and is not
    the only statement of its body is changed; other imported names stay.  Nor is
    an import at module level whose name ``taken(name)`` says another module takes
    (``from model import *`` in ``train.py``): it returns why, or ``None``.
    """
    tree = parse(text)
    lines = lines_of(normalize_newlines(text))
    edits = []
    for stmt, alias, body in _variable_imports(tree):
        bound = alias.asname or alias.name
        if bound not in names or name_uses(tree, bound):
            continue
        first, last = stmt.lineno, stmt.end_lineno
        segment = "".join(lines[first - 1:last])
        before = lines[first - 1][:stmt.col_offset]
        after = lines[last - 1].encode("utf-8")[stmt.end_col_offset:].decode("utf-8", "replace")
        if "#" in segment or before.strip() or after.strip() or ";" in segment:
            continue
        rest = [a for a in stmt.names if a is not alias]
        whole_lines = last < len(lines) or lines[-1].endswith("\n")
        if rest:
            kept = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in rest)
            new = f"{before}from {stmt.module} import {kept}" + ("\n" if whole_lines else "")
        elif len(body) > 1:
            new = ""
        else:
            continue
        if taken is not None and body is tree.body and taken(bound):
            continue
        start, end = (first, 0), (last + 1, 0)
        if not whole_lines:
            end = (last, len(lines[-1]))
            if not new and first > 1:  # keep the file without a final newline
                start = (first - 1, len(lines[first - 2].rstrip("\r\n")))
        edits.append(Edit(start, end, new))
    if not edits:
        return text
    return apply_edits(text, edits, newline)


# ---------------------------------------------------------------------------
# the fix loop


class Dropped(NamedTuple):
    """A fix that was not applied because of what it would have done."""

    finding: Finding
    reason: str


class FixResult(NamedTuple):
    text: str
    fixed: Counter  # applied fixes per code
    dropped: List[Dropped]
    converged: bool  # reached a fixpoint within MAX_ROUNDS


def _fix_key(finding: Finding) -> tuple:
    fix = finding.fix
    return (finding.code, finding.message, tuple(e.text for e in fix.edits) if fix else ())


def _build(text: str, fixes: Sequence[Finding], newline: str) -> Tuple[str, Optional[str]]:
    """The text with ``fixes`` applied and their imports added, and why it is
    invalid (``None`` when it parses)."""
    # findings that share one fix (two wraps of one dropped statement) apply it once
    edits = dict.fromkeys(e for f in fixes for e in f.fix.edits)
    spans = edit_spans(text, list(edits))
    new = apply_spans(text, spans, newline)
    try:
        imports = [spec for f in fixes for spec in f.fix.imports]
        if imports:
            new = add_imports(new, imports, newline)
        parse(new)
    except SyntaxError as exc:
        return new, f"{exc.msg or exc} (line {exc.lineno})" if exc.lineno else str(exc)
    return new, None


def _choose(analysis: Analysis, unsafe: bool, rejected: Set[tuple],
            dropped: List[Dropped]) -> List[Finding]:
    """Applicable fixes in source order, none overlapping another.

    A fix identical to one already chosen is chosen too (``_build`` applies it
    once), so that every finding it resolves is counted as fixed.
    """
    chosen: List[Finding] = []
    taken: List[Tuple[int, int, str]] = []
    chosen_edits = set()
    for finding in analysis.findings:
        if not analysis.fixable(finding, unsafe) or _fix_key(finding) in rejected:
            continue
        try:
            spans = edit_spans(analysis.text, finding.fix.edits)
        except BadEdit as exc:
            rejected.add(_fix_key(finding))
            dropped.append(Dropped(finding, f"the fix does not fit the text: {exc}"))
            continue
        own = sorted(spans)
        if any(overlaps(a, b) for a, b in zip(own, own[1:])):
            rejected.add(_fix_key(finding))
            dropped.append(Dropped(finding, "the fix's own edits overlap"))
            continue
        if finding.fix.edits in chosen_edits:
            chosen.append(finding)
            continue
        if any(overlaps(s, t) for s in spans for t in taken):
            continue  # found again and applied in a later round
        chosen.append(finding)
        chosen_edits.add(finding.fix.edits)
        taken.extend(spans)
    return chosen


def fix_text(
    text: str,
    analyse: Callable[[str], Analysis],
    unsafe: bool = False,
    max_rounds: int = MAX_ROUNDS,
    hidden: str = "",
    taken: Optional[Callable[[str], Optional[str]]] = None,
) -> FixResult:
    """Apply applicable fixes to ``text`` (which must parse) until nothing changes.

    ``hidden`` is code the parser does not see (a notebook's magics): a name
    that occurs in it is never taken to be unused.  ``taken``: see
    :func:`remove_variable_imports`.
    """
    newline = dominant_newline(text)
    variables = frozenset(
        name for name in variable_names_in_use(text)
        if not re.search(rf"\b{re.escape(name)}\b", hidden)
    )
    fixed: Counter = Counter()
    dropped: List[Dropped] = []
    rejected: Set[tuple] = set()
    converged = False
    for round_ in range(max_rounds + 1):
        analysis = analyse(text)
        chosen = _choose(analysis, unsafe, rejected, dropped)
        if not chosen:
            converged = True
            break
        if round_ == max_rounds:
            break
        new, error = _build(text, chosen, newline)
        if error is not None:
            kept: List[Finding] = []
            for finding in chosen:
                _, error = _build(text, kept + [finding], newline)
                if error is None:
                    kept.append(finding)
                else:
                    rejected.add(_fix_key(finding))
                    dropped.append(Dropped(finding, f"the fix would make invalid code: {error}"))
            new, error = _build(text, kept, newline)
            assert error is None
            chosen = kept
        fixed.update(f.code for f in chosen)
        text = new
    if fixed and variables:
        try:
            text = _checked(remove_variable_imports(text, variables, newline, taken), text)
        except BadEdit:
            pass
    return FixResult(text, fixed, dropped, converged)


def _checked(new: str, old: str) -> str:
    try:
        parse(new)
    except SyntaxError:
        return old
    return new
