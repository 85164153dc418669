"""Searching a file's text for the markers that announce a rule's findings."""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Set, Tuple


def cache_get(cache: dict, key: object, most: int, make: Callable[[], Any]) -> Any:
    """``cache[key]``, made by ``make()`` when it is missing; a cache of more than
    ``most`` entries is emptied first (its keys come from the files checked)."""
    found = cache.get(key)
    if found is None:
        if len(cache) > most:
            cache.clear()
        found = cache[key] = make()
    return found


#: what the walker itself must see wherever it is, in full: tests of the torch
#: version (``torch.__version__``, ``hasattr(torch, 'no_grad')``, also when
#: assigned to a flag) and ``:=`` (it binds in the enclosing scope)
CORE_MARKERS = ("__version__", r"\bhasattr\b", ":=")
_FROM_IMPORT = re.compile(r"from[ \t]+([\w.]+)[ \t]+import\b(\([^)]*\)|.*)")
_ALIAS = re.compile(r"(\w+)\s+as\s+([A-Za-z_]\w*)")


def at_line_start(text: str, start: int) -> bool:
    """Whether only blanks and tabs come before ``start`` on its line."""
    return not text[text.rfind("\n", 0, start) + 1:start].strip(" \t")


def import_aliases(text: str) -> Dict[str, Set[str]]:
    """Names bound by ``from M import NAME as ALIAS``, each with what it stands
    for (``M.NAME``; a name may be bound more than once).

    A rule's markers name what it matches (``Variable``, ``Sequential``), and
    every other spelling keeps that name in view (``ag.Variable``,
    ``nn.Sequential``) except such an alias, which may then be used anywhere.
    """
    aliases: Dict[str, Set[str]] = {}
    start = text.find("from")
    while start != -1:
        match = _FROM_IMPORT.match(text, start) if at_line_start(text, start) else None
        if match is not None:
            names = match.group(2)
            if "as" in names:
                module = match.group(1)
                for name, alias in _ALIAS.findall(names):
                    aliases.setdefault(alias, set()).add(f"{module}.{name}")
            start = text.find("from", match.end())
        else:
            start = text.find("from", start + 1)
    return aliases


_CLASS = re.compile(r"class[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)]*)\)")
_WORD = re.compile(r"[A-Za-z_]\w*")


def class_aliases(text: str) -> Dict[str, Set[str]]:
    """Names bound by ``class NAME(BASES):``, each with the text of its bases and of
    theirs where a base is such a class of the file (``class Flat(nn.Softmax)``,
    ``class Deep(Flat)``: ``Deep`` stands for ``nn.Softmax`` too).

    A class on a torch class is a spelling of it for a rule that follows
    subclasses (TV123: ``Flat()`` builds an ``nn.Softmax``), as an import alias is.
    """
    bases: Dict[str, Set[str]] = {}
    start = text.find("class")
    while start != -1:
        match = _CLASS.match(text, start) if at_line_start(text, start) else None
        if match is not None:
            bases.setdefault(match.group(1), set()).add(match.group(2))
            start = text.find("class", match.end())
        else:
            start = text.find("class", start + 1)
    for _ in range(4):  # (a chain of classes of the file, a few deep)
        grown = False
        for name, sources in bases.items():
            for word in {w for source in list(sources) for w in _WORD.findall(source)}:
                more = bases.get(word)
                if more is not None and word != name and not more <= sources:
                    sources |= more
                    grown = True
        if not grown:
            break
    return bases


def text_imports_torch(text: str) -> bool:
    """Whether a line starts with ``import torch`` or ``from torch``."""
    for match in re.finditer(r"torch\b", text):
        start = match.start()
        before = text[text.rfind("\n", 0, start) + 1:start]  # ``import ``, `` from ``
        if before[-1:].isspace() and before.split() in (["import"], ["from"]):
            return True
    return False


#: A leading zero-width test defeats the regex engine's literal-prefix scan
#: (about 30x slower on real files): for a pattern that starts with one of
#: these and then a word character, the search tests the character before
#: each match itself.
_LEADING_TESTS = ((r"\b", ""), (r"(?<![\w.])", "."))
#: an attribute access before a word: ``.data``, ``. data``, ``.\<newline>data``
_MEMBER = r"\.[\s\\]*"


