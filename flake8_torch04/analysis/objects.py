"""Python objects and dict entries, for the value facts (:mod:`.values`).

An :data:`OBJECT` value is an instance of a Python class that is neither a tensor,
a number, a numpy array, a container, a string nor an ``nn.Module``; its ``name``
is the class.  Known where the code makes it evident: a call of one of
:data:`OBJECTS` (resolved through imports), and what a method of such an object
returns (:data:`METHODS`): ``opt = parser.parse_args()`` where ``parser =
argparse.ArgumentParser(...)`` is an ``argparse.Namespace``.

A dict literal whose keys are all strings keeps its entries: the value's
``parts`` are ``(key, value)`` pairs (``{'settings': opt, 'epoch': 3}``), at most
:data:`MOST_KEYS` of them (else, and for any other dict, ``None``).
"""
from __future__ import annotations

import ast
from typing import Optional, Tuple

OBJECT = "object"
#: callables (qualified names) that make an object: its class
OBJECTS = {
    "argparse.ArgumentParser": "argparse.ArgumentParser",
    "argparse.Namespace": "argparse.Namespace",
    "collections.defaultdict": "collections.defaultdict",
}
_NAMESPACE = "argparse.Namespace"
#: (class, method) -> the class of the object the method returns
METHODS = {
    ("argparse.ArgumentParser", "parse_args"): _NAMESPACE,
}
#: the most entries of a dict literal kept
MOST_KEYS = 32


def object_method(receiver, attr: str):
    """What ``receiver.attr(...)`` gives, for a numpy array or an :data:`OBJECT`."""
    from .values import LIST, NDARRAY, TUPLE, UNKNOWN, Value

    if receiver.kind == NDARRAY:
        return Value(LIST) if attr == "tolist" else Value(NDARRAY)
    made = METHODS.get((receiver.name, attr))
    if made is not None:
        return Value(OBJECT, name=made)
    if (receiver.name, attr) == ("argparse.ArgumentParser", "parse_known_args"):
        return Value(TUPLE, parts=(Value(OBJECT, name=_NAMESPACE), Value(LIST)))
    return UNKNOWN


def keyed_parts(values, node: ast.AST, scope, depth: int) -> Optional[Tuple[tuple, ...]]:
    """The ``(key, value)`` pairs of a dict literal with string keys, or ``None``."""
    if not isinstance(node, ast.Dict) or len(node.keys) > MOST_KEYS:
        return None
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        return None  # (``**other``: a ``None`` key)
    return tuple((k.value, values.of(v, scope, depth))  # type: ignore[union-attr]
                 for k, v in zip(node.keys, node.values))
