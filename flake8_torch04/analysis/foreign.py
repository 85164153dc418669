"""Functions of the project's other modules, for the value facts.

0.3 projects keep their helpers in a module of their own (``utils.py``,
``transformer/Modules.py``) and import them, often by a star import:
``one = to_gpu(args.cuda, torch.FloatTensor([1]))``,
``mask = get_attn_subsequent_mask(seq)``.  What such a call gives is read in
the module that defines the function, as the value facts read a function of
the file (:mod:`.values`): a :class:`~.context.Context` of that module, its
imports bound as the walker would bind them at its top, asked through its own
:class:`~.values.Values`.

Followed: a name bound by an import of a project module (``from utils import
to_gpu``, ``from .utils import *``, through re-exports), naming a function
defined once at the top of the module that defines it, undecorated, or an
``nn.Module`` class (also as an attribute of an imported project module:
``models.Net()``), or a name that module binds at its top by assignments only
(``opt = parser.parse_args()`` for ``from options import opt``, also read as
``options.opt``: :func:`project_assignments`).  Not followed: methods, functions
as attributes of an imported module (``utils.to_gpu(...)``), a name the other
module also binds otherwise (an import, a loop) or rebinds from a function
(``global opt``), and what it binds inside functions; the module's own imports
resolve as they do at its top.  Each module is read once per process while it
is unchanged (at most :data:`MOST` of them kept).
"""
from __future__ import annotations

import ast
import re
from typing import Dict, Optional, Tuple

from ..source.text import lines_of
from . import resolve
from .canonical import PROJECT
from .context import Context
from .project.lookup import definition_site, star_lookup
from .project.summary import cached_text, parse_whole, stamped

#: the most modules kept at once
MOST = 64
#: path -> (its stamp, its context, or ``None`` when it cannot be read)
_CONTEXTS: Dict[str, Tuple[Tuple[int, int], Optional[Context]]] = {}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


#: the name of an ``nn.Module`` value made by a class of another module:
#: ``FOREIGN_CLASS + path + "\0" + class name``
FOREIGN_CLASS = "<project class>"


def project_function(ctx: Context, name: str) -> Optional[Tuple[Context, ast.AST]]:
    """The context of the project module that defines the function ``name`` is
    bound to at the top of ``ctx``'s file by an import, and its definition there;
    ``None`` where that is not evident."""
    found = _definition(ctx, name, r"(?:async[ \t]+)?def[ \t]+", r"[ \t]*\(")
    if found is None or not isinstance(found[1], _FUNCTIONS) or found[1].decorator_list:
        return None
    return found


def class_value(ctx: Context, name):
    """The ``nn.Module`` value ``name()`` makes where ``name`` is a module class of
    another module of the project (``from models import Discriminator``; or an
    ``ast.Attribute`` of an imported project module: ``models.Discriminator``
    after ``import models``), the :data:`~.objects.OBJECT` where it is a plain
    class there (:func:`~.objects.plain_class`), or ``None``."""
    found = project_class(ctx, name)
    if found is None:
        return None
    from .objects import plain_instance
    from .values import MODULE, Value, values

    other, definition = found
    if definition.name not in values(other).module_classes():
        # (an instance of a plain class of the project: ``vocab = data.Dictionary()``)
        return plain_instance(other, definition.name)
    return Value(MODULE, name=f"{FOREIGN_CLASS}{other.filename}\0{definition.name}")


def project_class(ctx: Context, name) -> Optional[Tuple[Context, ast.ClassDef]]:
    """The context of the project module that defines the class ``name`` is bound
    to at the top of ``ctx``'s file by an import (``from models import Net``; or an
    ``ast.Attribute`` of an imported project module: ``models.Net`` after ``import
    models``), and its ``class`` statement there (defined once at its top), or
    ``None``."""
    if isinstance(name, ast.Attribute):  # (asked of every unknown method call: cheap first)
        if not ctx.project or not isinstance(name.value, ast.Name):
            return None
        name = f"{name.value.id}.{name.attr}"
        if _imported(ctx, name) is None:
            return None
    elif isinstance(name, ast.Name):
        name = name.id
    found = _definition(ctx, name, r"class[ \t]+", r"\b")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    return found  # type: ignore[return-value]


def project_assignments(ctx: Context, name: str) -> Optional[Tuple[Context, tuple]]:
    """The context of the project module that binds the name ``name`` is bound to
    at the top of ``ctx``'s file by an import (``from options import opt``; or
    ``options.opt`` after ``import options``), and its bindings there, where that
    module binds it at its top by assignments only and no function of it
    declares it ``global``; ``None`` where that is not evident."""
    if not ctx.project:
        return None
    memo = ctx.memo.setdefault("foreign", {})
    key = (name, "=")
    if key not in memo:  # type: ignore[operator]
        memo[key] = _find_assigned(ctx, name)  # type: ignore[index]
    return memo[key]  # type: ignore[index,no-any-return]


def assigned_value(ctx: Context, name: str, depth: int):
    """What the project module that binds ``name`` (see :func:`project_assignments`)
    binds it to: the value facts' :class:`~.values.Value`."""
    from .objects import crossed
    from .values import UNKNOWN, join, values

    found = project_assignments(ctx, name)
    if found is None:
        return UNKNOWN
    other, defs = found
    facts = values(other)
    return crossed(join([facts.binding(d, other.tree, depth + 1) for d in defs]), other)


