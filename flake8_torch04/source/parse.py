"""Newlines and parsing: one parse of a text, handed from the fixer to the analysis."""
from __future__ import annotations

import ast
import re
import warnings
from _thread import _local as _thread_local  # (``threading.local``, without importing threading)
from collections import Counter
from typing import Optional

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


def parsed_tree(text: str) -> ast.Module:
    handed = getattr(_HANDOFF, "pair", None)
    _HANDOFF.pair = None
    if handed is not None and handed[0] is text:
        return handed[1]
    return parse(text)


def hand_off(text: str, tree: Optional[ast.Module]) -> None:
    _HANDOFF.pair = (text, tree) if tree is not None else None
