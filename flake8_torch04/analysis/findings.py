"""What a rule reports: findings, their fixes and the fixes' safety."""
from __future__ import annotations

from ..source.record import record

SAFE = "safe"
UNSAFE = "unsafe"


class Fix(record("edits safety imports", defaults=((),))):
    """Edits that resolve a finding, with a safety class.

    ``edits`` is a tuple of :class:`Edit`; ``safety`` is ``SAFE`` or ``UNSAFE``;
    ``imports`` names modules the replacement text refers to (``"torch"``,
    ``"torch.nn.init"``): the fixer adds ``import torch`` when it is missing.
    flake8 never applies fixes; the ``torch04`` command does.
    """

    __slots__ = ()


class Report(record("node message fix", defaults=(None,))):
    """What a rule yields: the node the finding is placed at, what to say, and
    an optional :class:`Fix`."""

    __slots__ = ()


class Finding(record("code line col message fix end_line end_col", defaults=(None, 0, 0))):
    """A finding: ``col`` is the 0-based character column, ``message`` has no code."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{self.line}:{self.col + 1}: {self.code} {self.message}"
