"""The flake8 adapter: runs every rule over the tree flake8 already parsed."""
from __future__ import annotations

import ast
from typing import Iterator, Sequence, Tuple

from . import __version__
from .analysis.run import check


class Plugin:
    """flake8 entry point ``TV``; flake8 filters the codes with --select/--ignore."""

    name = "flake8-torch04"
    version = __version__

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str = "") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @staticmethod
    def add_options(parser) -> None:
        """The codes off by default join flake8's default ignore list (as bugbear's
        B9 do): ``--extend-select TV157`` turns one on."""
        from .config.select import DEFAULT_IGNORE

        parser.extend_default_ignore(list(DEFAULT_IGNORE))

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        for finding in check(self.tree, self.lines, self.filename):
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
