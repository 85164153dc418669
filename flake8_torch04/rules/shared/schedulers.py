"""Learning-rate schedulers and the training loops that step them, for TV130
(``scheduler.step()`` before the optimizer's): what a name is bound to, whether a
statement steps an optimizer (directly or in a function of the file), the loop
body a statement is in."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ...analysis.callers import argument
from ...analysis.context import Context

PREFIX = "torch.optim.lr_scheduler."
#: schedulers whose ``step`` takes a metric and is meant to follow validation
METRIC = frozenset((PREFIX + "ReduceLROnPlateau",))
LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def bound(ctx: Context, node: ast.AST, scope: ast.AST) -> Optional[List[ast.AST]]:
    """The values every binding of the name ``node`` (read in ``scope``) assigns:
    the function's own, or for a name it does not bind, the module's."""
    if not isinstance(node, ast.Name):
        return None
    flow = ctx.flow_of(scope)
    defs = flow.reaching(node)
    if defs == () and scope is not ctx.tree and node.id not in flow.bound:
        defs = ctx.flow_of(ctx.tree).defs(node.id)
    if not defs or any(d.kind != "assign" or d.value is None for d in defs):
        return None
    return [d.value for d in defs]


def made_by(ctx: Context, node: ast.AST, scope: ast.AST, test) -> bool:
    """Every binding of the name ``node`` is a call of a callable whose qualified
    name passes ``test``."""
    found = bound(ctx, node, scope)
    return bool(found) and all(isinstance(v, ast.Call) and test(ctx.resolve(v.func) or "")
                               for v in found)


def is_scheduler(name: str) -> bool:
    return name.startswith(PREFIX) and name not in METRIC


def is_optimizer(name: str) -> bool:
    parts = name.split(".")
    return len(parts) == 3 and parts[:2] == ["torch", "optim"] and parts[2][:1].isupper()


def step_of(node: ast.AST) -> Optional[ast.AST]:
    """The receiver of ``X.step()``, or ``None``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "step" and not node.keywords:
        return node.func.value
    return None


def _own(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and what it holds, outside nested functions and classes."""
    stack = [node]
    while stack:
        here = stack.pop()
        yield here
        stack.extend(c for c in ast.iter_child_nodes(here) if not isinstance(c, _FUNCTIONS))


def _functions(ctx: Context) -> Dict[str, ast.AST]:
    found = ctx.memo.get("scheduler functions")
    if found is None:
        names = [s.name for s in ctx.tree.body if isinstance(s, _FUNCTIONS)]
        found = ctx.memo["scheduler functions"] = {
            s.name: s for s in ctx.tree.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and names.count(s.name) == 1}
    return found  # type: ignore[return-value]


#: the call that entered a function of the file, the caller's scope, and how
#: the caller was entered in turn (``None`` at the loop's own function)
_Via = Optional[Tuple[ast.Call, ast.AST, "_Via"]]


def _optimizer(ctx: Context, node: ast.AST, scope: ast.AST, via: _Via) -> bool:
    """``node``, read in ``scope``, is bound to a ``torch.optim`` optimizer: by the
    function or the module, or - a parameter the function never rebinds - by
    what the call ``via`` passes for it (``train_epoch(model, optimizer=opt)``)."""
    if made_by(ctx, node, scope, is_optimizer):
        return True
    if via is None or not isinstance(node, ast.Name):
        return False
    defs = ctx.flow_of(scope).reaching(node)
    if not defs or len(defs) != 1 or defs[0].kind != "param":
        return False
    call, caller, outer = via
    passed = argument(call, scope, defs[0].node)  # type: ignore[arg-type]
    if passed is None:
        return False
    expr, default = passed
    return _optimizer(ctx, expr, ctx.tree, None) if default else \
        _optimizer(ctx, expr, caller, outer)


def steps_optimizer(ctx: Context, stmt: ast.AST, scope: ast.AST, via: _Via = None,
                    depth: int = 0) -> bool:
    """``stmt`` calls ``optimizer.step()``, or a function of the file that does."""
    for node in _own(stmt):
        if not isinstance(node, ast.Call):
            continue
        receiver = step_of(node)
        if receiver is not None and _optimizer(ctx, receiver, scope, via):
            return True
        func = node.func
        if depth < 2 and isinstance(func, ast.Name):
            called = _functions(ctx).get(func.id)
            if called is not None and all(d.kind == "def" for d in
                                          ctx.flow_of(scope).reaching(func) or ()) and \
                    any(steps_optimizer(ctx, s, called, (node, scope, via), depth + 1)
                        for s in called.body):
                return True
    return False


def loop_of(ctx: Context, stmt: ast.AST) -> Optional[ast.AST]:
    """The loop ``stmt`` is a statement of the body of."""
    parent = ctx.file_parents().get(id(stmt))
    if isinstance(parent, LOOPS) and stmt in parent.body:
        return parent
    return None


def loop_body(ctx: Context, stmt: ast.AST) -> Optional[Sequence[ast.stmt]]:
    """The body of the loop ``stmt`` is a statement of."""
    loop = loop_of(ctx, stmt)
    return None if loop is None else loop.body  # type: ignore[attr-defined]
