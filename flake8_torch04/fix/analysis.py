"""The findings of one text as the fixer and the front ends see them: after
``--select``/``--ignore`` and ``# noqa``, with the import edits of their fixes."""
from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, List, Optional, Pattern, Sequence, Set, Tuple

from ..analysis.findings import SAFE, UNSAFE, Finding, Fix
from ..analysis.run import check
from ..config.noqa import Noqa
from ..source.parse import drop_tree, normalize_newlines, parse, parsed_tree
from ..source.text import lines_of
from .edits import touched_lines
from .imports import import_spec, module_bindings


class Analysis:
    """The findings of one text after ``--select``/``--ignore`` and ``# noqa``."""

    def __init__(
        self,
        text: str,
        codes: Sequence[str],
        filename: str = "",
        locked: Optional[Pattern[str]] = None,
    ) -> None:
        self.text = text
        self.filename = filename
        self._tree: Optional[ast.Module] = parsed_tree(text, filename)
        normalized = normalize_newlines(text)
        self.lines = lines_of(normalized)
        self.noqa = Noqa(self.lines, normalized)
        self.locked = locked
        #: the codes whose fixes may be applied (``fixable``/``unfixable``); None: all
        self.fixable_codes: Optional[FrozenSet[str]] = None
        findings: List[Finding] = []
        #: lines of statements not checked to the end (see ``run.check``)
        self.unchecked: List[int] = []
        if not self.noqa.exempt:
            findings = [
                f for f in check(self.tree, self.lines, filename, codes,
                                 unchecked=self.unchecked)
                if not self.noqa.suppresses(f.line, f.code)
            ]
        self.findings = findings
        self._bindings: Optional[Dict[str, Set[Optional[str]]]] = None
        self._echoed: Optional[List[Tuple[Tuple[int, int], Tuple[int, int]]]] = None
        #: (id of a fix, code) -> (the fix, its blocker): the findings that share one
        #: fix (TV002's of one function: every ``volatile=True`` of it and the
        #: decorator) are looked at once, not once each (quadratic in the findings)
        self._blockers: Dict[Tuple[int, str], Tuple[Fix, Optional[str]]] = {}

    @property
    def tree(self) -> ast.Module:
        """The text's tree (parsed again after :meth:`release_tree`, when needed)."""
        if self._tree is None:
            self._tree = parse(self.text)
        return self._tree

    def release_tree(self) -> None:
        """Let the tree go: the fixer makes the next text's tree meanwhile, and a
        large file's tree is most of the memory (two at once, twice that)."""
        self._tree = None
        drop_tree(self.filename)

    def blocker(self, finding: Finding) -> Optional[str]:
        """Why the finding's fix may not be applied here, or ``None``."""
        fix = finding.fix
        if fix is None:
            return "no fix"
        known = self._blockers.get((id(fix), finding.code))
        if known is not None and known[0] is fix:
            return known[1]
        why = self._blocker(fix, finding.code)
        self._blockers[id(fix), finding.code] = fix, why
        return why

    def _blocker(self, fix: Fix, code: str) -> Optional[str]:
        for edit in fix.edits:
            for line in touched_lines(edit):
                if self.noqa.suppresses(line, code):
                    return f"line {line} has a `# noqa` for {code}"
                if self.locked is not None and 0 < line <= len(self.lines):
                    if self.locked.match(self.lines[line - 1]):
                        return f"line {line} is not Python"
        echoed = self.echoed()
        if echoed and any(a < edit.end and edit.start < b or a <= edit.start < b
                          for edit in fix.edits for a, b in echoed):
            return ("the fix is inside a self-documenting f-string field (`{expr=}` "
                    "prints the expression's text)")
        for spec in fix.imports:
            name, qualname, _ = import_spec(spec)
            bound = self.bindings().get(name)
            if bound is not None and bound != {qualname}:
                return f"the fix needs `{name}` but the name is bound to something else"
        return None

    def fixable(self, finding: Finding, unsafe: bool) -> bool:
        fix = finding.fix
        return (
            fix is not None
            and (self.fixable_codes is None or finding.code in self.fixable_codes)
            and (fix.safety == SAFE or (unsafe and fix.safety == UNSAFE))
            and self.blocker(finding) is None
        )

    def echoed(self) -> List[Tuple[Tuple[int, int], Tuple[int, int]]]:
        """The spans of the expressions of self-documenting f-string fields
        (``f"{Variable(x)=}"`` prints ``Variable(x)=...``): a fix there changes
        what is printed.  A multi-line f-string with such a field is one span."""
        if self._echoed is None:
            self._echoed = []
            if _ECHO.search(self.text):
                self._echoed = _echoed(self.tree, self.lines)
        return self._echoed

    def bindings(self) -> Dict[str, Set[Optional[str]]]:
        if self._bindings is None:
            self._bindings = module_bindings(self.tree)
        return self._bindings


#: what follows the expression of a self-documenting field: ``=`` before ``}``, ``!`` or ``:``
_ECHO = re.compile(r"=\s*[}!:]")
_ECHOED_FIELD = re.compile(r"\s*=\s*[}!:]")


def _echoed(tree: ast.AST, lines: List[str]) -> List[Tuple[Tuple[int, int], Tuple[int, int]]]:
    def char(line: int, col: int) -> int:
        return len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))

    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr) or node.end_lineno is None:
            continue
        fields = [v.value for v in node.values if isinstance(v, ast.FormattedValue)]
        if node.lineno != node.end_lineno:  # (3.11: positions inside may be off)
            segment = "".join(lines[node.lineno - 1:node.end_lineno])
            if fields and _ECHO.search(segment):
                spans.append(((node.lineno, char(node.lineno, node.col_offset)),
                              (node.end_lineno, char(node.end_lineno, node.end_col_offset))))
            continue
        line = lines[node.lineno - 1]
        for value in fields:
            end = char(value.end_lineno, value.end_col_offset)
            if _ECHOED_FIELD.match(line, end):
                spans.append(((value.lineno, char(value.lineno, value.col_offset)),
                              (value.end_lineno, end)))
    return spans
