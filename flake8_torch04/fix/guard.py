"""What a fix must not change: the shape of the code around it, and defined names."""
from __future__ import annotations

import ast
import re
import warnings
from bisect import bisect_right
from collections import Counter
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..source.parse import NEWLINE, normalize_newlines
from .edits import Positions, edit_spans
from ..source.text import Edit

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


def expressions_at(tree: ast.AST, positions: Positions,
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
    spans start on at least (see :func:`expressions_at`)."""
    new_pos = Positions(new_text)
    order = sorted(range(len(spans)), key=lambda i: (spans[i][0], spans[i][1]))
    placed = {}
    delta = 0
    for i in order:
        start, end, rep = spans[i]
        if newline != "\n":
            rep = NEWLINE.sub(newline, rep)
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
    while a file is checked (see ``analysis.run.collector_off``), and each
    build's tree, held by the checker (its handlers are its own bound methods)
    and by its scopes (a binding's use names its scope), would stay to the end."""
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
