"""The findings of one text as the fixer and the front ends see them: after
``--select``/``--ignore`` and ``# noqa``, with the import edits of their fixes."""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Pattern, Sequence, Set

from ..analysis.findings import SAFE, UNSAFE, Finding
from ..analysis.run import check
from ..config.noqa import Noqa
from ..source.parse import normalize_newlines, parsed_tree
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
        self.tree = parsed_tree(text)
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

    def blocker(self, finding: Finding) -> Optional[str]:
        """Why the finding's fix may not be applied here, or ``None``."""
        fix = finding.fix
        if fix is None:
            return "no fix"
        for edit in fix.edits:
            for line in touched_lines(edit):
                if self.noqa.suppresses(line, finding.code):
                    return f"line {line} has a `# noqa` for {finding.code}"
                if self.locked is not None and 0 < line <= len(self.lines):
                    if self.locked.match(self.lines[line - 1]):
                        return f"line {line} is not Python"
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

    def bindings(self) -> Dict[str, Set[Optional[str]]]:
        if self._bindings is None:
            self._bindings = module_bindings(self.tree)
        return self._bindings
