"""TV130: ``scheduler.step()`` before the loop's ``optimizer.step()``."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ..analysis.callers import argument
from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit

_SCHEDULERS = "torch.optim.lr_scheduler."
#: schedulers whose ``step`` takes a metric and is meant to follow validation
_METRIC = frozenset(("torch.optim.lr_scheduler.ReduceLROnPlateau",))
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _bound(ctx: Context, node: ast.AST, scope: ast.AST) -> Optional[List[ast.AST]]:
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


def _made_by(ctx: Context, node: ast.AST, scope: ast.AST, test) -> bool:
    found = _bound(ctx, node, scope)
    return bool(found) and all(isinstance(v, ast.Call) and test(ctx.resolve(v.func) or "")
                               for v in found)


def _is_scheduler(name: str) -> bool:
    return name.startswith(_SCHEDULERS) and name not in _METRIC


def _is_optimizer(name: str) -> bool:
    parts = name.split(".")
    return len(parts) == 3 and parts[:2] == ["torch", "optim"] and parts[2][:1].isupper()


def _step_of(node: ast.AST) -> Optional[ast.AST]:
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
    found = ctx.memo.get("TV130 functions")
    if found is None:
        names = [s.name for s in ctx.tree.body if isinstance(s, _FUNCTIONS)]
        found = ctx.memo["TV130 functions"] = {
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
    if _made_by(ctx, node, scope, _is_optimizer):
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


def _steps_optimizer(ctx: Context, stmt: ast.AST, scope: ast.AST, via: _Via = None,
                     depth: int = 0) -> bool:
    """``stmt`` calls ``optimizer.step()``, or a function of the file that does."""
    for node in _own(stmt):
        if not isinstance(node, ast.Call):
            continue
        receiver = _step_of(node)
        if receiver is not None and _optimizer(ctx, receiver, scope, via):
            return True
        func = node.func
        if depth < 2 and isinstance(func, ast.Name):
            called = _functions(ctx).get(func.id)
            if called is not None and all(d.kind == "def" for d in
                                          ctx.flow_of(scope).reaching(func) or ()) and \
                    any(_steps_optimizer(ctx, s, called, (node, scope, via), depth + 1)
                        for s in called.body):
                return True
    return False


def _loop_body(ctx: Context, stmt: ast.AST) -> Optional[Sequence[ast.stmt]]:
    """The body of the loop ``stmt`` is a statement of."""
    parent = ctx.file_parents().get(id(stmt))
    if isinstance(parent, _LOOPS) and stmt in parent.body:
        return parent.body
    return None


def _move(ctx: Context, stmt: ast.stmt, after: ast.stmt) -> Optional[Fix]:
    src = ctx.source
    removed = src.remove_lines(stmt)
    if removed is None or stmt.lineno != stmt.end_lineno:
        return None
    line = src.lines[stmt.lineno - 1]
    last = after.end_lineno
    rest = src.lines[last - 1][src.end(after)[1]:]
    if rest.strip() and not rest.strip().startswith("#"):
        return None
    text = line if line.endswith("\n") else line + "\n"
    return Fix((removed, Edit((last + 1, 0), (last + 1, 0), text)), UNSAFE)


@rule("TV130")
def scheduler_order(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``scheduler.step()`` called in a loop before the loop's ``optimizer.step()``.

    ## What it does
    Flags ``S.step()`` where ``S`` is bound to a ``torch.optim.lr_scheduler``
    scheduler (not ``ReduceLROnPlateau``) in the function or at the top of the
    module, the call is a statement of a loop's body, and a later statement of
    that body calls ``O.step()`` with ``O`` bound to a ``torch.optim``
    optimizer - directly, or in a function of the file it calls
    (``train(epoch)``), where ``O`` may be that function's parameter and the
    call passes an optimizer for it (``train_epoch(model, optimizer=opt)``) -
    and no earlier one does.  Position: the call.

    ## Why is this bad?
    0.3's examples stepped the scheduler at the top of each epoch.  Since
    PyTorch 1.1 the scheduler is meant to step after the optimizer, and on 2.13
    the first call warns ``UserWarning: Detected call of `lr_scheduler.step()`
    before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them
    in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.
    Failure to do this will result in PyTorch skipping the first value of the
    learning rate schedule.``  With ``StepLR(opt, 2, 0.1)`` the epochs run at
    ``1.0, 0.1, 0.1, 0.01`` instead of the schedule's ``1.0, 1.0, 0.1, 0.1``,
    which is what 0.3 ran: its ``_LRScheduler.__init__`` set epoch 0's rate and
    put ``last_epoch`` back to -1, so a ``step()`` at the top of epoch ``e`` set
    epoch ``e``'s rate; today's constructor leaves ``last_epoch`` at 0, and the
    same call moves on to epoch 1's.

    ## Example
    ```python
    for epoch in range(epochs):
        scheduler.step()
        train(epoch)
        test(epoch)
    ```

    Use instead:
    ```python
    for epoch in range(epochs):
        train(epoch)
        scheduler.step()
        test(epoch)
    ```

    ## Fix safety
    The fix moves the statement after the last statement of the loop body that
    steps the optimizer, which gives back 0.3's rates (the schedule's), and is
    *unsafe*: the statements of the loop body between the old place and the
    new one now run before the scheduler steps, and one that reads or prints
    the learning rate (``scheduler.get_lr()``, ``param_group['lr']``) reads
    another value there.  It is offered only where the call is a statement of
    its own line; otherwise the message says where it goes.
    """
    receiver = _step_of(node)
    if receiver is None or node.args:
        return
    scope = (ctx.scope.function() or ctx.scope.module()).node
    stmt = ctx.file_parents().get(id(node))
    if not isinstance(stmt, ast.Expr):
        return
    body = _loop_body(ctx, stmt)
    if body is None or not _made_by(ctx, receiver, scope, _is_scheduler):
        return
    at = body.index(stmt)
    if any(_steps_optimizer(ctx, s, scope) for s in body[:at]):
        return
    later = [s for s in body[at + 1:] if _steps_optimizer(ctx, s, scope)]
    if not later:
        return
    src = ctx.source
    yield Report(
        node,
        f"`{src.quote(node)}` runs before the loop's `optimizer.step()`: since PyTorch 1.1 "
        "it warns and skips the schedule's first value; move it after "
        f"`{src.quote(later[-1], 30)}`",
        _move(ctx, stmt, later[-1]),
    )