class Search:
    """How to find one regular expression fast.

    ``str.find`` scans about three times faster than the regex engine, so a
    pattern that is a plain string (``Variable``, ``\\+``, ``:=``), or starts
    with a word (``append\\b``, ``type[\\s\\\\]*\\(``), or with an attribute access
    and a word (``\\.[\\s\\\\]*data\\b``) is found by searching for that string or
    word; the characters around it are tested by hand (a leading ``\\b`` or
    ``(?<![\\w.])``, the ``.`` before, a trailing ``\\b``) and a regex checks
    only what else must follow.  A pattern that starts with a group of words
    (``\\b(?:get|pop|dumps?)\\b``, ``(?i:loss|crit)``) is found by searching
    for each word's leading letters and matching the regex only there
    (:func:`_alternatives`).  Any other pattern is searched with the regex.
    """

    __slots__ = ("literal", "not_after", "member", "word_ends", "after", "regex", "words",
                 "fold", "keys", "exact")

    def __init__(self, pattern: str) -> None:
        whole = pattern
        #: the whole words one of which every match is, when they can be told
        self.exact: Optional[FrozenSet[bytes]] = _whole_words(pattern)
        self.not_after: Optional[str] = None  # characters that may not come before
        self.member = False  # the literal must follow ``.`` (and blanks); report the ``.``
        for test, also in _LEADING_TESTS:
            if pattern.startswith(test) and pattern[len(test):][:1].isidentifier():
                pattern, self.not_after = pattern[len(test):], also
        if pattern.startswith(_MEMBER) and pattern[len(_MEMBER):][:1].isidentifier():
            pattern, self.member = pattern[len(_MEMBER):], True
        plain = re.sub(r"\\(.)", r"\1", pattern)
        if re.escape(plain) == pattern:  # a plain string
            self.literal, rest = plain, ""
        else:
            length = 0
            while length < len(pattern) and (pattern[length].isalnum() or pattern[length] == "_"):
                length += 1
            if length and pattern[length:length + 1] in ("*", "+", "?", "{"):
                length -= 1  # the word's last letter repeats
            self.literal = pattern[:length] if "|" not in pattern else ""
            rest = pattern[len(self.literal):]
        short = ""
        if len(self.literal) == 1 and self.not_after is None and (rest or self.member):
            # one letter (``.t(``) is found everywhere: the regex engine scans
            # for the whole pattern some twenty times faster
            short, self.literal, self.member = self.literal, "", False
            pattern, rest = whole, ""
        self.word_ends = bool(self.literal) and rest == r"\b"  # tested by hand
        if self.word_ends:
            rest = ""
        #: the regex for what must follow the literal, or for the whole pattern
        self.after = re.compile(rest).match if self.literal and rest else None
        self.regex = None if self.literal else re.compile(pattern)
        #: the literal prefixes every match starts with, for a group of words
        self.words: Optional[Tuple[str, ...]] = None
        self.fold = False  # (the group ignores case: search the text lowered)
        if self.regex is not None:
            alternatives = _alternatives(pattern)
            if alternatives is not None:
                self.fold, self.words = alternatives
        #: words of which every match holds one (see :class:`Words`), or ``None``
        self.keys: Optional[Tuple[bytes, ...]] = None
        leads = (short,) if short else self.words if self.regex is not None else (self.literal,)
        if leads and all(_WORDLIKE.fullmatch(lead) for lead in leads):
            self.keys = tuple(lead.encode("ascii") for lead in leads)

    def absent(self, words: "Words") -> bool:
        """Whether the file whose :class:`Words` these are cannot match."""
        if self.exact is not None and words.ascii:
            return words.distinct.isdisjoint(self.exact)
        keys = self.keys
        if keys is None:
            return False
        found = words.lowered() if self.fold else words.joined
        for key in keys:
            if key in found:
                return False
        return True

    def offsets(self, text: str) -> List[int]:
        if self.regex is not None:
            if self.words is None or (self.fold and not text.isascii()):
                return [m.start() for m in self.regex.finditer(text)]
            # every match starts where one of the words does: match only there
            # (and, as ``finditer``, take the leftmost match after the last one)
            haystack = text.lower() if self.fold else text
            starts = set()
            for word in self.words:
                start = haystack.find(word)
                while start != -1:
                    starts.add(start)
                    start = haystack.find(word, start + 1)
            match = self.regex.match
            found = []
            last = 0
            for start in sorted(starts):
                if start >= last:
                    m = match(text, start)
                    if m is not None:
                        found.append(start)
                        last = max(m.end(), start + 1)
            return found
        literal, not_after, after = self.literal, self.not_after, self.after
        found = []
        start = text.find(literal)
        while start != -1:
            end = start + len(literal)
            at = start
            if not_after is not None and start:
                before = text[start - 1]
                if before.isalnum() or before == "_" or before in not_after:
                    at = -1
            if self.member and at != -1:
                while at and (text[at - 1].isspace() or text[at - 1] == "\\"):
                    at -= 1
                at = at - 1 if at and text[at - 1] == "." else -1
            if self.word_ends and at != -1 and end < len(text):
                if text[end].isalnum() or text[end] == "_":
                    at = -1
            if after is not None and at != -1:
                rest = after(text, end)
                if rest is None:
                    at = -1
                else:
                    end = max(rest.end(), end)
            if at != -1:
                found.append(at)
                start = text.find(literal, end)
            else:
                start = text.find(literal, start + 1)
        return found


_SEARCHES: Dict[str, Search] = {}
_WORDLIKE = re.compile(r"[A-Za-z0-9_]+")
#: bytes that make up words (as ``\\w``, and every byte of a non-ASCII
#: character, so that a word is never split): the others become blanks
WORD_BYTES = bytes(
    c if c >= 128 or chr(c).isalnum() or c == 95 else 32 for c in range(256)
)


#: the most bytes :class:`Words` splits at once
_WORDS_AT_ONCE = 1 << 15


