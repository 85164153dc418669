"""Which codes to report: ``--select``/``--ignore`` decided as flake8 decides them, and
selectors checked against the rule table."""
from __future__ import annotations

import re
from typing import Iterable, List, Optional, Sequence, Tuple

DEFAULT_SELECT = ("TV",)
#: codes off by default, as flake8's default ignore list (and bugbear's B9) are:
#: reported only where a selector names them (``--extend-select TV157``; an explicit
#: ``--select TV`` also does, as in flake8).  TV157 reproduces 0.3's numbers at the
#: cost of today's better batch-norm initialization: a choice the user makes
DEFAULT_IGNORE = ("TV157",)
_VALID_PREFIX = re.compile(r"[A-Z]{1,3}[0-9]{0,3}\Z")


class UsageError(Exception):
    """A bad command line or configuration: reported, exit status 2."""


def parse_codes(values: Iterable[str], option: str) -> List[str]:
    """Codes or prefixes from comma- or blank-separated ``values``, upper-cased."""
    codes = [c.strip().upper() for v in values for c in re.split(r"[,\s]+", v) if c.strip()]
    for code in codes:
        if not _VALID_PREFIX.match(code):
            raise UsageError(f"{option}: {code!r} is not a code or code prefix (like TV001, TV)")
    return codes


def code_list(values: Optional[Sequence[str]], option: str) -> Optional[List[str]]:
    if values is None:
        return None
    return parse_codes(values, option)


def check_selectors(selectors: Iterable[Tuple[str, str]], where: str = "",
                    others_allowed: bool = False) -> None:
    """Raise :class:`UsageError` naming the first selector that matches no rule.

    ``selectors`` are ``(option, code)`` pairs.  The rules are those of the rule
    table (``registry.gates()``), so a new rule is a known code as soon as it is
    registered.  With ``others_allowed`` (a ``[flake8]`` section, which configures
    every plugin), a code that cannot name a TV rule (``E501``, ``B``) is let through.
    """
    from ..analysis.registry import gates

    known = tuple(gates())
    for option, code in selectors:
        if any(k.startswith(code) for k in known):
            continue
        if others_allowed and not (code.startswith("TV") or "TV".startswith(code)):
            continue
        family = sorted({k[:3] for k in known})
        place = f"{where}: " if where else ""
        raise UsageError(
            f"{place}{option}: {code} matches no rule (the rules are {known[0]}-{known[-1]}; "
            f"prefixes such as {', '.join(family)} select a family)"
        )


def selected_codes(
    codes: Sequence[str],
    select: Optional[Sequence[str]],
    ignore: Optional[Sequence[str]],
    extend_select: Sequence[str] = (),
    extend_ignore: Sequence[str] = (),
) -> List[str]:
    """The codes to report, decided as flake8's ``DecisionEngine`` decides.

    A code matched by a ``--select``/``--extend-select`` prefix is selected
    explicitly, one matched only by the default (``TV``) implicitly; likewise
    ``--ignore``/``--extend-ignore`` ignore explicitly, the default ignore list
    (flake8's, extended with :data:`DEFAULT_IGNORE`) implicitly.  A code both selected
    and ignored is decided by the longer prefix (a tie ignores), except that an
    explicit choice beats an implicit one.
    """
    sel_explicit = [*(select or ()), *extend_select]
    ign_explicit = [*(ignore or ()), *extend_ignore]
    selectors = [*(select if select is not None else DEFAULT_SELECT), *extend_select]
    ignores = [*ign_explicit, *(DEFAULT_IGNORE if ignore is None else ())]
    chosen = []
    for code in codes:
        sel = _longest_prefix(code, selectors)
        ign = _longest_prefix(code, ignores)
        if sel is None:
            continue
        if ign is None:
            chosen.append(code)
            continue
        sel_is_explicit = _longest_prefix(code, sel_explicit) is not None
        ign_is_explicit = _longest_prefix(code, ign_explicit) is not None
        if sel_is_explicit and not ign_is_explicit:
            chosen.append(code)  # (an explicit choice beats an implicit one)
        elif sel_is_explicit == ign_is_explicit and len(sel) > len(ign):
            chosen.append(code)
        # an implicit selection loses to an explicit ignore
    return chosen


def _longest_prefix(code: str, prefixes: Sequence[str]) -> Optional[str]:
    return max((p for p in prefixes if code.startswith(p)), key=len, default=None)
