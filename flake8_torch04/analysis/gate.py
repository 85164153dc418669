"""The marker gate: which rules a file's text licenses, and where."""
from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, chain, repeat
from typing import Dict, List, Sequence, Tuple

from .markers import CORE_MARKERS, Search, Words, class_aliases, import_aliases, match_offsets, \
    searcher
from .registry import Gate
from .walker import cache_get

#: the licence of the core markers: walk the statement whole, dispatch nothing more
WALK = (None, ())


class _Plan:
    """The markers of a selection of rules, arranged to search a file for them fast.

    Each distinct pattern is searched once per file (``Variable`` is a marker
    of two rules), and only when the file's :class:`Words` allow a match: a
    pattern of whole words (``\\bload\\b``) by their presence among the
    file's words (one set intersection for all such patterns), a pattern that
    starts with a word (``Variable``, ``append\\b``) by that word's presence in
    any of them; the others (``\\[``, ``\\+``) are always searched.
    """

    __slots__ = ("searches", "by_word", "worded", "always", "markers", "requires", "required",
                 "unconditional", "conditional")

    def __init__(self, selected: Sequence[Gate]) -> None:
        index: Dict[str, int] = {}
        #: the distinct patterns' searches, by index
        self.searches: List[Search] = []
        #: per rule (in the order selected): ``(pattern index, node types)`` pairs
        self.markers: List[List[Tuple[int, tuple]]] = []
        #: per rule: the indices of the patterns one of which the file must match
        self.requires: List[Tuple[int, ...]] = []

        def number(pattern: str) -> int:
            if pattern not in index:
                index[pattern] = len(self.searches)
                self.searches.append(searcher(pattern))
            return index[pattern]

        for gate in selected:
            self.markers.append([(number(pattern), types) for pattern, types in gate.markers])
            self.requires.append(tuple(number(pattern) for pattern in gate.requires))
        #: the patterns some rule requires; those of the rules that require
        #: none; ``(requirements, markers)`` of the others
        self.required = frozenset(i for requires in self.requires for i in requires)
        self.unconditional = frozenset(
            i for markers, requires in zip(self.markers, self.requires) if not requires
            for i, _ in markers)
        self.conditional = [
            (requires, frozenset(i for i, _ in markers))
            for markers, requires in zip(self.markers, self.requires) if requires]
        #: the patterns of whole words, by word; the patterns whose words rule
        #: them in or out (see :meth:`Search.absent`); the others
        self.by_word: Dict[bytes, List[int]] = {}
        self.worded: List[Tuple[int, Search]] = []
        self.always: List[int] = []
        for i, search in enumerate(self.searches):
            if search.exact is not None:
                for word in search.exact:
                    self.by_word.setdefault(word, []).append(i)
            if search.keys is not None or search.exact is not None:
                self.worded.append((i, search))
            else:
                self.always.append(i)

    def search(self, text: str, words: "Words") -> Dict[int, List[int]]:
        """The offsets of every pattern that matches ``text``, by index."""
        candidates = set(self.always)
        if words.ascii:  # whole words: one intersection for them all
            for word in words.distinct.intersection(self.by_word):
                candidates.update(self.by_word[word])
            candidates.update(
                i for i, search in self.worded
                if search.exact is None and not search.absent(words)
            )
        else:  # (whole words cannot be told apart in it: see ``Words.ascii``)
            candidates.update(i for i, search in self.worded if not search.absent(words))
        found = {}
        searches = self.searches
        # a rule's requirements first: the markers of a rule they rule out (a
        # ``,`` of the rule on loss targets) are not searched
        for i in candidates.intersection(self.required):
            offsets = searches[i].offsets(text)
            if offsets:
                found[i] = offsets
        needed = set(self.unconditional)
        for requires, markers in self.conditional:
            if any(i in found for i in requires):
                needed.update(markers)
        for i in candidates.intersection(needed).difference(self.required):
            offsets = searches[i].offsets(text)
            if offsets:
                found[i] = offsets
        return found