def _find_assigned(ctx: Context, name: str) -> Optional[Tuple[Context, tuple]]:
    try:
        qualname = _imported(ctx, name)
        if qualname is None:
            return None
        head, _, last = qualname.rpartition(".")
        text = cached_text(head[len(PROJECT):])  # (mostly a class or a function: cheap first)
        if text is not None and (f"def {last}(" in text or f"class {last}" in text):
            return None
        site = definition_site(qualname)
        if site is None:
            return None
        path, defined = site
        text = cached_text(path)
        word = re.escape(defined)
        if text is None or not re.search(  # (``name = ...``, ``a, name = ...`` on a line)
                rf"^[ \t]*(?:\w+[ \t]*,[ \t]*)*{word}[ \t]*(?:,[^\n=]*)?=(?!=)", text, re.M) \
                or re.search(rf"^[ \t]*(?:global|nonlocal)\b[^\n]*\b{word}\b", text, re.M):
            return None  # (not assigned, or rebound when a function runs: not read)
        other = module_context(path)
        if other is None:
            return None
        defs = tuple(other.flow_of(other.tree).defs(defined))
        if not defs or any(d.kind not in ("assign", "unpack") for d in defs):
            return None
        return other, defs
    except (OSError, ValueError, RecursionError):  # (an unreadable project: unknown)
        return None


def forward_of(module: str, depth: int):
    """What the ``forward`` of the class a :data:`FOREIGN_CLASS` value names returns."""
    from .values import UNKNOWN, values

    path, _, name = module[len(FOREIGN_CLASS):].partition("\0")
    other = module_context(path)
    return values(other).forward(name, depth) if other is not None else UNKNOWN


def _definition(ctx: Context, name: str, before: str, after: str
                ) -> Optional[Tuple[Context, ast.AST]]:
    """The context of the project module that defines what ``name`` is bound to at
    the top of ``ctx``'s file by an import, and the definition there, defined once
    at its top and spelled ``before + name + after`` at the start of a line (else
    the module is not read)."""
    if not ctx.project:
        return None
    memo = ctx.memo.setdefault("foreign", {})
    key = (name, before)
    if key not in memo:  # type: ignore[operator]
        memo[key] = _find(ctx, name, before, after)  # type: ignore[index]
    return memo[key]  # type: ignore[index,no-any-return]


def _find(ctx: Context, name: str, before: str, after: str
          ) -> Optional[Tuple[Context, ast.AST]]:
    try:
        qualname = _imported(ctx, name)
        site = definition_site(qualname) if qualname is not None else None
        if site is None:
            return None
        path, defined = site
        text = cached_text(path)
        if text is None or not re.search(f"^{before}{re.escape(defined)}{after}", text, re.M):
            return None  # (bound otherwise: the module is not read)
        other = module_context(path)
        if other is None:
            return None
        definition = other.defined_once().get(defined)
        return (other, definition) if definition is not None else None
    except (OSError, ValueError, RecursionError):  # (an unreadable project: unknown)
        return None


def _imported(ctx: Context, name: str) -> Optional[str]:
    """The project name ``name`` is bound to at the top of the file by an import
    (``PROJECT + path + ".name"``), or ``None``."""
    module = ctx.scope.module()
    head, _, attr = name.partition(".")
    if attr:  # (``models.Net``: ``models`` bound to a project module)
        bindings = module.bindings.get(head)
        qualname = bindings[-1].qualname if bindings else None
        return f"{qualname}.{attr}" if qualname is not None and qualname.startswith(PROJECT) \
            and qualname.endswith(".py") and "." not in attr else None
    bindings = module.bindings.get(name)
    if bindings:
        qualname = bindings[-1].qualname
        return qualname if qualname is not None and qualname.startswith(PROJECT) else None
    for star in module.stars:
        if star.startswith(PROJECT):
            found, what = star_lookup(star, name)
            if found:
                if what is None:  # (defined in the star-imported module itself)
                    return f"{star}.{name}"
                return what if what.startswith(PROJECT) else None
    return None


def module_context(path: str) -> Optional[Context]:
    """A context of the project module ``path``, its top-level imports bound (made
    once while the file is unchanged), or ``None`` when it cannot be read or parsed."""
    return stamped(_CONTEXTS, path, lambda stamp: _context(path, stamp), most=MOST)


def _context(path: str, stamp: Tuple[int, int]) -> Optional[Context]:
    parsed = parse_whole(path, stamp)
    if parsed is None:
        return None
    text, tree = parsed
    other = Context(tree, lines_of(text), path, text)
    scope = other.scope
    for node in _top_imports(tree):  # (bound as the walker binds them)
        pairs, stars = other.import_bindings(node)
        for bound, qualname in pairs:
            scope.bind(bound, resolve.Binding(qualname))
        scope.stars.extend(stars)
    return other


def _top_imports(tree: ast.AST):
    """The import statements run at the top of a module (in its ``if`` and ``try``
    blocks too), in order."""
    stack = list(reversed(getattr(tree, "body", [])))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try)) or node.__class__.__name__ == "TryStar":
            blocks = [node.body, node.orelse, *(h.body for h in getattr(node, "handlers", ())),
                      getattr(node, "finalbody", [])]
            for block in reversed(blocks):
                stack.extend(reversed(block))


def forget() -> None:
    """Drop the modules read (a new run reads them again)."""
    _CONTEXTS.clear()
