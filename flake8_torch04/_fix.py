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
from bisect import bisect_left, bisect_right, insort
from _thread import _local as _thread_local  # (``threading.local``, without importing threading)
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


#: a tree the fixer has just made for a text it is about to analyse: the
#: analysis takes it rather than parsing the same text again
_HANDOFF = _thread_local()


def _parsed(text: str) -> ast.Module:
    handed = getattr(_HANDOFF, "pair", None)
    _HANDOFF.pair = None
    if handed is not None and handed[0] is text:
        return handed[1]
    return parse(text)


def _hand_off(text: str, tree: Optional[ast.Module]) -> None:
    _HANDOFF.pair = (text, tree) if tree is not None else None


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
        self._tree: Optional[ast.Module] = _parsed(text)
        normalized = normalize_newlines(text)
        self.lines = lines_of(normalized)
        self.noqa = Noqa(self.lines, normalized)
        self.locked = locked
        findings: List[Finding] = []
        #: lines of statements not checked to the end (see ``_core.check``)
        self.unchecked: List[int] = []
        if not self.noqa.exempt:
            findings = [
                f for f in check(self.tree, self.lines, filename, codes,
                                 unchecked=self.unchecked)
                if not self.noqa.suppresses(f.line, f.code)
            ]
        self.findings = findings
        self._bindings: Optional[Dict[str, Set[Optional[str]]]] = None

    @property
    def tree(self) -> ast.Module:
        """The text's tree (parsed again after :meth:`release_tree`, when needed)."""
        if self._tree is None:
            self._tree = parse(self.text)
        return self._tree

    def release_tree(self) -> None:
        """Let the tree go: the fixer makes the next text's tree meanwhile, and a
        large file's tree is most of the memory (two at once, twice that)."""
        self._tree = None

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


class Positions:
    """Line starts of one text, computed once for every edit into it."""

    __slots__ = ("text", "lines", "starts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = lines_of(text)
        self.starts = _offsets(self.lines)


def edit_spans(text: str, edits: Iterable[Edit],
               positions: Optional[Positions] = None) -> List[Tuple[int, int, str]]:
    """``(start, end, replacement)`` character offsets of edits into ``text``."""
    if positions is None or positions.text is not text:
        positions = Positions(text)
    lines, starts = positions.lines, positions.starts
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
    # (pieces joined once: splicing each span into the whole text is quadratic)
    pieces = []
    position = len(text)
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        if newline != "\n":
            new = _NEWLINE.sub(newline, new)
        pieces.append(text[min(end, position):position])
        pieces.append(new)
        position = min(start, position)
    pieces.append(text[:position])
    return "".join(reversed(pieces))


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


def add_imports(text: str, specs: Iterable[str], newline: str,
                tree: Optional[ast.Module] = None) -> str:
    """Add the import statements of ``specs`` whose names the text does not bind."""
    if tree is None:
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
    return use_counts(tree)[name]


def use_counts(tree: ast.Module) -> Counter:
    """Uses of every name in the file (one walk): ``Name`` nodes, strings in
    ``__all__``, and the names a string annotation (``x: "Variable"``) spells."""
    uses: Counter = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            uses[node.id] += 1
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                for c in ast.walk(node.value):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str):
                        uses[c.value] += 1
        for annotation in _annotations(node):
            for c in ast.walk(annotation):
                if isinstance(c, ast.Constant) and isinstance(c.value, str):
                    uses.update(_IDENTIFIER.findall(c.value))
    return uses


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _annotations(node: ast.AST) -> Iterable[ast.AST]:
    """The annotations a node holds (string ones name what they mean)."""
    if isinstance(node, (ast.arg, ast.AnnAssign)):
        if node.annotation is not None:
            yield node.annotation
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if node.returns is not None:
            yield node.returns


def variable_names_in_use(text: str, tree: Optional[ast.Module] = None) -> FrozenSet[str]:
    """Names bound by ``from torch.autograd import Variable`` that the text uses."""
    if tree is None:
        try:
            tree = parse(text)
        except SyntaxError:
            return frozenset()
    names = {(alias.asname or alias.name) for _, alias, _ in _variable_imports(tree)}
    if not names:
        return frozenset()
    uses = use_counts(tree)
    return frozenset(n for n in names if uses[n])


