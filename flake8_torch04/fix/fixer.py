"""The fix loop: choose non-overlapping fixes, apply, re-parse, repeat to a fixpoint."""
from __future__ import annotations

import ast
import re
from bisect import bisect_left, insort
from collections import Counter
from typing import Callable, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Set, Tuple

from ..analysis.findings import Finding, Fix
from ..source.parse import dominant_newline, hand_off, parse
from ..source.text import Edit
from .analysis import Analysis
from .blocks import join_blocks
from .edits import BadEdit, Positions, apply_spans, edit_spans, overlaps
from .guard import expressions_at, reshaped, undefined_names
from .imports import (
    add_imports, project_users, remove_variable_imports, variable_names_in_use
)

#: rounds of fixing before giving up on reaching a fixpoint
MAX_ROUNDS = 10


# ---------------------------------------------------------------------------
# the fix loop


class Dropped(NamedTuple):
    """A fix that was not applied because of what it would have done."""

    finding: Finding
    reason: str


class FixResult(NamedTuple):
    text: str
    fixed: Counter  # findings the fixes resolved, per code
    dropped: List[Dropped]
    converged: bool  # reached a fixpoint within MAX_ROUNDS
    #: the analysis of ``text`` when the fixer made one (saves the caller a check)
    analysis: Optional[object] = None
    #: what the fixer chose not to do, for the report (an import another module takes)
    notes: Tuple[str, ...] = ()


def fix_key(finding: Finding) -> tuple:
    fix = finding.fix
    return (finding.code, finding.message, tuple(e.text for e in fix.edits) if fix else ())


class _Built(NamedTuple):
    text: str
    tree: Optional[ast.Module]
    error: Optional[str]  # why the whole text is invalid
    broken: Dict[int, str]  # fix index -> why that fix is wrong
    undefined: Optional[Counter] = None  # the text's undefined names, when checked


class Round:
    """One round's text and what a build of some of its fixes must keep."""

    def __init__(self, text: str, tree: Optional[ast.Module], fixes: Sequence[Finding],
                 newline: str, undefined: Optional[Counter], counts: Optional[Counter],
                 analyse: Optional[Callable[[str], "Analysis"]]) -> None:
        self.text = text
        self.positions = Positions(text)
        #: where the text's expressions stand on the lines the round's ``fixes``
        #: start an edit on: what :func:`reshaped` needs of the text's tree,
        #: which is not kept (a large file's trees are most of the memory: the
        #: next text's is made meanwhile)
        self.expressions = expressions_at(
            tree if tree is not None else parse(text), self.positions,
            [e for fix in _distinct_fixes(fixes) for e in fix.edits])
        self.newline = newline
        self.undefined = undefined  # the text's undefined names (None: not checked)
        self.counts = counts  # the text's findings per code (None: not checked)
        self.analyse = analyse
        self.builds = 0  # (how much work a round takes: tests count it)

    def build(self, fixes: Sequence[Finding]) -> _Built:
        """The text with ``fixes`` applied and their imports added, and what is wrong."""
        self.builds += 1
        by_fix: Dict[int, List[int]] = {}
        for i, f in enumerate(fixes):
            by_fix.setdefault(id(f.fix), []).append(i)  # one fix shared by many findings
        owners: Dict[Edit, List[int]] = {}
        for shared in by_fix.values():  # (each fix's edits walked once, not per finding)
            for e in fixes[shared[0]].fix.edits:
                owners.setdefault(e, []).extend(shared)
        edits = list(owners)
        spans = edit_spans(self.text, edits, self.positions)
        new = apply_spans(self.text, spans, self.newline)
        try:
            tree = parse(new)
        except SyntaxError as exc:
            return _Built(new, None, _syntax(exc), {})
        broken: Dict[int, str] = {}
        for j in reshaped(self.expressions, self.positions, new, tree, spans, self.newline):
            for i in owners[edits[j]]:
                broken[i] = ("the replacement would not be read as the expression it "
                             "replaces (it needs parentheses)")
        if broken:
            return _Built(new, tree, None, broken)
        imports = [spec for f in fixes for spec in f.fix.imports]
        if imports:
            try:
                added = add_imports(new, imports, self.newline, tree)
                if added != new:
                    new, tree = added, parse(added)
            except SyntaxError as exc:
                return _Built(new, None, _syntax(exc), {})
        now = None
        if self.undefined is not None:
            now = undefined_names(tree)
            if now is not None:
                # (a name already undefined before, such as a snippet's free
                # variable, is no new break when a fix repeats it)
                new_names = sorted(n for n in now if n not in self.undefined)
                if new_names:
                    return _Built(new, tree, "it would leave "
                                  + ", ".join(f"`{n}`" for n in new_names) + " undefined", {})
        return _Built(new, tree, None, {}, now)

    def findings_added(self, built: _Built) -> Optional[str]:
        """Why the built text is worse: a finding of a code more than before."""
        if self.counts is None or self.analyse is None:
            return None
        analysis = self.analyse(built.text)
        now = Counter(f.code for f in analysis.findings)
        more = sorted(c for c in now if now[c] > self.counts[c])
        if more:
            return "it would add a finding (" + ", ".join(more) + ")"
        return None


