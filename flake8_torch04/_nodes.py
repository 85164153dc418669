"""Which fields of an AST class hold child nodes (the walker and the data flow share this)."""
from __future__ import annotations

import ast
from typing import Dict, Tuple

#: fields that hold identifiers, numbers or constants, never child nodes
#: (``ctx``, ``op`` and ``ops`` hold nodes, but shared singletons nobody looks at)
SCALAR_FIELDS = frozenset((
    "ctx", "op", "ops", "id", "attr", "arg", "asname", "module", "level", "rest",
    "kwd_attrs", "type_comment", "kind", "simple", "is_async", "conversion", "tag", "lineno",
))
_SCALAR_FIELDS_OF = {
    "Global": ("names",), "Nonlocal": ("names",), "MatchSingleton": ("value",),
    "Constant": ("value",),
}

#: statements that hold statements (``def`` and ``class`` included)
HOLDS_STATEMENTS = frozenset(
    cls for cls in vars(ast).values()
    if isinstance(cls, type) and issubclass(cls, ast.stmt) and "body" in cls._fields
)

_FIELDS: Dict[type, Tuple[str, ...]] = {}


def node_fields(cls: type) -> Tuple[str, ...]:
    """The fields of ``cls`` that may hold nodes (or lists of nodes and ``None``), in order."""
    fields = _FIELDS.get(cls)
    if fields is None:
        skip = _SCALAR_FIELDS_OF.get(cls.__name__, ())
        fields = _FIELDS[cls] = tuple(
            f for f in cls._fields
            if f not in SCALAR_FIELDS and f not in skip
            and (f != "name" or cls.__name__ == "TypeAlias")  # elsewhere an identifier
        )
    return fields