def remove_variable_imports(text: str, names: Iterable[str], newline: str,
                            tree: Optional[ast.Module] = None,
                            taken: Optional[Callable[[str], Optional[str]]] = None) -> str:
    """Remove the ``Variable`` imports of ``names`` that nothing uses any more.

    Only a statement that stands alone on its lines, holds no comment, and is not
    the only statement of its body is changed; other imported names stay.  Nor is
    an import at module level whose name ``taken(name)`` says another module takes
    (``from model import *`` in ``train.py``): it returns why, or ``None``.
    """
    if tree is None:
        tree = parse(text)
    lines = lines_of(normalize_newlines(text))
    edits = []
    uses: Optional[Counter] = None
    for stmt, alias, body in _variable_imports(tree):
        bound = alias.asname or alias.name
        if bound not in names:
            continue
        if uses is None:
            uses = use_counts(tree)
        if uses[bound]:
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
# what a fix must not change: the shape of the code around it, defined names


def _char_col(line: str, byte_col: int) -> int:
    if line.isascii():
        return byte_col
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def _expr_spans(tree: ast.AST, positions: Positions, wanted: Set[int]) -> Dict[tuple, list]:
    """``(start, end)`` character offsets -> the expressions there, for
    expressions that start on a ``wanted`` line."""
    lines, starts = positions.lines, positions.starts
    spans: Dict[tuple, list] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.expr) and node.lineno in wanted and node.end_lineno:
            if node.end_lineno > len(lines):
                continue
            start = starts[node.lineno - 1] + _char_col(lines[node.lineno - 1], node.col_offset)
            end = (starts[node.end_lineno - 1]
                   + _char_col(lines[node.end_lineno - 1], node.end_col_offset))
            spans.setdefault((start, end), []).append(node)
    return spans


_CTX = re.compile(r"ctx=\w+\(\)")


def _shape(node: ast.AST) -> str:
    return _CTX.sub("", ast.dump(node))


