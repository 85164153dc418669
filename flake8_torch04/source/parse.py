"""Newlines and parsing: one parse of a text, handed from the fixer to the analysis."""
from __future__ import annotations

import ast
import re
import warnings
from _thread import _local as _thread_local  # (``threading.local``, without importing threading)
import os
from collections import Counter, OrderedDict
from typing import Optional, Tuple

NEWLINE = re.compile(r"\r\n|\r|\n")


# ---------------------------------------------------------------------------
# lines and newlines


def normalize_newlines(text: str) -> str:
    return NEWLINE.sub("\n", text) if "\r" in text else text


def dominant_newline(text: str) -> str:
    """The most common line ending of ``text`` (``\\n`` when it has none)."""
    counts = Counter(NEWLINE.findall(text))
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


def parsed_tree(text: str, path: str = "") -> ast.Module:
    """The tree of ``text``: the one the fixer handed over for it, or the one
    parsed lately for the file ``path`` with this same text (see
    :func:`tree_of`), or a new parse (not kept: a checked file's tree kept
    alive after its check costs more in the collector and the caches than the
    second parse it may save)."""
    handed = getattr(_HANDOFF, "pair", None)
    _HANDOFF.pair = None
    if handed is not None and handed[0] is text:
        return handed[1]
    return tree_of(text, path, keep=False)


#: whole trees parsed lately for the project's modules read for what they define
#: (the value facts' module contexts, the project summaries): ``path -> (text,
#: tree)``, the least recent first.  Such a module checked afterwards asks for
#: the same text, and takes the tree (nothing changes a tree).
_RECENT: "OrderedDict[str, Tuple[str, ast.Module]]" = OrderedDict()
#: the text of the trees kept, in characters, at most (a tree takes ~50 times
#: its text's size): a file larger than this is not kept
RECENT_TEXT = 1 << 18
_KEPT = [0]


def tree_of(text: str, path: str = "", keep: bool = True) -> ast.Module:
    """:func:`parse` of ``text``, or the tree parsed lately for the file ``path``
    when its text was this same text; the tree made is kept for the next asker
    (with ``keep``)."""
    if not path:
        return parse(text)
    path = os.path.abspath(path)
    kept = _RECENT.get(path)
    if kept is not None and (kept[0] is text or kept[0] == text):
        _RECENT.move_to_end(path)
        return kept[1]
    tree = parse(text)
    if not keep:
        return tree
    if kept is not None:
        del _RECENT[path]
        _KEPT[0] -= len(kept[0])
    if len(text) <= RECENT_TEXT:
        _RECENT[path] = (text, tree)
        _KEPT[0] += len(text)
        while _KEPT[0] > RECENT_TEXT:
            _, (old, _) = _RECENT.popitem(last=False)
            _KEPT[0] -= len(old)
    return tree


def drop_tree(path: str) -> None:
    """Let the tree kept for ``path`` go (the fixer frees a file's tree before
    it makes the next one)."""
    if path:
        kept = _RECENT.pop(os.path.abspath(path), None)
        if kept is not None:
            _KEPT[0] -= len(kept[0])


def hand_off(text: str, tree: Optional[ast.Module]) -> None:
    _HANDOFF.pair = (text, tree) if tree is not None else None
