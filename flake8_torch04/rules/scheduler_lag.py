"""TV163: ``scheduler.step()`` after an epoch's training, in 0.3 code: an epoch early now."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.era import file_is_legacy
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from .shared.schedulers import (
    epoch_argument, epoch_loop, is_scheduler, lag_edits, loop_body, made_by, steps_optimizer
)


@rule("TV163")
def scheduler_lag(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``scheduler.step()`` after an epoch's training, in PyTorch 0.3 code.

    ## What it does
    In 0.3 code (the file itself shows 0.3 idioms, or the configuration says so:
    see ``analysis/era.py``; not its project's other files, as a migrated file
    that steps after the training means today's schedule), flags ``S.step()`` (no argument) as a
    statement of the body of ``for e in range(n)`` (or ``range(start, n)``) that
    follows a statement stepping an optimizer (``optimizer.step()``, or a
    function of the file that does: ``train(epoch)``), where ``S`` is one of
    0.3's schedulers (``LambdaLR``, ``StepLR``, ``MultiStepLR``,
    ``ExponentialLR``, ``CosineAnnealingLR``) made before the loop without
    ``last_epoch`` (by a call of its class, of a function of the file that
    returns one, or passed for a parameter by every caller in view), the file
    steps it nowhere else, and no ``continue`` of the loop comes before the call.
    A call before the epoch's optimizer steps is TV130's; ``S.step(epoch)`` is
    TV151's.  Position: the call.

    ## Why is this bad?
    0.3's ``_LRScheduler.__init__`` set epoch 0's rate and put ``last_epoch``
    back to -1: the first ``step()`` set epoch 0's rate again, and a ``step()``
    at the end of epoch ``e`` set the rate of epoch ``e`` for epoch ``e + 1`` --
    the schedule ran one epoch behind.  Today's constructor leaves
    ``last_epoch`` at 0, so the same call sets epoch ``e + 1``'s rate: every
    change of the rate comes one epoch earlier than it did on 0.3
    (``ExponentialLR(opt, 0.5)``: ``1.0, 0.5, 0.25`` for epochs 0-2 where 0.3 ran
    ``1.0, 1.0, 0.5``), silently, and every number after the first epoch
    differs.

    ## Example
    ```python
    scheduler = ExponentialLR(optimizer, gamma=0.5)
    for epoch in range(epochs):
        train(epoch)
        scheduler.step()
    ```

    Use instead:
    ```python
    scheduler = ExponentialLR(optimizer, gamma=0.5)
    for epoch in range(epochs):
        train(epoch)
        if epoch > 0:
            scheduler.step()
    ```

    ## Fix safety
    The fix puts the call under ``if e > start:``: the first call skipped,
    every later one sets the rate 0.3 set.  It is *unsafe*: the program's
    rates change (back to 0.3's), and a migration that means to adopt
    today's schedule keeps the call as it is.
    """
    found = epoch_argument(node)
    if found is None or found[1] is not None or not file_is_legacy(ctx):
        return
    receiver = found[0]
    scope = (ctx.scope.function() or ctx.scope.module()).node
    stmt = ctx.file_parents().get(id(node))
    if not isinstance(stmt, ast.Expr) or stmt.value is not node:
        return
    body = loop_body(ctx, stmt)
    if body is None or not made_by(ctx, receiver, scope, is_scheduler):
        return
    at = body.index(stmt)
    if not any(steps_optimizer(ctx, s, scope) for s in body[:at]):
        return  # (before the epoch's training: TV130's; training not in view: unknown)
    loop = epoch_loop(ctx, node, stmt, None, scope)
    if loop is None:
        return
    for_loop, start = loop
    edits = lag_edits(ctx, stmt, for_loop, start)
    src = ctx.source
    epoch = for_loop.target.id  # type: ignore[attr-defined]
    yield Report(
        node,
        f"`{src.quote(node)}` after the epoch's training ran the schedule one epoch behind "
        f"on PyTorch 0.3 (its constructor left `last_epoch` at -1); since 1.1 every rate "
        f"comes an epoch earlier; write `if {epoch} > {start}: {src.text(node)}` to keep "
        f"0.3's rates",
        Fix(tuple(edits), UNSAFE) if edits is not None else None,
    )