def _expected_shape(text: str) -> Optional[str]:
    """The shape of ``text`` read alone as one expression (``None``: it is not one)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _shape(ast.parse("(\n" + normalize_newlines(text) + "\n)", mode="eval").body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _bracket_trims(text: str, brackets: str = "(") -> List[int]:
    """How many leading characters may be blanks or ``brackets`` around an expression."""
    trims = [0]
    for i, ch in enumerate(text):
        if ch in brackets or ch in " \t\r\n\\":
            trims.append(i + 1)
        else:
            break
    return trims


def _expressions_at(tree: ast.AST, positions: Positions,
                    edits: Sequence[Edit]) -> Set[Tuple[int, int]]:
    """``(start, end)`` character offsets of the expressions of ``tree`` that
    start on a line where one of ``edits`` starts."""
    spans = edit_spans(positions.text, edits, positions)
    lines = {bisect_right(positions.starts, s[0]) for s in spans}
    return set(_expr_spans(tree, positions, lines))


def reshaped(old_exprs: Set[Tuple[int, int]], old_pos: Positions, new_text: str,
             new_tree: ast.AST, spans: Sequence[Tuple[int, int, str]],
             newline: str) -> Set[int]:
    """Indices of ``spans`` that replaced an expression whose replacement is not
    read back as one expression of the same shape (``x = Variable(a`` newline
    ``- b)`` -> ``x = a`` newline ``- b`` parses, as two statements).
    ``old_exprs``: where the old text's expressions stand, on the lines the
    spans start on at least (see :func:`_expressions_at`)."""
    new_pos = Positions(new_text)
    order = sorted(range(len(spans)), key=lambda i: (spans[i][0], spans[i][1]))
    placed = {}
    delta = 0
    for i in order:
        start, end, rep = spans[i]
        if newline != "\n":
            rep = _NEWLINE.sub(newline, rep)
        placed[i] = (start + delta, start + delta + len(rep), rep)
        delta += len(rep) - (end - start)
    new_lines = {bisect_right(new_pos.starts, p[0] + t) for p in placed.values()
                 for t in _bracket_trims(p[2])}
    after = _expr_spans(new_tree, new_pos, new_lines)
    bad = set()
    for i, (start, end, _) in enumerate(spans):
        if (start, end) not in old_exprs:
            continue  # not an expression (a statement, a keyword argument ...)
        new_start, new_end, rep = placed[i]
        expected = _expected_shape(rep)
        if expected is None:
            continue
        tails = _bracket_trims(rep[::-1], ")")
        if not any(_shape(node) == expected
                   for lead in _bracket_trims(rep) for tail in tails
                   for node in after.get((new_start + lead, new_end - tail), ())):
            bad.add(i)
    return bad


_UNDEFINED = ("UndefinedName", "UndefinedLocal", "UndefinedExport")


def undefined_names(tree: ast.AST) -> Optional[Counter]:
    """Names pyflakes finds used but never defined (``None`` without pyflakes)."""
    try:
        from pyflakes import checker
    except ImportError:  # pragma: no cover - flake8 depends on it
        return None
    try:
        found = checker.Checker(tree, filename="<fix>")
    except Exception:  # pyflakes failing on odd code must not stop a fix
        return None
    names = Counter(m.message_args[0] for m in found.messages
                    if type(m).__name__ in _UNDEFINED and m.message_args)
    _unlink(found, tree)
    return names


def _unlink(found: object, tree: ast.AST) -> None:
    """Break the reference cycles a pyflakes checker leaves, so that it, its
    scopes and the tree go when the fixer lets them go: the collector is off
    while a file is checked (see ``_core.collector_off``), and each build's
    tree, held by the checker (its handlers are its own bound methods) and by
    its scopes (a binding's use names its scope), would stay to the end."""
    state = vars(found)
    for name in ("deadScopes", "scopeStack"):
        for scope in state.get(name) or ():
            if isinstance(scope, dict):
                scope.clear()
            if hasattr(scope, "__dict__"):
                vars(scope).clear()
    state.clear()
    first = next(iter(ast.iter_child_nodes(tree)), None)
    if first is not None and hasattr(first, "_pyflakes_parent"):  # (older pyflakes)
        for node in ast.walk(tree):
            node.__dict__.pop("_pyflakes_parent", None)


# ---------------------------------------------------------------------------
# the fix loop


class Dropped(NamedTuple):
    """A fix that was not applied because of what it would have done."""

    finding: Finding
    reason: str


class FixResult(NamedTuple):
    text: str
    fixed: Counter  # findings the fixes resolved, per code
    dropped: List[Dropped]
    converged: bool  # reached a fixpoint within MAX_ROUNDS
    #: the analysis of ``text`` when the fixer made one (saves the caller a check)
    analysis: Optional[object] = None


def _fix_key(finding: Finding) -> tuple:
    fix = finding.fix
    return (finding.code, finding.message, tuple(e.text for e in fix.edits) if fix else ())


class _Built(NamedTuple):
    text: str
    tree: Optional[ast.Module]
    error: Optional[str]  # why the whole text is invalid
    broken: Dict[int, str]  # fix index -> why that fix is wrong
    undefined: Optional[Counter] = None  # the text's undefined names, when checked


class _Round:
    """One round's text and what a build of some of its fixes must keep."""

    def __init__(self, text: str, tree: Optional[ast.Module], fixes: Sequence[Finding],
                 newline: str, undefined: Optional[Counter], counts: Optional[Counter],
                 analyse: Optional[Callable[[str], "Analysis"]]) -> None:
        self.text = text
        self.positions = Positions(text)
        #: where the text's expressions stand on the lines the round's ``fixes``
        #: start an edit on: what :func:`reshaped` needs of the text's tree,
        #: which is not kept (a large file's trees are most of the memory: the
        #: next text's is made meanwhile)
        self.expressions = _expressions_at(
            tree if tree is not None else parse(text), self.positions,
            [e for f in fixes for e in f.fix.edits])
        self.newline = newline
        self.undefined = undefined  # the text's undefined names (None: not checked)
        self.counts = counts  # the text's findings per code (None: not checked)
        self.analyse = analyse
        self.builds = 0  # (how much work a round takes: tests count it)

    def build(self, fixes: Sequence[Finding]) -> _Built:
        """The text with ``fixes`` applied and their imports added, and what is wrong."""
        self.builds += 1
        owners: Dict[Edit, List[int]] = {}
        for i, f in enumerate(fixes):
            for e in f.fix.edits:
                owners.setdefault(e, []).append(i)  # one fix shared by two findings
        edits = list(owners)
        spans = edit_spans(self.text, edits, self.positions)
        new = apply_spans(self.text, spans, self.newline)
        try:
            tree = parse(new)
        except SyntaxError as exc:
            return _Built(new, None, _syntax(exc), {})
        broken: Dict[int, str] = {}
        for j in reshaped(self.expressions, self.positions, new, tree, spans, self.newline):
            for i in owners[edits[j]]:
                broken[i] = ("the replacement would not be read as the expression it "
                             "replaces (it needs parentheses)")
        if broken:
            return _Built(new, tree, None, broken)
        imports = [spec for f in fixes for spec in f.fix.imports]
        if imports:
            try:
                added = add_imports(new, imports, self.newline, tree)
                if added != new:
                    new, tree = added, parse(added)
            except SyntaxError as exc:
                return _Built(new, None, _syntax(exc), {})
        now = None
        if self.undefined is not None:
            now = undefined_names(tree)
            if now is not None:
                # (a name already undefined before, such as a snippet's free
                # variable, is no new break when a fix repeats it)
                new_names = sorted(n for n in now if n not in self.undefined)
                if new_names:
                    return _Built(new, tree, "it would leave "
                                  + ", ".join(f"`{n}`" for n in new_names) + " undefined", {})
        return _Built(new, tree, None, {}, now)

    def findings_added(self, built: _Built) -> Optional[str]:
        """Why the built text is worse: a finding of a code more than before."""
        if self.counts is None or self.analyse is None:
            return None
        analysis = self.analyse(built.text)
        now = Counter(f.code for f in analysis.findings)
        more = sorted(c for c in now if now[c] > self.counts[c])
        if more:
            return "it would add a finding (" + ", ".join(more) + ")"
        return None


def _undefined_of(built: _Built) -> Optional[Counter]:
    """The built text's undefined names: those the build found (pyflakes is a
    pass over the whole file), else found now."""
    if built.undefined is not None:
        return built.undefined
    return undefined_names(built.tree) if built.tree is not None else None


def _syntax(exc: SyntaxError) -> str:
    return f"{exc.msg or exc} (line {exc.lineno})" if exc.lineno else str(exc)


def _settle(round_: _Round, fixes: List[Finding], reject: Callable[[Finding, str], None],
            check_findings: bool = False) -> Tuple[List[Finding], Optional[_Built]]:
    """The fixes of ``fixes`` that can be applied together, found by halving:
    a build of them all when it is valid, else the valid parts of each half
    (a fix that is wrong alone is rejected; a half that only conflicts with
    the other is left for a later round).  Few bad fixes cost few builds."""
    if not fixes:
        return [], None
    built = round_.build(fixes)
    if built.broken:
        for i in sorted(built.broken):
            reject(fixes[i], built.broken[i])
        rest = [f for i, f in enumerate(fixes) if i not in built.broken]
        return _settle(round_, rest, reject, check_findings)
    error = built.error
    if error is None and check_findings:
        error = round_.findings_added(built)
    if error is None:
        return fixes, built
    if len(fixes) == 1:
        reject(fixes[0], f"the fix would make invalid code: {error}"
               if built.tree is None else f"the fix is unsafe here: {error}")
        return [], None
    half = len(fixes) // 2
    left, left_built = _settle(round_, fixes[:half], reject, check_findings)
    right, right_built = _settle(round_, fixes[half:], reject, check_findings)
    if not left or not right:
        return (left, left_built) if left else (right, right_built)
    both = round_.build(left + right)
    if both.error is None and not both.broken and not (
            check_findings and round_.findings_added(both)):
        return left + right, both
    return left, left_built


def _choose(analysis: Analysis, unsafe: bool, rejected: Set[tuple],
            dropped: List[Dropped]) -> List[Finding]:
    """Applicable fixes in source order, none overlapping another.

    A fix identical to one already chosen is chosen too (``_build`` applies it
    once): a fix that must be dropped is then dropped for every finding that
    offers it, in one round.
    """
    chosen: List[Finding] = []
    taken: List[Tuple[int, int]] = []  # sorted, disjoint
    chosen_edits = set()
    positions: Optional[Positions] = None
    for finding in analysis.findings:
        if not analysis.fixable(finding, unsafe) or _fix_key(finding) in rejected:
            continue
        if positions is None:
            positions = Positions(analysis.text)
        try:
            spans = edit_spans(analysis.text, finding.fix.edits, positions)
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
        if any(_overlaps_taken(taken, s) for s in spans):
            continue  # found again and applied in a later round
        chosen.append(finding)
        chosen_edits.add(finding.fix.edits)
        for s in spans:
            insort(taken, (s[0], s[1]))
    return chosen


def _overlaps_taken(taken: List[Tuple[int, int]], span: Tuple[int, int, str]) -> bool:
    """Whether ``span`` overlaps a span of ``taken`` (sorted, disjoint): the
    neighbours in order are the only candidates."""
    i = bisect_left(taken, (span[0], span[1]))
    return any(overlaps((t[0], t[1], ""), span) for t in taken[max(0, i - 1):i + 2])


def fix_text(
    text: str,
    analyse: Callable[[str], Analysis],
    unsafe: bool = False,
    max_rounds: int = MAX_ROUNDS,
    hidden: str = "",
    first: Optional[Analysis] = None,
    taken: Optional[Callable[[str], Optional[str]]] = None,
) -> FixResult:
    """Apply applicable fixes to ``text`` (which must parse) until nothing changes.

    ``hidden`` is code the parser does not see (a notebook's magics): a name
    that occurs in it is never taken to be unused.  ``first``, the analysis
    of ``text`` when the caller has one, saves checking it again.  ``taken``:
    see :func:`remove_variable_imports`.

    Each round's fixes are checked as a set before they are kept: the result
    must parse, read every replaced expression back as one expression of the
    same shape, leave no name undefined that was defined, and hold no more
    findings of any code than before.  A fix that breaks one of these alone is
    dropped with the reason; fixes that only conflict are left for a later
    round.
    """
    newline = dominant_newline(text)
    fixed: Counter = Counter()
    dropped: List[Dropped] = []
    rejected: Set[tuple] = set()
    converged = False
    analysis = first if first is not None and first.text == text else analyse(text)
    variables: Optional[FrozenSet[str]] = None
    undefined: Optional[Counter] = None
    counts: Optional[Counter] = None

    def reject(finding: Finding, reason: str) -> None:
        rejected.add(_fix_key(finding))
        dropped.append(Dropped(finding, reason))

    for round_no in range(max_rounds + 1):
        chosen = _choose(analysis, unsafe, rejected, dropped)
        if not chosen:
            converged = True
            break
        if round_no == max_rounds:
            break
        tree = getattr(analysis, "tree", None)
        if variables is None:  # (only once something is to be fixed)
            if tree is None:
                tree = parse(text)
            variables = frozenset(
                name for name in variable_names_in_use(text, tree)
                if not re.search(rf"\b{re.escape(name)}\b", hidden)
            )
        if undefined is None and tree is not None:
            undefined = undefined_names(tree)
        counts = Counter(f.code for f in analysis.findings)
        round_ = _Round(text, tree, chosen, newline, undefined, counts, analyse)
        tree = None
        _release_tree(analysis)
        chosen, built = _settle(round_, chosen, reject)
        if not chosen:
            continue  # every fix rejected: look again without them
        new_text, new_undefined = built.text, _undefined_of(built)
        _hand_off(new_text, built.tree)
        built = analysis = None
        new_analysis = analyse(new_text)
        _hand_off("", None)
        now = Counter(f.code for f in new_analysis.findings)
        if any(now[c] > counts[c] for c in now):
            # the set adds a finding: find the fixes that do (builds analyse)
            new_analysis = None
            chosen, built = _settle(round_, chosen, reject, check_findings=True)
            if not chosen:
                analysis = analyse(text)
                continue
            new_text, new_undefined = built.text, _undefined_of(built)
            _hand_off(new_text, built.tree)
            built = None
            new_analysis = analyse(new_text)
            _hand_off("", None)
        # what the round resolved: its own findings and those another fix's
        # edit resolved with them (TV004's ``with torch.no_grad(): p.add_(...)``
        # resolves TV126's overload too); no count grows (checked above), so
        # the rounds' sums are the findings that went, code by code
        fixed.update(counts - Counter(f.code for f in new_analysis.findings))
        text, analysis, undefined = new_text, new_analysis, new_undefined
        del round_, new_analysis
    if fixed and variables:
        try:
            new = remove_variable_imports(
                text, variables, newline, getattr(analysis, "tree", None), taken)
        except BadEdit:
            new = text
        if new != text:
            analysis = None  # (the caller analyses the text: its tree goes first)
            if _parses(new):
                text = new
    return FixResult(text, fixed, dropped, converged, analysis)


def _release_tree(analysis: object) -> None:
    release = getattr(analysis, "release_tree", None)
    if release is not None:
        release()


def _parses(text: str) -> bool:
    try:
        parse(text)
    except SyntaxError:
        return False
    return True
