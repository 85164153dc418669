"""Searching a file's text line by line: the lines a word or a pattern is on,
read as the tokenizer reads them (NFKC identifiers, continuation lines)."""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple, Union


def lines_matching(text: str, pattern: Union[str, "re.Pattern[str]"]) -> Optional[List[int]]:
    """The numbers of the lines of ``text`` where ``pattern`` (a regex, or a plain
    word: see :func:`lines_saying`) matches, in order; ``None`` when a name may be
    spelled otherwise in the source (not ASCII: identifiers are NFKC-normalized)
    or a line ends in more than ``\\n`` (the parser's line numbers would not be
    the count of ``\\n``)."""
    if not text.isascii() or "\r" in text:
        return None
    if isinstance(pattern, str):
        return lines_saying(text, pattern)
    hits: List[int] = []
    line, last = 1, 0
    for match in pattern.finditer(text):
        at = match.start()
        line += text.count("\n", last, at)
        last = at
        if not hits or hits[-1] != line:
            hits.append(line)
    return hits


def nfkc(text: str) -> str:
    """``text`` as Python reads identifiers: ``ｂackward`` is ``backward``."""
    if text.isascii():
        return text
    import unicodedata  # (rarely needed: not imported with the plugin)

    return unicodedata.normalize("NFKC", text)


#: the lines of the last file :func:`tokenizer_lines` checked, and its answer
_checked: Tuple[object, Optional[Sequence[str]]] = (None, None)


#: the text of the last file :func:`file_says` was asked about, and its answers
_said: Tuple[object, Dict[str, bool]] = (None, {})


def file_says(text: str, word: str) -> bool:
    """Whether ``text`` may say ``word`` as Python reads identifiers (``False``
    only for ASCII text without it).  The answers for the last file are remembered."""
    global _said
    said = _said
    if said[0] is not text:
        said = _said = (text, {})
    found = said[1].get(word)
    if found is None:
        found = said[1][word] = word in text or not text.isascii()
    return found


def lines_saying(text: str, word: str, first: int = 1) -> List[int]:
    """The numbers of the lines of ``text`` (lines ending in ``\n``, the first
    numbered ``first``) that hold ``word``, in order."""
    numbers: List[int] = []
    line, last = first, 0
    at = text.find(word)
    while at != -1:
        line += text.count("\n", last, at)
        last = at
        if not numbers or numbers[-1] != line:
            numbers.append(line)
        at = text.find(word, at + 1)
    return numbers


def tokenizer_lines(lines: Sequence[str], text: str) -> Optional[Sequence[str]]:
    """``lines`` if they are split where Python's tokenizer splits ``text`` (so
    that the line numbers of its tree index them), else ``None``.  The answer
    for the last file is remembered."""
    global _checked
    checked = _checked
    if checked[0] is not lines:
        ends = text.count("\n") + text.count("\r") - text.count("\r\n")
        whole = len(lines) == ends + (not text.endswith(("\n", "\r")))
        checked = _checked = (lines, lines if whole else None)
    return checked[1]


#: an attribute assigned in a text (``args.lr = None``, ``opt.lr *= 0.1``): the
#: dot and the attribute; the owner is read backwards from the dot (a pattern
#: that starts with the owner's ``\w*`` is tried at every character of every word)
_ATTRIBUTE_ASSIGNED = re.compile(
    r"\.[ \t]*(\w+)[ \t]*(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)")
#: the owner: the word (maybe none) and blanks that end just before the dot
_OWNER = re.compile(r"(?<!\w)(\w*)[ \t]*\Z")


def assigned_attributes(text: str) -> List[Tuple[str, str]]:
    """``(owner, attribute)`` for every attribute the text assigns (``=`` or an
    augmented assignment), the owner being the word before the dot (``""``
    after a bracket or a call)."""
    found = []
    last = 0  # (an owner is read after the previous match, as ``findall`` would)
    for match in _ATTRIBUTE_ASSIGNED.finditer(text):
        dot = match.start()
        owner = _OWNER.search(text, last, dot)
        found.append((owner.group(1) if owner else "", match.group(1)))
        last = match.end()
    return found