_PLANS: Dict[Tuple[str, ...], _Plan] = {}


def _plan(selected: Sequence[Gate]) -> _Plan:
    return cache_get(_PLANS, tuple(gate.code for gate in selected), 64, lambda: _Plan(selected))


def open_gate(selected: List[Gate], lines: Sequence[str], text: str):
    """What the markers announce, line by line.

    Returns the licences -- ``(gate, node types)`` pairs, bit ``i`` of a mask
    standing for ``licences[i]`` --, a map from each line that matches a
    marker to the mask of what it announces, and where the matches are: their
    sorted offsets in the text and the offset each line starts at, counted in
    UTF-8 bytes (as a node's columns are); ``None`` when no rule's marker
    matches at all.
    """
    plan = _plan(selected)
    words = Words(text)
    found = plan.search(text, words)
    if not found:
        return None
    licences: List[tuple] = [WALK]
    announced: List[Tuple[int, List[int]]] = []
    full = 0  # every active rule, all its node types
    rules: List[Tuple[int, List[Tuple[int, tuple]]]] = []  # their bits and markers
    for gate, markers, requires in zip(selected, plan.markers, plan.requires):
        if not any(i in found for i, _ in markers):
            continue
        if requires and not any(i in found for i in requires):
            continue
        rule_bit = 1 << len(licences)
        full |= rule_bit
        rules.append((rule_bit, markers))
        licences.append((gate, gate.node_types))
        for i, types in markers:
            offsets = found.get(i)
            if offsets:
                bit = rule_bit
                if types != gate.node_types:
                    bit = 1 << len(licences)
                    licences.append((gate, types))
                announced.append((bit, offsets))
    if not full:
        return None
    for marker in CORE_MARKERS:
        announced.append((1, match_offsets(text, marker, words)))
    aliases = import_aliases(text)
    if "class" in text:
        for name, sources in class_aliases(text).items():
            aliases.setdefault(name, set()).update(sources)
    if aliases:
        # an alias is a spelling of what it stands for: its uses are announced
        # for the rules whose markers match that (``Seq`` for ``Sequential``
        # of ``from torch.nn import Sequential as Seq``, ``ce`` for ``ffi``
        # of ``from torch.utils.ffi import create_extension as ce``; ``Flat``
        # for ``Softmax`` of ``class Flat(nn.Softmax)``)
        searches = plan.searches
        for alias, sources in aliases.items():
            bits = 0
            for rule_bit, markers in rules:
                if any(searches[i].offsets(source) for i, _ in markers for source in sources):
                    bits |= rule_bit
            if bits:
                announced.append((bits, match_offsets(text, rf"\b{alias}\b", words)))
    ends = [0, *accumulate(map(len, lines))]  # the offset each line starts at
    masks: Dict[int, int] = {}
    for bit, offsets in announced:
        if offsets:
            for line in set(map(bisect_right, repeat(ends, len(offsets)), offsets)):
                masks[line] = masks.get(line, 0) | bit
    hits = sorted(chain.from_iterable(offsets for _, offsets in announced))
    if not text.isascii():  # a node's columns count bytes: so must the positions
        ends, hits = _byte_positions(lines, ends, hits)
    return licences, masks, (hits, ends)


def _byte_positions(lines: Sequence[str], ends: List[int], hits: List[int]):
    """The offsets each line starts at and ``hits`` (sorted offsets), counted in
    UTF-8 bytes rather than characters."""
    byte_ends = [0, *accumulate(len(line.encode("utf-8", "surrogatepass")) for line in lines)]
    converted = []
    for offset in hits:
        line = bisect_right(ends, offset)
        col = offset - ends[line - 1]
        if line <= len(lines) and not lines[line - 1].isascii():
            col = len(lines[line - 1][:col].encode("utf-8", "surrogatepass"))
        converted.append(byte_ends[line - 1] + col)
    return byte_ends, converted
