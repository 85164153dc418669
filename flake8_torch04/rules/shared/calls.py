"""Small edits of calls shared by the rename-style rules (TV10x-TV12x).

Each helper returns ``None`` when it cannot make its edit cleanly (a comment
in the text it would remove, a position it cannot find): the rule then
reports without a fix.
"""
from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from ...analysis.findings import SAFE, Fix
from ...source.text import Edit, has_comment, needs_parens


def arguments(call: ast.Call) -> List[ast.AST]:
    """The positional arguments and keywords of ``call``, in source order."""
    return sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))


def keyword(call: ast.Call, name: str) -> Optional[ast.keyword]:
    """The keyword argument ``name`` of the call, if it has one."""
    for kw in call.keywords:  # (a loop: a generator costs more than the few keywords)
        if kw.arg == name:
            return kw
    return None


def rename_keyword(ctx, kw: ast.keyword, new: str) -> Fix:
    """A safe fix writing ``new`` for the keyword's name (``kw.arg`` starts the node)."""
    line, col = ctx.source.start(kw)
    return Fix((Edit((line, col), (line, col + len(kw.arg)), new),), SAFE)


def plain_arguments(call: ast.Call) -> bool:
    """No ``*args`` and no ``**kwargs``: every argument can be told apart."""
    return not any(isinstance(a, ast.Starred) for a in call.args) and all(
        kw.arg is not None for kw in call.keywords)


def argument(call: ast.Call, index: int, name: str) -> Optional[ast.AST]:
    """The argument at position ``index`` or given as ``name=``."""
    if len(call.args) > index:
        return call.args[index]
    kw = keyword(call, name)
    return kw.value if kw is not None else None


def rename(ctx, func: ast.AST, new: str, module: str) -> Optional[Tuple[Edit, Tuple[str, ...]]]:
    """An edit that calls ``new`` instead of ``func``, and the imports it needs.

    ``nn.init.normal`` -> ``nn.init.normal_`` (only the last name changes);
    a bare ``normal`` imported from ``module`` -> ``normal_``, with
    ``from module import normal_`` for the fixer to add.
    """
    src = ctx.source
    if isinstance(func, ast.Attribute):
        end = src.end(func)
        text = src.text(func)
        if not text.endswith(func.attr) or end[1] < len(func.attr):
            return None
        return Edit((end[0], end[1] - len(func.attr)), end, new), ()
    if isinstance(func, ast.Name):
        return src.replace(func, new), (f"from {module} import {new}",)
    return None


def _advance(start: Tuple[int, int], text: str) -> Tuple[int, int]:
    """The position ``len(text)`` characters after ``start`` (``text`` starts there)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return start[0], start[1] + len(text)
    return start[0] + len(lines) - 1, len(lines[-1])


def remove_argument(ctx, call: ast.Call, node: ast.AST) -> Optional[Edit]:
    """Delete one argument (or keyword) of ``call`` with the comma that goes with it."""
    src = ctx.source
    items = arguments(call)
    i = items.index(node)
    if i > 0:  # from the comma after the previous argument to the end of this one
        gap_start = src.end(items[i - 1])
        gap = src.between(gap_start, src.start(node))
        comma = gap.find(",")
        if comma < 0 or has_comment(gap):
            return None
        return Edit(_advance(gap_start, gap[:comma]), src.end(node), "")
    if len(items) > 1:  # from this one to the next, past the comma and blanks
        gap = src.between(src.end(node), src.start(items[1]))
        comma = gap.find(",")
        if comma < 0 or has_comment(gap):
            return None
        rest = gap[comma + 1:]
        cut = comma + 1 + len(rest) - len(rest.lstrip(" \t"))
        return Edit(src.start(node), _advance(src.end(node), gap[:cut]), "")
    return src.replace(node, "")


def append_arguments(ctx, call: ast.Call, text: str) -> Optional[Edit]:
    """Insert ``text`` (``"align_corners=True"``) after the last argument of ``call``."""
    src = ctx.source
    items = arguments(call)
    if items:
        end = src.end(items[-1])
        return Edit(end, end, f", {text}")
    end = src.end(call)
    if end[1] < 1 or src.lines[end[0] - 1][end[1] - 1] != ")":
        return None
    inside = src.between(src.end(call.func), end)
    if has_comment(inside):
        return None
    position = (end[0], end[1] - 1)
    return Edit(position, position, text)


def method_call(src, node: ast.AST, method: str, args: str = "") -> str:
    """The text of ``node.method(args)`` (``(a + b).item()``, ``seq.tolist()``,
    ``x.reshape(-1)``)."""
    text = src.text(node)
    if needs_parens(node, ast.Attribute, src):
        text = f"({text})"
    return f"{text}.{method}({args})"


def method_edit(src, node: ast.AST, call: str) -> Optional[Edit]:
    """The edit that calls ``call`` (``"item()"``, ``"view(-1)"``) on ``node``,
    parenthesised where it must be; ``None`` where that would rewrite a node over
    several lines or with a comment in it (appended after its end, a call over
    several lines keeps every line as it was)."""
    text = src.text(node)
    if needs_parens(node, ast.Attribute, src):
        if "\n" in text or has_comment(text):
            return None
        return src.replace(node, f"({text}).{call}")
    return Edit(src.end(node), src.end(node), f".{call}")
