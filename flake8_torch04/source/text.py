"""Source text helpers: character columns, exact segments, quoting, edits.

``ast`` positions are UTF-8 byte offsets; every position this package reports
or edits is a 0-based *character* column, as editors and pycodestyle count.
"""
from __future__ import annotations

import ast
import re
from typing import List, Optional, Sequence, Tuple, Type, Union

from .record import record

Position = Tuple[int, int]  # (1-based line, 0-based character column)


class Edit(record("start end text")):
    """Replace the text from ``start`` to ``end`` (character positions) by ``text``."""

    __slots__ = ()


class Source:
    """The lines of one file, with byte-to-character column conversion."""

    __slots__ = ("lines",)

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

    def char_col(self, lineno: int, byte_col: int) -> int:
        if 0 < lineno <= len(self.lines):
            line = self.lines[lineno - 1]
            if not line.isascii():
                return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))
        return byte_col

    def start(self, node: ast.AST) -> Position:
        return node.lineno, self.char_col(node.lineno, node.col_offset)

    def end(self, node: ast.AST) -> Position:
        return node.end_lineno, self.char_col(node.end_lineno, node.end_col_offset)

    def text(self, node: ast.AST) -> str:
        """The exact source text of ``node`` (parentheses around it excluded)."""
        return self.between(self.start(node), self.end(node))

    def between(self, start: Position, end: Position) -> str:
        (l1, c1), (l2, c2) = start, end
        if l1 == l2:
            return self.lines[l1 - 1][c1:c2]
        chunks = [self.lines[l1 - 1][c1:]]
        chunks.extend(self.lines[l1:l2 - 1])
        chunks.append(self.lines[l2 - 1][:c2])
        return "".join(chunks)

    def quote(self, node: ast.AST, limit: int = 40) -> str:
        return shorten(self.text(node), limit)

    def remove_lines(self, node: ast.AST) -> Optional[Edit]:
        """Remove ``node`` with its whole lines; ``None`` when anything else is
        on them (another statement, a ``;``, a comment)."""
        (first, col), (last, end_col) = self.start(node), self.end(node)
        if self.lines[first - 1][:col].strip() or self.lines[last - 1][end_col:].strip():
            return None
        return Edit((first, 0), (last + 1, 0), "")  # (past the last line: the text's end)

    def replace(self, node: ast.AST, text: str) -> Edit:
        """Replace ``node``'s text; an expression whose new text breaks lines
        outside brackets (``a`` newline ``- b``) is parenthesized, so that it
        stays one expression."""
        if "\n" in text and isinstance(node, ast.expr) and not _one_expression(text):
            text = f"({text})"
        return Edit(self.start(node), self.end(node), text)


def _one_expression(text: str) -> bool:
    """Whether ``text`` reads as one expression without brackets around it."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ``(a, b)(c)``: "tuple is not callable"
            ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def shorten(text: str, limit: int = 40) -> str:
    """One line, whitespace folded, cut with ``...`` past ``limit`` characters.

    For a *quote* of the flagged source only: the message's suggestion (the code to
    write instead) goes through :func:`one_line`, which never cuts it, since a
    finding without an automatic fix has no other place that spells it out.
    """
    text = one_line(text)
    if len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


def one_line(text: str) -> str:
    """A suggestion for a message: one line, whitespace folded, never cut; a line
    continuation (a backslash ending a line) is folded with its line break."""
    return " ".join(_CONTINUATION.sub(" ", text).split())


_CONTINUATION = re.compile(r"\\\r?\n")


#: Expressions whose source text can stand anywhere an expression can.
_ATOMS = (
    ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant, ast.List,
    ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.JoinedStr,
)
#: Parents in which any expression can stand unparenthesized.
_LOOSE_PARENTS = (
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr, ast.keyword,
    ast.List, ast.Set, ast.Dict, ast.Call, ast.Tuple, ast.FormattedValue,
)


def needs_parens(
    expr: ast.AST, parent: Union[ast.AST, Type[ast.AST], None], source: Source
) -> bool:
    """Whether ``expr``'s text needs parentheses where ``parent`` holds the node it replaces.

    ``parent`` may be a node class: ``needs_parens(e, ast.Attribute, src)`` asks
    whether ``e`` needs parentheses before ``.attr``.
    """
    if isinstance(parent, type):
        kind = parent
    else:
        kind = type(parent)
    if isinstance(expr, _ATOMS):
        return False
    if isinstance(expr, ast.Tuple):
        text = source.text(expr)
        if text.startswith("(") and text.endswith(")"):
            return False
        return True
    if issubclass(kind, ast.Call):
        return isinstance(expr, (ast.NamedExpr, ast.Starred))
    return not issubclass(kind, _LOOSE_PARENTS)


def has_comment(text: str) -> bool:
    """Crude but safe: a ``#`` anywhere means an edit over ``text`` may drop a comment."""
    return "#" in text


_LINE = r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z"
#: where ``str.splitlines`` breaks a line and Python's tokenizer does not (the
#: first five are the ASCII ones)
_OTHER_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def lines_of(source_text: str) -> List[str]:
    """Lines with their endings, broken where Python's tokenizer breaks them.

    ``str.splitlines`` also breaks at form feeds and other separators, which
    would put line numbers out of step with the tree: it is used only on a text
    without them (most files; twice as fast as splitting at ``\\n``).
    """
    others = _OTHER_BREAKS[:5] if source_text.isascii() else _OTHER_BREAKS
    if not any(sep in source_text for sep in others):
        return source_text.splitlines(True)
    if "\r" in source_text:
        return re.findall(_LINE, source_text)
    lines = source_text.split("\n")  # the common case, three times faster
    last = lines.pop()
    lines = [line + "\n" for line in lines]
    if last:
        lines.append(last)
    return lines
