"""Subclasses of ``torch.autograd.Function``, for TV104 (legacy ones) and TV165
(new-style ones called through an instance)."""
from __future__ import annotations

import ast

from ...analysis.canonical import PROJECT
from ...analysis.context import Context

FUNCTION_BASES = frozenset(("torch.autograd.Function", "torch.autograd.function.Function"))


def function_subclass(ctx: Context, node: ast.ClassDef, depth: int = 0, project: bool = True
                      ) -> bool:
    """Whether the class derives from ``torch.autograd.Function``: directly, through
    a class of the file, or (``project``) through a class of the project's other
    modules (``class Sub(BaseFn)`` with ``from .base import BaseFn``)."""
    for base in node.bases:
        if ctx.resolve(base) in FUNCTION_BASES:
            return True
        if not isinstance(base, ast.Name) or depth > 4:
            continue
        own = ctx.defined_once().get(base.id)
        if isinstance(own, ast.ClassDef) and own is not node:
            if function_subclass(ctx, own, depth + 1, project):
                return True
            continue
        if not project:
            continue
        module = ctx.scope.module()
        bindings = module.bindings.get(base.id)
        if bindings:
            raws = [bindings[-1].qualname]
        else:  # (``from .base import *``: the last project star import that has it)
            raws = [f"{star}.{base.id}" for star in reversed(module.stars)]
        for raw in raws:
            if raw is not None and raw.startswith(PROJECT):
                from ...analysis.project.classes import outside_ancestors

                ancestors = outside_ancestors(raw)
                if ancestors is not None:
                    if ancestors & FUNCTION_BASES:
                        return True
                    break
    return False


def static(func: ast.AST) -> bool:
    """Whether ``func`` is decorated ``@staticmethod``."""
    return any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list
    )
