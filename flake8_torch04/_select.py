"""Which codes to report: ``--select``/``--ignore`` decided as flake8 decides them."""
from __future__ import annotations

import re
from typing import List, Optional, Sequence

DEFAULT_SELECT = ("TV",)
_VALID_PREFIX = re.compile(r"[A-Z]{1,3}[0-9]{0,3}\Z")


class UsageError(Exception):
    """A bad command line: reported, exit status 2."""


def _code_list(values: Optional[Sequence[str]], option: str) -> Optional[List[str]]:
    if values is None:
        return None
    codes = [c.strip().upper() for v in values for c in re.split(r"[,\s]+", v) if c.strip()]
    for code in codes:
        if not _VALID_PREFIX.match(code):
            raise UsageError(f"{option}: {code!r} is not a code or code prefix (like TV001, TV)")
    return codes


def selected_codes(
    codes: Sequence[str],
    select: Optional[Sequence[str]],
    ignore: Optional[Sequence[str]],
    extend_select: Sequence[str] = (),
) -> List[str]:
    """The codes to report, decided as flake8's ``DecisionEngine`` decides.

    A code matched by a ``--select``/``--extend-select`` prefix is selected
    explicitly, one matched only by the default (``TV``) implicitly.  A code
    matched by an ``--ignore`` prefix is ignored unless it is selected
    explicitly by a longer prefix (a tie ignores).
    """
    explicit = [*(select or ()), *extend_select]
    selectors = [*(select if select is not None else DEFAULT_SELECT), *extend_select]
    chosen = []
    for code in codes:
        sel = _longest_prefix(code, selectors)
        ign = _longest_prefix(code, ignore or ())
        if sel is None:
            continue
        if ign is None or (
            _longest_prefix(code, explicit) is not None and len(sel) > len(ign)
        ):
            chosen.append(code)
    return chosen


def _longest_prefix(code: str, prefixes: Sequence[str]) -> Optional[str]:
    return max((p for p in prefixes if code.startswith(p)), key=len, default=None)
