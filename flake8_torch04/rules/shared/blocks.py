"""Whole statements that several rules share: removing one from its block
(:func:`drop_statement`), putting some under a new ``with`` block
(:func:`wrap_statements`), and the module's pass-through wrappers of a callee
(:func:`pass_through_wrappers`)."""
from __future__ import annotations

import ast
from typing import Callable, List, Optional, Sequence, Set

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


def multiline_string(node: ast.AST) -> bool:
    """Whether ``node`` holds a string written over several lines."""
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
            multiline_string(s) for s in statements):
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


def pass_through_wrappers(tree: ast.Module, target: Callable[[ast.AST], bool]) -> Set[str]:
    """Names the module binds once (and only so) to a wrapper that passes ``*a,
    **k`` on to a callee for which ``target`` holds: ``V = lambda *a, **k:
    f(*a, **k)`` (``.cuda()`` of it, or either branch of a conditional
    expression of such calls) or ``def v(*a, **k): return f(*a, **k)``; or to
    a subclass of the callee (a class) that does not define ``__new__``: its
    base's ``__new__`` gets every argument of a call, whatever ``__init__``
    does with them (``class Variable(autograd.Variable)`` moving data to the
    GPU in its ``__init__``)."""
    bound: dict = {}
    for stmt in tree.body:  # type: ignore[attr-defined]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.setdefault(stmt.name, []).append(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for bound_to in targets:
                for sub in ast.walk(bound_to):
                    if isinstance(sub, ast.Name):
                        bound.setdefault(sub.id, []).append(stmt)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                bound.setdefault((alias.asname or alias.name).split(".")[0], []).append(stmt)
    from ...analysis.objects import class_binds

    found = set()
    for name, stmts in bound.items():
        if len(stmts) != 1:
            continue
        stmt = stmts[0]
        if isinstance(stmt, ast.FunctionDef):
            body = stmt.body[1:] if docstring(stmt.body[0]) else stmt.body
            if (len(body) == 1 and isinstance(body[0], ast.Return) and not stmt.decorator_list
                    and _passes_on(target, stmt.args, body[0].value)):
                found.add(name)
        elif isinstance(stmt, ast.ClassDef):
            if not stmt.decorator_list and not stmt.keywords and any(
                    target(base) for base in stmt.bases) and not class_binds(stmt, "__new__"):
                found.add(name)
        elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
              and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Lambda)
              and _passes_on(target, stmt.value.args, stmt.value.body)):
            found.add(name)
    return found


def docstring(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is a string alone (a docstring, when it comes first)."""
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def _passes_on(target: Callable[[ast.AST], bool], args: ast.arguments,
               body: Optional[ast.AST]) -> bool:
    """``body`` is ``f(*a, **k)`` (or ``.cuda()`` of it, either branch of
    a conditional expression) for a signature ``(*a, **k)`` alone."""
    if (args.args or args.posonlyargs or args.kwonlyargs or args.vararg is None
            or args.kwarg is None):
        return False
    if isinstance(body, ast.IfExp):
        return _passes_on(target, args, body.body) and _passes_on(target, args, body.orelse)
    while (isinstance(body, ast.Call) and isinstance(body.func, ast.Attribute)
           and body.func.attr in ("cuda", "cpu") and isinstance(body.func.value, ast.Call)):
        body = body.func.value
    return (
        isinstance(body, ast.Call) and len(body.args) == 1 and len(body.keywords) == 1
        and isinstance(body.args[0], ast.Starred)
        and isinstance(body.args[0].value, ast.Name) and body.args[0].value.id == args.vararg.arg
        and body.keywords[0].arg is None and isinstance(body.keywords[0].value, ast.Name)
        and body.keywords[0].value.id == args.kwarg.arg
        and target(body.func)
    )