class Words:
    """The distinct words of a text, joined by blanks: one pass over the text
    (about the cost of one ``str.find``) and a split, after which asking
    whether a word occurs costs next to nothing.

    Most markers are words (``Variable``, ``retain_variables``), or start with
    one (``append\\b``, ``.data``), and most files hold none of most of them:
    a marker whose words are not among the file's (in any word: ``Variable``
    in ``Variables``) cannot match, and its search of the text is skipped.
    """

    __slots__ = ("distinct", "joined", "ascii", "_lowered")

    def __init__(self, text: str) -> None:
        data = text.encode("utf-8", "surrogatepass").translate(WORD_BYTES)
        if len(data) <= _WORDS_AT_ONCE:
            self.distinct = frozenset(data.split())
        else:  # (a list of every word of a 300 kB generated module is 2 MB: in pieces)
            distinct: Set[bytes] = set()
            start = 0
            while start < len(data):
                end = data.find(b" ", start + _WORDS_AT_ONCE)  # (no word crosses a blank)
                if end == -1:
                    end = len(data)
                distinct.update(data[start:end].split())
                start = end
            self.distinct = frozenset(distinct)
        self.joined = b" ".join(self.distinct)
        #: (a word of a pattern bounded by ``\\b`` is one of :attr:`distinct`
        #: only in ASCII text: elsewhere a blank may not be an ASCII one)
        self.ascii = text.isascii()
        self._lowered: Optional[bytes] = None

    def lowered(self) -> bytes:
        if self._lowered is None:
            self._lowered = self.joined.lower()
        return self._lowered


_GROUP = re.compile(r"(\\b)?\(\?(i)?:([\w|?]+)\)")


def _alternatives(pattern: str) -> Optional[Tuple[bool, Tuple[str, ...]]]:
    """For a pattern that starts with a group of words, ``\\b(?:a|bc?)...`` or
    ``(?i:a|b)...``: whether it ignores case, and the letters each match starts
    with (``a``, ``b``); ``None`` for any other pattern."""
    group = _GROUP.match(pattern)
    if group is None or group.group(2) and re.search(r"\(\?[a-zA-Z]", pattern[group.end():]):
        return None
    words = []
    for word in group.group(3).split("|"):
        lead = re.match(r"\w*", word).group()
        if len(lead) < len(word):  # ``dumps?``: the letter before ``?`` may be absent
            if word[len(lead):] != "?":
                return None
            lead = lead[:-1]
        if not lead:
            return None
        words.append(lead.lower() if group.group(2) else lead)
    # (``add`` finds where ``addcmul`` starts too)
    words = [w for w in set(words) if not any(w != v and w.startswith(v) for v in words)]
    return bool(group.group(2)), tuple(sorted(words))


#: how a pattern may start so that its first word is a whole word
_WORD_STARTS = (r"\b", r"(?<![\w.])", _MEMBER)
#: how it may end after its last word: ``\b``, or blanks and a call
_WORD_ENDS = (r"\b", r"[\s\\]*\(")


def _whole_words(pattern: str) -> Optional[FrozenSet[bytes]]:
    """The words one of which every match of ``pattern`` is, whole (``\\bload\\b``:
    ``load``; ``\\b(?:train|test)_(?:data|labels)\\b``: four words); ``None``
    when the pattern is not so made."""
    start = next((s for s in _WORD_STARTS if pattern.startswith(s)), None)
    end = next((e for e in _WORD_ENDS if pattern.endswith(e)), None)
    if start is None or end is None:
        return None
    words = _expand(pattern[len(start):len(pattern) - len(end)])
    if not words or "" in words:
        return None
    return frozenset(w.encode("ascii") for w in words)


def _expand(core: str) -> Optional[List[str]]:
    """Every string a pattern made of word characters, ``(?:a|b)`` groups and
    ``?`` can match, or ``None`` (another construct, or too many)."""
    out = [""]
    i = 0
    while i < len(core):
        if core.startswith("(?:", i):
            close = core.find(")", i)
            inner = core[i + 3:close]
            if close == -1 or "(" in inner:
                return None
            alternatives: List[str] = []
            for alternative in inner.split("|"):
                expanded = _expand(alternative)
                if expanded is None:
                    return None
                alternatives.extend(expanded)
            i = close + 1
        elif core[i].isascii() and (core[i].isalnum() or core[i] == "_"):
            alternatives = [core[i]]
            i += 1
        else:
            return None
        if core[i:i + 1] == "?":
            alternatives.append("")
            i += 1
        out = [a + b for a in out for b in alternatives]
        if len(out) > 256:
            return None
    return out


def searcher(pattern: str) -> Search:
    # (aliases are names from the code: the cache is bounded)
    return cache_get(_SEARCHES, pattern, 2000, lambda: Search(pattern))


def match_offsets(text: str, pattern: str, words: Optional[Words] = None) -> List[int]:
    """Offsets where ``pattern`` matches ``text`` (patterns that cannot overlap
    themselves); ``words``, the text's :class:`Words`, may rule a search out."""
    search = searcher(pattern)
    if words is not None and search.absent(words):
        return []
    return search.offsets(text)
