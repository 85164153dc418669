"""Command-line options, for the value facts: what ``args.x0`` is where ``args =
parser.parse_args()``.

argparse converts an option's text with its ``type``: after
``parser.add_argument('--x0', type=int, default=2500)``, ``args.x0`` is an
``int`` whatever the command line says (a string default is converted too).
:func:`namespace` gives the :data:`~.objects.OBJECT` that ``parse_args()``
returns the options of its file as ``parts``, ``(dest, value, default)``
triples, so the facts travel with the namespace to the functions it is passed to,
in this module or another; :func:`option` reads one, :func:`option_default` the
int it holds when the command line does not give it (``default=1``: the count of
layers a script runs with as its README shows it).

An option is a number only where every ``add_argument`` of the file that makes
its ``dest`` says so: ``type=int`` or ``type=float`` (the builtins), no
``nargs`` (a list), no ``action`` other than ``store``, and a value when it is
not given (a number or a string default, ``required=True``, or a positional).
An option whose ``dest`` is also assigned in the file (``args.lr = None``), set
with ``set_defaults``, or also made otherwise is not a number; nor is anything
read from a namespace whose options come from elsewhere (a parser built in
another module), or in a file that writes a namespace otherwise
(``vars(args).update(...)``, ``setattr``).  Only the lines that spell
``add_argument`` or ``set_defaults`` are walked; an assignment is found in the
text (``.lr = ``, ``.lr += ``: a name so assigned is not an option).
"""
from __future__ import annotations

import ast
import re
from typing import Dict, Optional, Tuple

from .lines import assigned_attributes, lines_matching
from .nodes import walk_hits

#: the parts of a namespace: ``(dest, value, default)`` triples
Options = Tuple[Tuple[str, object, Optional[int]], ...]

_TYPES = {"int": "int", "float": "float"}
_CONFLICT = "conflict"
#: the calls read
_SPELLED = re.compile(r"\b(?:add_argument|set_defaults)\b")
#: a namespace written otherwise than by attribute
_WRITTEN = re.compile(r"\bsetattr\(|(?:\bvars\([^()]*\)|\.__dict__)\s*(?:\.update\(|\[)")


def namespace(ctx, name: str):
    """The namespace ``parse_args()`` returns in ``ctx``'s file (``name``: its
    class), with the file's numeric options as its ``parts``."""
    from .objects import OBJECT
    from .values import Value

    return Value(OBJECT, name=name, parts=options(ctx) or None)


def option(owner, attr: str):
    """``owner.attr`` for a namespace ``owner`` (see :func:`namespace`)."""
    from .values import UNKNOWN

    for dest, value, _ in owner.parts or ():
        if dest == attr:
            return value
    return UNKNOWN


def option_default(owner, attr: str) -> Optional[int]:
    """The int ``owner.attr`` holds where the command line does not give it (every
    ``add_argument`` of it says ``type=int, default=<that int>``), or ``None``."""
    for dest, _, default in owner.parts or ():
        if dest == attr:
            return default
    return None


def options(ctx) -> Options:
    """The numeric options of ``ctx``'s file, by ``dest`` (remembered)."""
    found = ctx.memo.get("options")
    if found is None:
        found = ctx.memo["options"] = _read(ctx) if "add_argument" in ctx.text else ()
    return found


def _read(ctx) -> Options:
    from .values import NUMBER, Value

    text = ctx.text
    if _WRITTEN.search(text):
        return ()  # (``vars(args).update(...)``, ``setattr(args, ...)``)
    made: Dict[str, Optional[str]] = {}
    defaults: Dict[str, Optional[int]] = {}
    stored = set()
    scope = ctx.scope.module()
    for call in walk_hits(ctx.tree, lines_matching(text, _SPELLED)):
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
            continue
        if call.func.attr == "set_defaults":
            if any(kw.arg is None for kw in call.keywords):
                return ()
            stored.update(kw.arg for kw in call.keywords)
        dest = _dest(call) if call.func.attr == "add_argument" else None
        if dest is None:
            continue
        kind = _numeric(call, scope)
        made[dest] = kind if made.get(dest, kind) == kind else _CONFLICT
        default = _int_default(call) if kind == "int" else None
        defaults[dest] = default if defaults.get(dest, default) == default else None
    if not any(kind is not None and kind != _CONFLICT for kind in made.values()):
        return ()
    stored.update(attr for _, attr in assigned_attributes(text))
    return tuple((dest, Value(NUMBER, dtype=_TYPES.get(kind)), defaults[dest])
                 for dest, kind in made.items()
                 if kind is not None and kind != _CONFLICT and dest not in stored)


def _int_default(call: ast.Call) -> Optional[int]:
    """The int a ``type=int`` option holds when not given: its ``default``, a
    literal int or the text of one (argparse converts a text default)."""
    default = next((kw.value for kw in call.keywords if kw.arg == "default"), None)
    if not isinstance(default, ast.Constant):
        return None
    if type(default.value) is int:
        return default.value
    if isinstance(default.value, str) and default.value.strip().lstrip("+-").isdigit():
        return int(default.value)
    return None


def _dest(call: ast.Call) -> Optional[str]:
    """The attribute ``add_argument(...)`` makes (argparse's rule)."""
    for kw in call.keywords:
        if kw.arg == "dest":
            return kw.value.value if isinstance(kw.value, ast.Constant) and isinstance(
                kw.value.value, str) else None
    names = [a.value for a in call.args if isinstance(a, ast.Constant)
             and isinstance(a.value, str)]
    if not names or len(names) != len(call.args):
        return None  # (also ``dest=`` alone: no option string)
    if not names[0].startswith("-"):
        return names[0]
    long = next((n for n in names if n.startswith("--")), names[0])
    return long.lstrip("-").replace("-", "_") or None


def _numeric(call: ast.Call, scope) -> Optional[str]:
    """``"int"`` or ``"float"`` where the option is evidently that number,
    ``"number"`` where it is one or the other, else ``None``."""
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if None in keywords or "nargs" in keywords:
        return None
    action = keywords.get("action")
    if action is not None and not (isinstance(action, ast.Constant) and action.value == "store"):
        return None
    kind = keywords.get("type")
    if not isinstance(kind, ast.Name) or kind.id not in _TYPES or scope.binds(kind.id):
        return None
    positional = not call.args[0].value.startswith("-")  # (``_dest`` read it)
    default = keywords.get("default")
    required = keywords.get("required")
    if default is None:
        given = positional or isinstance(required, ast.Constant) and required.value is True
        return _TYPES[kind.id] if given else None
    if isinstance(default, ast.Constant) and isinstance(default.value, str):
        return _TYPES[kind.id]
    number = _constant_type(default)
    if number is not None:
        # (a default that is not text is not converted: ``type=int, default=0.5``)
        return _TYPES[kind.id] if number == kind.id else "number"
    return None


_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _constant_type(node: ast.AST) -> Optional[str]:
    """``"int"`` or ``"float"`` for a number constant or arithmetic of them
    (``default=0.0005 * 784``), else ``None``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _constant_type(node.operand)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return type(node.value).__name__
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left, right = _constant_type(node.left), _constant_type(node.right)
        if left is None or right is None or isinstance(node.op, ast.Pow):
            return None  # (``2 ** -1`` is a float)
        return "float" if "float" in (left, right) or isinstance(node.op, ast.Div) else "int"
    return None
