"""astroid, bounded: a computed ``__all__``, and the summary the tests compare."""
from __future__ import annotations

import ast
import os
import re
from contextlib import contextmanager
from typing import Iterator, List, Optional, Set

from ..canonical import PROJECT as PREFIX

# ---------------------------------------------------------------------------
# astroid, bounded: a computed ``__all__``, and the summary the tests compare


class _RefuseAll:
    """A ``module_denylist`` that holds every module: astroid follows no import."""

    def __contains__(self, name: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())


@contextmanager
def astroid_bounded():
    """astroid refuses every import it would follow by itself while we use it."""
    from astroid.manager import AstroidManager

    brain = AstroidManager.brain
    saved = brain["module_denylist"]
    brain["module_denylist"] = _RefuseAll()
    try:
        yield AstroidManager()
    finally:
        brain["module_denylist"] = saved


#: astroid could not be imported (it is a dependency; but never raise over it)
#: trees astroid built (the tests count them)
ASTROID_BUILT = [0]

_NO_ASTROID = [False]


def astroid_tree(manager, path: str, text: str, tree: ast.Module):
    """astroid's tree of the (stripped) module, under a name no other module has:
    not ``AstroidBuilder``, whose post-build steps follow imports (torch's
    included) and whose first use builds astroid's model of ``builtins`` (0.3 s)."""
    from astroid.rebuilder import TreeRebuilder

    built = TreeRebuilder(manager, data=text).visit_module(
        tree, PREFIX + path, path, os.path.basename(path) == "__init__.py")
    ASTROID_BUILT[0] += 1
    return built


_ALL_MENTION = re.compile(r"(?<![\w.])__all__\b")


def inferred_all(path: str, text: str, tree: ast.Module) -> Optional[Set[str]]:
    """A computed ``__all__`` (``__all__ = base + [...]``, ``__all__ += [...]``,
    ``__all__.extend(...)``), as astroid's inference reads it, or ``None`` (every
    public name is taken) when it cannot: astroid follows no import, so
    ``sub.__all__ + [...]`` is ``None``; nor when ``__all__`` is bound in a branch
    or changed in a loop or a function (``bench/benchmark.py --summaries``
    compares this with the ``__all__`` of torch's modules when imported)."""
    if _NO_ASTROID[0]:
        return None
    mentions = len(_ALL_MENTION.findall(text))
    if mentions > sum(1 for n in ast.walk(tree) if n.__class__ is ast.Name and n.id == "__all__"):
        return None  # changed in a function (``__all__.append`` in a decorator ...)
    try:
        with astroid_bounded() as manager:
            from astroid import nodes

            if "builtins" not in manager.astroid_cache:
                manager.bootstrap()  # (astroid's ``builtins``: ``[...] + [...]`` needs it)
            return _infer_all(astroid_tree(manager, path, text, tree), nodes)
    except ImportError:
        _NO_ASTROID[0] = True
        return None
    except Exception:  # astroid could not build or infer it
        return None


def _infer_all(tree, nodes) -> Optional[Set[str]]:
    found = tree.locals.get("__all__")
    if not found or not isinstance(found[-1], nodes.AssignName):
        return None
    if any(binding.statement().parent is not tree for binding in found):
        return None  # bound in a branch or a loop: which binding holds is not known
    for call in tree.nodes_of_class(nodes.Call):
        func = call.func
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and (
                func.expr.name == "__all__") and not (
                isinstance(call.parent, nodes.Expr) and call.parent.parent is tree):
            return None  # changed in a branch or a loop, or read in an expression
    last = found[-1]
    names = _strings(last, nodes)
    if names is None:
        return None
    for stmt in tree.body:  # ``__all__.extend(...)``, ``__all__.append(...)`` after it
        if not isinstance(stmt, nodes.Expr) or not isinstance(stmt.value, nodes.Call):
            continue
        func = stmt.value.func
        if not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)
                and func.expr.name == "__all__") or stmt.fromlineno < last.fromlineno:
            continue
        args = stmt.value.args
        if func.attrname not in ("extend", "append") or len(args) != 1 or stmt.value.keywords:
            return None
        if func.attrname == "append":
            more = _strings(args[0], nodes, one=True)
        else:
            more = _strings(args[0], nodes)
        if more is None:
            return None
        names.extend(more)
    return set(names)


def _strings(node, nodes, one: bool = False) -> Optional[List[str]]:
    """What ``node`` infers to: one list or tuple of strings (``one``: one string)."""
    inferred = list(node.infer())
    if len(inferred) != 1:
        return None
    value = inferred[0]
    if one:
        elements = [value]
    elif isinstance(value, (nodes.List, nodes.Tuple)):
        elements = value.elts
    else:
        return None
    found = []
    for element in elements:
        if not (isinstance(element, nodes.Const) and isinstance(element.value, str)):
            values = list(element.infer())
            if len(values) != 1:
                return None
            element = values[0]
            if not (isinstance(element, nodes.Const) and isinstance(element.value, str)):
                return None
        found.append(element.value)
    return found
