"""Remembering the value facts' answers: only those that nothing cut short.

A question about a value may meet itself (a loop variable bound from what it
was) or the depth limit; its answer then depends on how it was asked.  Such an
answer is kept for the question under way only, so that what a rule is told
does not depend on which rule asked first (see :func:`remembered`).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Hashable, List, Set, Tuple

#: the most steps an answer may take through definitions and calls
DEPTH = 32

#: how many answers were cut short so far (at the depth limit, or at a question
#: being answered): an answer during which this grows depends on the way it was
#: asked, and is not remembered for other questions.  Shared by every file's
#: facts, as a question may go through another module's; a count that grows for
#: another reason (another thread's questions) only remembers less.
CUT = [0]
#: the questions being answered: (key, the memo they are answered for)
_ASKING: Set[Tuple[Hashable, int]] = set()
#: every ``pending`` dict that holds an answer: emptied together once the
#: question asked at depth 0 is answered (:func:`forget_pending`), whichever
#: module's facts hold it.  A question about one file goes through another
#: module's facts; their cut-short answers, kept there, told later questions what
#: this one had met: the next file's (its findings depended on the order of the
#: files: ACER's test.py lost one when train.py was checked first) and the same
#: file's (awd-lstm's ``t.data[0]`` of ``for t in targets`` went unseen)
_DIRTY: List[Dict[Any, Any]] = []


def forget_pending() -> None:
    """Empty every ``pending`` dict, unless a question is under way (one asked at
    depth 0 inside another's answer leaves them to the outer one)."""
    if _ASKING:
        return
    for pending in _DIRTY:
        pending.clear()
    _DIRTY.clear()


def remembered(memo: Dict[Any, Any], pending: Dict[Any, Any], k: Hashable, depth: int,
               answer: Callable[[], Any], unknown: Any) -> Any:
    """``memo[k]`` (``k``: a node's ``id``, or another key of the question),
    answered by ``answer()`` when missing: remembered in ``memo`` where no step
    of it was cut short, else only in ``pending``, which
    :meth:`.values.Values.of` empties once the question asked at depth 0 is
    answered.  ``unknown`` is the answer past the depth limit, and to a question
    met while it is being answered (a definition that reaches itself, a
    ``forward`` that calls its own class)."""
    if depth > DEPTH:
        CUT[0] += 1
        return unknown
    found = memo.get(k)
    if found is not None:
        return found
    asking = (k, id(memo))
    found = pending.get(k)
    if found is not None or asking in _ASKING:
        CUT[0] += 1
        return found if found is not None else unknown
    cut = CUT[0]
    _ASKING.add(asking)
    try:
        found = answer()
    finally:
        _ASKING.discard(asking)
    if CUT[0] == cut:
        memo[k] = found
    else:
        if not pending:
            _DIRTY.append(pending)
        pending[k] = found
    return found
