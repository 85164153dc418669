"""Edits of whole statements that several rules share: removing one from its
block (:func:`drop_statement`) and putting one under a new ``with`` block
(:func:`wrap_statement`)."""
from __future__ import annotations

import ast
from typing import List, Optional, Sequence

from ...source.text import Edit


def body_holding(block: ast.AST, statement: ast.stmt) -> Optional[List[ast.stmt]]:
    """The body of ``block`` (``body``, ``orelse``, ``finalbody``) that holds ``statement``."""
    return next((getattr(block, field) for field in ("body", "orelse", "finalbody")
                 if statement in getattr(block, field, ())), None)


def drop_statement(src, block: ast.AST, statement: ast.stmt) -> Optional[Edit]:
    """The edit that removes ``statement`` from ``block``.

    The statement goes with its line; one that shares its line with other
    statements (``x = Variable(x); y = 1``) goes with its ``;``; it becomes
    ``pass`` where it is the only one of its block.  A comment after it stays,
    on its own line; an ``else:`` it empties goes with it.  ``None`` where the
    text around it is not one of these shapes.
    """
    body = body_holding(block, statement)
    if body is None:
        return None
    (first, col), (last, end_col) = src.start(statement), src.end(statement)
    if body == [statement]:
        clause = _empty_else(src, block, statement)
        return clause if clause is not None else src.replace(statement, "pass")
    index = next(i for i, s in enumerate(body) if s is statement)
    following = body[index + 1] if index + 1 < len(body) else None
    if following is not None and following.lineno == last:
        return Edit((first, col), src.start(following), "")  # ``x = Variable(x); y = 1``
    preceding = body[index - 1] if index else None
    if preceding is not None and preceding.end_lineno == first:
        return Edit(src.end(preceding), (last, end_col), "")  # ``y = 1; x = Variable(x)``
    before, after = src.lines[first - 1][:col], src.lines[last - 1][end_col:]
    if before.strip():
        return None
    rest = after.strip()
    if rest.startswith(";"):
        rest = rest[1:].lstrip()
    if rest.startswith("#"):  # keep the comment
        line_end = len(src.lines[last - 1].rstrip("\r\n"))
        return Edit((first, col), (last, line_end), rest.rstrip())
    if rest:
        return None
    return Edit((first, 0), (last + 1, 0), "")


def _empty_else(src, block: ast.AST, statement: ast.stmt) -> Optional[Edit]:
    """The edit that removes an ``else:`` clause whose only statement is
    ``statement`` (of an ``if``, a loop or a ``try``), rather than leave
    ``else: pass``: the ``else:`` alone on its line, the statement alone on
    the next lines; else ``None``."""
    if not isinstance(block, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try)) or (
        block.orelse != [statement]
    ):
        return None
    header = statement.lineno - 1  # (past the body: not a line of a string in it)
    before = [*block.body, *getattr(block, "handlers", ())]
    if header <= max(s.end_lineno or s.lineno for s in before):
        return None
    if src.lines[header - 1].strip() != "else:":
        return None
    lines = src.remove_lines(statement)  # (``None`` with a comment after it: ``pass`` keeps it)
    return None if lines is None else Edit((header, 0), lines.end, "")


def _multiline_string(node: ast.AST) -> bool:
    return any(
        isinstance(sub, (ast.Constant, ast.JoinedStr)) and sub.lineno != sub.end_lineno
        for sub in ast.walk(node)
    )


def indent_unit(src, statement: ast.stmt, outer: Sequence[ast.AST]) -> Optional[str]:
    """One level of indentation as the file writes it: the step from the
    statement's line to its first nested statement, else from the block
    around it, else four spaces (``None`` where tabs and spaces mix)."""
    line = src.lines[statement.lineno - 1]
    indent = line[:len(line) - len(line.lstrip())]
    for node in (*(n for n in ast.iter_child_nodes(statement) if isinstance(n, ast.stmt)),
                 *reversed(outer)):
        if not isinstance(node, ast.stmt) or node is statement:
            continue
        other = src.lines[node.lineno - 1]
        other = other[:len(other) - len(other.lstrip())]
        if other.startswith(indent) and len(other) > len(indent):
            unit = other[len(indent):]
        elif indent.startswith(other) and len(indent) > len(other):
            unit = indent[len(other):]
        else:
            continue
        return None if " " in unit and "\t" in unit else unit
    return "\t" if "\t" in indent else "    "


def wrap_statements(src, statements: Sequence[ast.stmt], header: str,
                    outer: Sequence[ast.AST]) -> Optional[List[Edit]]:
    """Edits that put ``statements`` (consecutive ones of a block, all their
    lines) under ``header`` (``with torch.no_grad():``) at their indentation:
    the header inserted before the first, each of their lines indented one
    level.  Each edit inserts, at the start of a line, so that edits inside the
    lines (a dropped keyword) combine with them.  ``None`` where they hold a
    string of several lines (indenting would change it) or share a line with
    another statement."""
    statement = statements[0]
    (first, col), (last, end_col) = src.start(statement), src.end(statements[-1])
    before = src.lines[first - 1][:col]
    after = src.lines[last - 1][end_col:].strip()
    if before.strip() or (after and not after.startswith("#")) or any(
            _multiline_string(s) for s in statements):
        return None
    unit = indent_unit(src, statement, outer)
    if unit is None:
        return None
    newline = "\r\n" if src.lines[first - 1].endswith("\r\n") else "\n"
    edits = [Edit((first, col), (first, col), f"{header}{newline}{before}{unit}")]
    for line in range(first + 1, last + 1):
        if src.lines[line - 1].strip():
            edits.append(Edit((line, 0), (line, 0), unit))
    return edits
