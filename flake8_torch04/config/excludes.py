"""Exclude patterns, read as flake8 and git read them."""
from __future__ import annotations

import os
import re
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", "CVS", ".tox", ".nox", ".venv", "venv", "__pycache__",
    ".eggs", "*.egg-info", "*.egg", "build", "dist", "node_modules", ".ipynb_checkpoints",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "__pypackages__", "site-packages",
)
SOURCE_SUFFIXES = (".py", ".ipynb")


def _pattern_regex(pattern: str) -> str:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            bracket = _bracket(pattern, i)
            if bracket is None:  # (not closed: a plain character)
                out.append(re.escape("["))
                i += 1
            else:
                regex, i = bracket
                out.append(regex)
        elif pattern[i] == "\\":  # escapes the next character; a last one, nothing (as in git)
            out.append(re.escape(pattern[i + 1]) if i + 1 < len(pattern) else "(?!)")
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


#: git's character classes (``[[:digit:]]``), in a regex's brackets
_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "space": "\\s", "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
}


def _bracket(pattern: str, start: int) -> Optional[Tuple[str, int]]:
    """The regex of the ``[...]`` at ``start`` as git reads it, and the index after
    it; ``None`` when it is not closed (the ``[`` is then a plain character).

    ``!`` or ``^`` first negates, a ``]`` first is a member, ``\\`` escapes, ``a-z``
    is a range (``z-a`` holds nothing, as in git, rather than breaking the regex),
    ``[:digit:]`` a class; a set never matches ``/``.
    """
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    i += negate
    members: List[str] = []
    first = True
    while i < len(pattern):
        char = pattern[i]
        if char == "]" and not first:
            break
        first = False
        if char == "[" and pattern.startswith("[:", i):
            close = pattern.find(":]", i + 2)
            name = pattern[i + 2:close] if close != -1 else ""
            if name in _CLASSES:
                members.append(_CLASSES[name])
                i = close + 2
                continue
        if char == "\\" and i + 1 < len(pattern):
            i += 1
            char = pattern[i]
        low = char
        i += 1
        if pattern.startswith("-", i) and i + 1 < len(pattern) and pattern[i + 1] != "]":
            high = pattern[i + 1]
            if high == "\\" and i + 2 < len(pattern):
                high = pattern[i + 2]
                i += 1
            i += 2
            if low <= high:
                members.append(f"{re.escape(low)}-{re.escape(high)}")
            continue
        members.append(re.escape(low))
    else:
        return None
    body = "".join(members)
    if negate:
        return f"[^/{body}]", i + 1
    return (f"(?![/])[{body}]" if body else "(?!)"), i + 1


class Excludes:
    """``.gitignore``-style patterns, matched against paths relative to the root walked.

    A pattern without a ``/`` (other than a trailing one) matches a name at any
    depth; one with a ``/`` is anchored at the root; a trailing ``/`` matches
    directories only; ``*``, ``?``, ``[...]`` stay within a path segment, ``**``
    crosses them; ``!`` re-includes; the last matching pattern decides.  A
    directory that is excluded is not entered.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        # (compiled at the first match: a run given only file names never walks
        # a directory, and the 22 default patterns cost a millisecond to compile)
        self._rules: Optional[List[Tuple["re.Pattern[str]", bool, bool]]] = None
        #: without a ``!`` pattern: one regex for files and one for directories
        #: (any pattern that matches decides), else ``None``
        self._any: Optional[Tuple["re.Pattern[str]", "re.Pattern[str]"]] = None

    @property
    def rules(self) -> List[Tuple["re.Pattern[str]", bool, bool]]:
        if self._rules is None:
            self._rules = self._compile(self.patterns)
            if not any(negate for _, negate, _ in self._rules):
                self._any = (_either(r for r, _, dir_only in self._rules if not dir_only),
                             _either(r for r, _, _ in self._rules))
        return self._rules

    @staticmethod
    def _compile(patterns: Sequence[str]) -> List[Tuple["re.Pattern[str]", bool, bool]]:
        rules: List[Tuple["re.Pattern[str]", bool, bool]] = []
        for raw in patterns:
            pattern = raw.strip()
            if not pattern or pattern.startswith("#"):
                continue
            negate = pattern.startswith("!")
            pattern = pattern[1:] if negate else pattern
            dir_only = pattern.endswith("/")
            pattern = pattern.rstrip("/")
            if pattern.startswith("./"):
                pattern = pattern[2:]
            anchored = "/" in pattern
            body = _pattern_regex(pattern.lstrip("/"))
            regex = re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z", re.S)
            rules.append((regex, negate, dir_only))
        return rules

    def excluded(self, relpath: str, is_dir: bool) -> bool:
        rules = self.rules
        if self._any is not None:
            return self._any[1 if is_dir else 0].match(relpath) is not None
        result = False
        for regex, negate, dir_only in rules:
            if dir_only and not is_dir:
                continue
            if regex.match(relpath):
                result = not negate
        return result


def _either(regexes: Iterable["re.Pattern[str]"]) -> "re.Pattern[str]":
    """One regex that matches where any of ``regexes`` (made by :class:`Excludes`)
    matches; one that never matches for none."""
    body = "|".join(f"(?:{r.pattern})" for r in regexes)
    return re.compile(body or r"(?!)", re.S)


def forced_out(path: str, dropped: Callable[..., bool], is_dir: bool = False) -> bool:
    """``--force-exclude``: whether a named path, or a directory above it (up to the
    current directory), is excluded; ``--exclude`` patterns are matched from ``.``."""
    here = os.getcwd()
    candidate = os.path.abspath(path)
    parent = False
    while True:
        rel = os.path.relpath(candidate, here).replace(os.sep, "/")
        if rel == "." or rel.startswith("../"):
            return rel != "." and dropped(candidate, os.path.basename(candidate), is_dir,
                                          parent)
        if dropped(candidate, rel, is_dir, parent):
            return True
        candidate, is_dir, parent = os.path.dirname(candidate), True, True
