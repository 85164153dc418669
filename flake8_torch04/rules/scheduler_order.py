"""TV130: ``scheduler.step()`` before the loop's ``optimizer.step()``."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit
from ..analysis.era import fixed_as_03
from .shared.schedulers import (
    epoch_argument, epoch_edits, epoch_loop, is_scheduler, lag_edits, loop_body, made_by,
    steps_optimizer, warns_for_epoch
)


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
    and no earlier one does.  ``S`` and ``O`` may be parameters of the function
    the loop is in, where every call of it, in this module or another of the
    project (``fit(model, optimizer, scheduler)`` in the script that makes
    them), passes one.  ``S.step(epoch)`` (one argument, or ``epoch=``)
    is flagged there too, where ``S`` is a scheduler whose ``step`` takes an
    epoch (not ``CosineAnnealingWarmRestarts``, whose own ``step`` does not
    warn).  Position: the call.

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
    same call moves on to epoch 1's.  ``S.step(epoch)`` at the top warns the
    same, although the epoch it is given keeps 0.3's rates (and warns of its
    own: TV151).

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
    its own line; otherwise the message says where it goes.  In 0.3 code (the
    file itself, as for TV163: see ``analysis/era.py``), where the loop is
    ``for e in range(start, n)`` under TV151's conditions, the fix is ``if e >
    start: S.step()`` in its place
    instead: the same rates, no warning, and no bare step after the training
    that TV163 would take for 0.3's end-of-epoch step.  ``S.step(e)`` is
    not moved (with its epoch it would run every rate an epoch late): where
    ``e`` is the variable of ``for e in range(n)`` the fix is TV151's, ``if e >
    0: S.step()`` in its place, the same edits (the fixer applies them once),
    under TV151's conditions and as unsafe; any other epoch gets the message
    alone.
    """
    found = epoch_argument(node)
    if found is None:
        return
    receiver, epoch = found
    scope = (ctx.scope.function() or ctx.scope.module()).node
    stmt = ctx.file_parents().get(id(node))
    if not isinstance(stmt, ast.Expr):
        return
    body = loop_body(ctx, stmt)
    if body is None or not made_by(ctx, receiver, scope,
                                   is_scheduler if epoch is None else warns_for_epoch):
        return
    at = body.index(stmt)
    if any(steps_optimizer(ctx, s, scope) for s in body[:at]):
        return
    later = [s for s in body[at + 1:] if steps_optimizer(ctx, s, scope)]
    if not later:
        return
    src = ctx.source
    where = f"`{src.quote(node)}` runs before the loop's `optimizer.step()`: since PyTorch 1.1 "
    if epoch is None:
        loop = epoch_loop(ctx, node, stmt, None, scope) if fixed_as_03(ctx) else None
        edits = lag_edits(ctx, stmt, *loop) if loop is not None else None
        if edits is not None:  # (0.3 code: moved after the training, TV163 would take it
            # for 0.3's end-of-epoch step, a schedule behind; in place, it is 0.3's)
            guard = f"if {loop[0].target.id} > {loop[1]}:"  # type: ignore[index,attr-defined]
            yield Report(
                node,
                where + f"it warns and skips the schedule's first value; write `{guard} "
                f"{src.text(node)}` in its place (0.3's rates)",
                Fix(tuple(edits), UNSAFE),
            )
            return
        yield Report(
            node,
            where + "it warns and skips the schedule's first value; move it after "
            f"`{src.quote(later[-1], 30)}`",
            _move(ctx, stmt, later[-1]),
        )
        return
    loop = epoch_loop(ctx, node, stmt, epoch, scope)
    edits = epoch_edits(ctx, node, stmt, *loop) if loop is not None and loop[1] == 0 else None
    yield Report(
        node,
        where + "it warns (its epoch argument keeps 0.3's rates, which moving it would "
        + (f"shift); write `if {src.text(epoch)} > 0: {src.text(node.func)}()` in its place"
           if edits is not None else "shift; see TV151)"),
        None if edits is None else Fix(edits, UNSAFE),
    )