def _undefined_of(built: _Built) -> Optional[Counter]:
    """The built text's undefined names: those the build found (pyflakes is a
    pass over the whole file), else found now."""
    if built.undefined is not None:
        return built.undefined
    return undefined_names(built.tree) if built.tree is not None else None


def _syntax(exc: SyntaxError) -> str:
    return f"{exc.msg or exc} (line {exc.lineno})" if exc.lineno else str(exc)


def _settle(round_: Round, fixes: List[Finding], reject: Callable[[Finding, str], None],
            check_findings: bool = False) -> Tuple[List[Finding], Optional[_Built]]:
    """The fixes of ``fixes`` that can be applied together, found by halving:
    a build of them all when it is valid, else the valid parts of each half
    (a fix that is wrong alone is rejected; a half that only conflicts with
    the other is left for a later round).  Few bad fixes cost few builds."""
    if not fixes:
        return [], None
    built = round_.build(fixes)
    if built.broken:
        for i in sorted(built.broken):
            reject(fixes[i], built.broken[i])
        rest = [f for i, f in enumerate(fixes) if i not in built.broken]
        return _settle(round_, rest, reject, check_findings)
    error = built.error
    if error is None and check_findings:
        error = round_.findings_added(built)
    if error is None:
        return fixes, built
    if len(fixes) == 1:
        reject(fixes[0], f"the fix would make invalid code: {error}"
               if built.tree is None else f"the fix is unsafe here: {error}")
        return [], None
    half = len(fixes) // 2
    left, left_built = _settle(round_, fixes[:half], reject, check_findings)
    right, right_built = _settle(round_, fixes[half:], reject, check_findings)
    if not left or not right:
        return (left, left_built) if left else (right, right_built)
    both = round_.build(left + right)
    if both.error is None and not both.broken and not (
            check_findings and round_.findings_added(both)):
        return left + right, both
    return left, left_built


def _choose(analysis: Analysis, unsafe: bool, rejected: Set[tuple],
            dropped: List[Dropped]) -> List[Finding]:
    """Applicable fixes in source order, none overlapping another.

    A fix identical to one already chosen is chosen too (``_build`` applies it
    once): a fix that must be dropped is then dropped for every finding that
    offers it, in one round.
    """
    chosen: List[Finding] = []
    taken: List[Tuple[int, int]] = []  # sorted, disjoint
    #: hash of a chosen fix's edits -> those edits (compared by identity first)
    chosen_edits: Dict[int, List[tuple]] = {}
    #: id of a fix already looked at -> its spans and their hash, or why it is bad
    #: (the findings that share one fix are looked at once: TV002's of a function)
    looked: Dict[int, Tuple[Optional[list], int, str]] = {}
    skipped: Set[int] = set()  # ids of fixes in the way of one chosen before
    positions: Optional[Positions] = None
    for finding in analysis.findings:
        if not analysis.fixable(finding, unsafe) or rejected and fix_key(finding) in rejected:
            continue
        fix = finding.fix
        seen = looked.get(id(fix))
        if seen is None:
            if positions is None:
                positions = Positions(analysis.text)
            try:
                spans: Optional[list] = edit_spans(analysis.text, fix.edits, positions)
                own = sorted(spans)
                bad = ("the fix's own edits overlap"
                       if any(overlaps(a, b) for a, b in zip(own, own[1:])) else "")
            except BadEdit as exc:
                spans, bad = None, f"the fix does not fit the text: {exc}"
            seen = looked[id(fix)] = (spans, hash(fix.edits), bad)
        spans, edits_hash, bad = seen
        if bad:
            rejected.add(fix_key(finding))
            dropped.append(Dropped(finding, bad))
            continue
        same = chosen_edits.get(edits_hash, ())
        if any(e is fix.edits or e == fix.edits for e in same):
            chosen.append(finding)
            continue
        if id(fix) in skipped or any(_overlaps_taken(taken, s)
                                     for s in spans):  # type: ignore[union-attr]
            skipped.add(id(fix))  # (what is taken only grows: it stays in the way)
            continue  # found again and applied in a later round
        chosen.append(finding)
        chosen_edits.setdefault(edits_hash, []).append(fix.edits)
        for s in spans:  # type: ignore[union-attr]
            insort(taken, (s[0], s[1]))
    return chosen


def _distinct_fixes(findings: Sequence[Finding]) -> List[Fix]:
    """The fixes of ``findings``, each once (findings may share one)."""
    seen: Dict[int, Fix] = {}
    for f in findings:
        seen.setdefault(id(f.fix), f.fix)
    return list(seen.values())


