"""The rule registry: each rule's code, module, node types and markers, loaded on demand."""
from __future__ import annotations

from typing import Callable, Dict, Optional

from .. import rules
from ..source.record import record


class Rule(record("code name check node_types markers")):
    """A loaded rule: ``check(ctx, node)`` yields :class:`Report` for nodes of
    ``node_types``; ``markers`` holds ``(regular expression, the node types whose
    findings it may announce)`` pairs (see :class:`Gate`)."""

    __slots__ = ()

    @property
    def doc(self) -> str:
        """The documentation: the docstring of ``check``."""
        import inspect

        return inspect.getdoc(self.check) or ""


class Gate(record("code module node_types markers requires", defaults=((),))):
    """What the walker knows of a rule before it loads the rule's module.

    From ``rules.TABLE``: the ``module`` that defines the rule, the
    ``node_types`` it visits, and its ``markers``, ``(regular expression, the
    node types whose findings it may announce)`` pairs.  One of them must
    match a line of the statement that holds a finding (for a compound
    statement: of its header or body).  Names bound by ``import ... as NAME``
    count as markers of every rule.  A file in which no marker of a rule
    matches is not walked for it (and its module is not loaded), and the
    walker enters only the statements whose lines match a marker of an active
    rule: the others only have their bindings recorded.  Inside a statement,
    a rule sees only the nodes its matching markers announce: a marker written
    ``(regex, *types)`` announces findings at nodes of those types only
    (TV003's ``+`` matters only at an assignment statement, so a statement
    whose only marker is ``+`` is dispatched whole and its expressions are not
    walked); a plain regex announces every type the rule visits.  Markers must
    therefore be complete: a test checks each rule's fixtures with and
    without them.

    ``requires``, when not empty, holds patterns one of which a file must
    match for the rule to run at all: the precondition the rule itself tests
    first (TV107 looks only at files that import torch; TV129 only at files
    that make byte tensors), told to the gate so that the markers of a rule
    that cannot find anything in the file lead the walker nowhere.
    """

    __slots__ = ()


_GATES: Optional[Dict[str, Gate]] = None
#: the rules loaded so far, by code
RULES: Dict[str, Rule] = {}


def gates() -> Dict[str, Gate]:
    """Every rule's :class:`Gate`, by code, read from ``rules.TABLE`` (checked once)."""
    global _GATES
    if _GATES is None:

        table = {}  # (built whole before it is shared: a linter may run in threads)
        for code, (module, node_types, markers, *requires) in sorted(rules.TABLE.items()):
            if not (len(code) == 5 and code.startswith("TV") and code[2:].isdigit()):
                raise ValueError(f"bad rule code {code!r}")
            announced = tuple(
                (m, node_types) if isinstance(m, str) else (m[0], tuple(m[1:])) for m in markers
            )
            for _, types in announced:
                if not set(types) <= set(node_types):
                    raise ValueError(f"{code}: a marker announces a type the rule does not visit")
            table[code] = Gate(code, module, tuple(node_types), announced,
                               tuple(requires[0]) if requires else ())
        _GATES = table
    return _GATES


def rule(code: str) -> Callable:
    """Register the function that checks rule ``code``; its node types and
    markers are in ``rules.TABLE``."""
    gate = gates().get(code)
    if gate is None:
        raise ValueError(f"rule code {code!r} is not in rules.TABLE")

    def register(func: Callable) -> Callable:
        if code in RULES:
            raise ValueError(f"rule code {code} registered twice")
        RULES[code] = Rule(code, func.__name__.replace("_", "-"), func, gate.node_types,
                           gate.markers)
        return func

    return register


def load(code: str) -> Rule:
    """The rule ``code``, its module imported on first use."""
    rule_ = RULES.get(code)
    if rule_ is None:
        from importlib import import_module

        import_module(f"{rules.__name__}.{gates()[code].module}")
        rule_ = RULES[code]
    return rule_


def all_rules() -> Dict[str, Rule]:
    """Every rule, by code (loads them all)."""
    return {code: load(code) for code in gates()}
