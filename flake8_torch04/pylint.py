"""The rules inside pylint: ``pylint --load-plugins=flake8_torch04.pylint``.

pylint runs no flake8 plugins, so this module registers a checker that runs
the same rules on the same text and reports the same findings, at the same
positions, as ``flake8 --select=TV``:

- Each rule is one pylint message.  Its symbol is the rule's name
  (``variable-wrap``, ``scalar-extraction``, ...), its id is ``W9`` or ``E9``
  followed by the rule's three digits (TV001 is ``W9001``, TV101 ``E9101``):
  the rules whose code stops a program on current PyTorch (TV10x-TV11x) are
  errors, the others warnings.  The text starts with the TV code, so a
  message reads as it does in flake8.
- pylint's own switches apply: ``--disable=variable-wrap``, ``--enable``,
  ``# pylint: disable=scalar-extraction`` on a line or in a block.  ``# noqa``
  comments are honoured as flake8 honours them, so a codebase that already
  carries them reports the same under both linters.
- The project's configuration applies as it does to ``torch04 check`` and flake8
  (``config/settings.py``: the closest ``[tool.torch04]``, else ``[flake8]``):
  ``select``/``ignore``/``extend-*`` and ``per-file-ignores`` decide which rules run
  on each module, and a module the configuration excludes reports nothing.  pylint's
  switches then narrow that further.
- The rules read the source text pylint already loaded for the module
  (``node.stream()``), parse it with :mod:`ast` (an eighth of the cost of the
  astroid tree pylint built) and walk it once.  Modules that pylint could
  read but Python cannot parse are pylint's to report (``syntax-error``).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from pylint.checkers import BaseRawFileChecker

from .analysis.findings import Finding
from .analysis.registry import all_rules
from .analysis.run import check
from .config.noqa import Noqa
from .source.text import lines_of

if TYPE_CHECKING:  # pragma: no cover
    from astroid import nodes
    from pylint.lint import PyLinter


def message_id(code: str) -> str:
    """pylint's message id for a rule code: ``TV003`` -> ``W9003``, ``TV101`` -> ``E9101``."""
    number = int(code[2:])
    category = "E" if 100 <= number < 120 else "W"
    return f"{category}9{code[2:]}"


def _groups() -> Dict[str, Dict[str, Tuple[str, str, str]]]:
    """The messages, by pylint checker id (a message id's two digits after its letter)."""
    from .ruledocs import summary

    groups: Dict[str, Dict[str, Tuple[str, str, str]]] = {}
    for rule in all_rules().values():
        msgid = message_id(rule.code)
        description = f"{rule.code}: {summary(rule)}"
        groups.setdefault(msgid[1:3], {})[msgid] = ("%s", rule.name, description)
    return groups


class _Findings:
    """The findings of the module being checked, computed once for every checker.

    pylint requires each checker's message ids to share its two digits, so the
    rules are spread over one checker per group (``W90xx``: TV0xx, ``x91xx``:
    TV1xx); whichever checker pylint runs first on a module checks it for every
    enabled code, and each reports its own.
    """

    def __init__(self) -> None:
        self.module: Optional["nodes.Module"] = None
        self.findings: List[Finding] = []
        self.resolver = None
        #: ``target-version`` of the configuration that governs the module
        self.target: Optional[str] = None

    def of(self, node: "nodes.Module", linter: "PyLinter") -> List[Finding]:
        if node is not self.module:
            self.module = node
            configured = self.configured(node.file)
            codes = [code for code in all_rules() if code in configured
                     and linter.is_message_enabled(message_id(code))]
            from .analysis import era

            era.configured_target = self.target  # (``target-version``: analysis/era.py)
            self.findings = _check_module(node, codes) if codes else []
        return self.findings

    def configured(self, path: Optional[str]) -> Tuple[str, ...]:
        """The codes the project's configuration selects for ``path`` (none for a
        file it excludes; every code when the configuration cannot be read, which
        ``torch04 check`` reports)."""
        from .config import settings as config_settings
        from .config.select import UsageError

        self.target = None
        if not path:
            return tuple(all_rules())
        try:
            if self.resolver is None:
                self.resolver = config_settings.Resolver()
            settings = self.resolver.for_path(path)
        except UsageError:
            return tuple(all_rules())
        self.target = settings.target_version
        if settings.excluded(path):
            return ()
        return settings.codes_for(path)


def _check_module(node: "nodes.Module", codes: List[str]) -> List[Finding]:
    with node.stream() as stream:
        data = stream.read()
    try:
        text = data.decode(node.file_encoding or "utf-8")
    except (LookupError, UnicodeDecodeError):
        return []  # pylint reports what it cannot decode
    try:
        tree = ast.parse(text, node.file or "<unknown>")
    except (SyntaxError, ValueError):
        return []  # pylint reports syntax errors itself
    lines = lines_of(text)
    noqa = Noqa(lines)
    if noqa.exempt:
        return []
    return [f for f in check(tree, lines, node.file or "", codes)
            if not noqa.suppresses(f.line, f.code)]


class _Torch04Checker(BaseRawFileChecker):
    """Runs the flake8-torch04 rules on each module pylint checks (one group of codes)."""

    name = "torch04"
    msgs: Dict[str, Tuple[str, str, str]] = {}
    shared: _Findings

    def process_module(self, node: "nodes.Module") -> None:
        for finding in self.shared.of(node, self.linter):
            msgid = message_id(finding.code)
            if msgid not in self.msgs:
                continue  # another group's checker reports it
            end_line = finding.end_line or None
            self.add_message(
                msgid,
                line=finding.line,
                col_offset=finding.col,
                end_lineno=end_line,
                end_col_offset=finding.end_col if end_line else None,
                args=f"{finding.code} {finding.message}",
            )


def register(linter: "PyLinter") -> None:
    """pylint's entry point for ``--load-plugins=flake8_torch04.pylint``."""
    shared = _Findings()
    for group, msgs in sorted(_groups().items()):
        checker = type(f"Torch04Checker{group}", (_Torch04Checker,),
                       {"msgs": msgs, "shared": shared})
        linter.register_checker(checker(linter))