def _overlaps_taken(taken: List[Tuple[int, int]], span: Tuple[int, int, str]) -> bool:
    """Whether ``span`` overlaps a span of ``taken`` (sorted, disjoint): the
    neighbours in order are the only candidates."""
    i = bisect_left(taken, (span[0], span[1]))
    return any(overlaps((t[0], t[1], ""), span) for t in taken[max(0, i - 1):i + 2])


def fix_text(
    text: str,
    analyse: Callable[[str], Analysis],
    unsafe: bool = False,
    max_rounds: int = MAX_ROUNDS,
    hidden: str = "",
    first: Optional[Analysis] = None,
    path: Optional[str] = None,
) -> FixResult:
    """Apply applicable fixes to ``text`` (which must parse) until nothing changes.

    ``hidden`` is code the parser does not see (a notebook's magics): a name
    that occurs in it is never taken to be unused.  ``first``, the analysis
    of ``text`` when the caller has one, saves checking it again.  ``path``: the file's
    name; an import another module of its project takes is kept, with a note
    (:func:`.imports.project_users`, the one decision of every front end).

    Each round's fixes are checked as a set before they are kept: the result
    must parse, read every replaced expression back as one expression of the
    same shape, leave no name undefined that was defined, and hold no more
    findings of any code than before.  A fix that breaks one of these alone is
    dropped with the reason; fixes that only conflict are left for a later
    round.
    """
    newline = dominant_newline(text)
    fixed: Counter = Counter()
    dropped: List[Dropped] = []
    rejected: Set[tuple] = set()
    converged = False
    analysis = first if first is not None and first.text == text else analyse(text)
    variables: Optional[FrozenSet[str]] = None
    undefined: Optional[Counter] = None
    counts: Optional[Counter] = None

    def reject(finding: Finding, reason: str) -> None:
        rejected.add(fix_key(finding))
        dropped.append(Dropped(finding, reason))

    for round_no in range(max_rounds + 1):
        chosen = _choose(analysis, unsafe, rejected, dropped)
        if not chosen:
            converged = True
            break
        if round_no == max_rounds:
            break
        chosen = join_blocks(analysis.text, chosen, rejected, fix_key)
        tree = getattr(analysis, "tree", None)
        if variables is None:  # (only once something is to be fixed)
            if tree is None:
                tree = parse(text)
            variables = frozenset(
                name for name in variable_names_in_use(text, tree)
                if not re.search(rf"\b{re.escape(name)}\b", hidden)
            )
        if undefined is None and tree is not None:
            undefined = undefined_names(tree)
        counts = Counter(f.code for f in analysis.findings)
        round_ = Round(text, tree, chosen, newline, undefined, counts, analyse)
        tree = None
        _release_tree(analysis)
        chosen, built = _settle(round_, chosen, reject)
        if not chosen:
            continue  # every fix rejected: look again without them
        new_text, new_undefined = built.text, _undefined_of(built)
        hand_off(new_text, built.tree)
        built = analysis = None
        new_analysis = analyse(new_text)
        hand_off("", None)
        now = Counter(f.code for f in new_analysis.findings)
        if any(now[c] > counts[c] for c in now):
            # the set adds a finding: find the fixes that do (builds analyse)
            new_analysis = None
            chosen, built = _settle(round_, chosen, reject, check_findings=True)
            if not chosen:
                analysis = analyse(text)
                continue
            new_text, new_undefined = built.text, _undefined_of(built)
            hand_off(new_text, built.tree)
            built = None
            new_analysis = analyse(new_text)
            hand_off("", None)
        # what the round resolved: its own findings and those another fix's
        # edit resolved with them (TV004's ``with torch.no_grad(): p.add_(...)``
        # resolves TV126's overload too); no count grows (checked above), so
        # the rounds' sums are the findings that went, code by code
        fixed.update(counts - Counter(f.code for f in new_analysis.findings))
        text, analysis, undefined = new_text, new_analysis, new_undefined
        del round_, new_analysis
    notes: List[str] = []
    if fixed and variables:
        taken = project_users(path, notes) if path else None
        try:
            new = remove_variable_imports(
                text, variables, newline, getattr(analysis, "tree", None), taken)
        except BadEdit:
            new = text
        if new != text:
            analysis = None  # (the caller analyses the text: its tree goes first)
            if _parses(new):
                text = new
    return FixResult(text, fixed, dropped, converged, analysis, tuple(notes))


def _release_tree(analysis: object) -> None:
    release = getattr(analysis, "release_tree", None)
    if release is not None:
        release()


def _parses(text: str) -> bool:
    try:
        parse(text)
    except SyntaxError:
        return False
    return True


def checked_text(new: str, old: str) -> str:
    """``new`` when it parses (or is ``old``), else ``old``."""
    return new if new == old or _parses(new) else old
