"""TV151: ``scheduler.step(epoch)``, the epoch argument PyTorch 1.4 deprecated."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from .shared.schedulers import (
    epoch_argument, epoch_edits, epoch_loop, loop_body, made_by, steps_optimizer, warns_for_epoch
)


@rule("TV151")
def scheduler_epoch(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``scheduler.step(epoch)``: an epoch given to a scheduler's ``step``.

    ## What it does
    Flags ``S.step(a)`` and ``S.step(epoch=a)`` where every binding of ``S`` in
    the function (or, for a name it does not bind, at the top of the module) is
    a call of a ``torch.optim.lr_scheduler`` class resolved through the file's
    imports, other than ``ReduceLROnPlateau`` (whose ``step`` takes a metric)
    and ``CosineAnnealingWarmRestarts`` (whose own ``step`` takes a fraction of
    an epoch).  A project's own scheduler class, and a scheduler whose class is
    not evident (a parameter, an attribute), are left alone.  Position: the call.

    ## Why is this bad?
    0.3's ``_LRScheduler.step(epoch)`` set ``last_epoch = epoch`` and the
    schedule's rate at that epoch, and its constructor left ``last_epoch`` at
    -1.  PyTorch 1.4 deprecated the argument: on 2.13 the first call warns
    ``UserWarning: The epoch parameter in `scheduler.step()` was not necessary
    and is being deprecated where possible. Please use `scheduler.step()` to
    step the scheduler. During the deprecation, if epoch is different from
    None, the closed form is used instead of the new chainable form, where
    available. Please open an issue if you are unable to replicate your use
    case: https://github.com/pytorch/pytorch/issues/new/choose.``  The obvious
    rewrite, ``S.step()``, is not the same: today's constructor leaves
    ``last_epoch`` at 0 and a bare ``step()`` adds one, so at the end of
    ``for epoch in range(n)`` every change of the rate comes one epoch early
    (``MultiStepLR(opt, [2, 3], 0.1)``: ``1.0, 0.1, 0.01, ...`` instead of
    0.3's ``1.0, 1.0, 0.1, 0.01, ...``).

    ## Example
    ```python
    scheduler = MultiStepLR(optimizer, milestones=[60, 120], gamma=0.2)
    for epoch in range(epochs):
        train(epoch)
        scheduler.step(epoch)
    ```

    Use instead:
    ```python
    scheduler = MultiStepLR(optimizer, milestones=[60, 120], gamma=0.2)
    for epoch in range(epochs):
        train(epoch)
        if epoch > 0:
            scheduler.step()
    ```

    ## Fix safety
    The fix is offered where the argument is the variable ``e`` of the loop
    ``for e in range(n)`` or ``range(0, n)`` (or ``range(start, n)`` where every
    binding of ``start`` assigns it 0: ``start_epoch = 0``) whose body holds the call as a
    statement (no ``continue`` skips it), and ``S`` is one of 0.3's schedulers
    (``LambdaLR``, ``StepLR``, ``MultiStepLR``, ``ExponentialLR``,
    ``CosineAnnealingLR``) made before the loop, once per run of it, without
    ``last_epoch``.  It writes ``if e > 0: S.step()`` in the call's place,
    wherever the call is in the body: after epoch ``e``'s call the scheduler
    holds ``last_epoch = e`` and that epoch's rate, as on 0.3, at the top of the
    loop (where TV130 offers the same fix) as at its end, and no call comes
    before the optimizer's first step.  For ``range(1, n)`` a call that follows
    the loop's optimizer steps becomes ``S.step()``.  The fix is *unsafe*:
    ``StepLR``, ``MultiStepLR``, ``ExponentialLR`` and ``CosineAnnealingLR``
    step without an epoch by scaling the last rate rather than by the closed
    form, which can differ in the last digits (a relative 1e-16 to 5e-15 over
    25 epochs; ``LambdaLR`` is exact), and a rate written into
    ``param_groups`` elsewhere now stays, where 0.3's ``step(epoch)`` wrote
    over it.  Any other argument (``start_epoch + i``, a resumed epoch) gets
    the message alone.
    """
    found = epoch_argument(node)
    if found is None or found[1] is None:
        return
    receiver, epoch = found
    scope = (ctx.scope.function() or ctx.scope.module()).node
    if not made_by(ctx, receiver, scope, warns_for_epoch):
        return
    src = ctx.source
    stmt = ctx.file_parents().get(id(node))
    fix = None
    loop = epoch_loop(ctx, node, stmt, epoch, scope) if isinstance(stmt, ast.Expr) else None
    if loop is not None:
        start = loop[1]
        body = loop_body(ctx, stmt)
        at = body.index(stmt)  # type: ignore[union-attr]
        if start == 0 or any(steps_optimizer(ctx, s, scope) for s in body[:at]):  # type: ignore
            edits = epoch_edits(ctx, node, stmt, *loop)  # type: ignore[arg-type]
            fix = None if edits is None else Fix(edits, UNSAFE)
    call = f"{src.text(node.func)}()"
    if fix is None:
        advice = f"call `{call}` where the count of bare steps is the epoch"
    elif loop is not None and loop[1] == 0:  # type: ignore[index]
        advice = f"write `if {src.text(epoch)} > 0: {call}`"
    else:
        advice = f"write `{call}`"
    yield Report(
        node,
        f"`{src.quote(node)}`: the epoch argument warns on PyTorch 2.13 (deprecated); 0.3 "
        "set `last_epoch` to it, and a bare `step()` counts from the constructor's 0, an "
        f"epoch ahead; {advice}",
        fix,
    )
