"""TV166: an optimizer subclass that fills its state's ``step`` with a number."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.nodes import enclosing
from ..analysis.registry import rule

#: the optimizers whose ``step()`` takes ``state['step']`` as a tensor (an int raises)
TENSOR_STEPS = frozenset(f"torch.optim.{name}" for name in (
    "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"))


@rule("TV166")
def optimizer_step_state(ctx: Context, node: ast.Assign) -> Iterator[Report]:
    """Flags ``state['step'] = 0`` in a subclass of Adam (and its kin) that keeps their ``step()``.

    ## What it does
    Flags an assignment of a number (a constant) to ``S['step']`` (also as an
    item of a tuple assignment: ``s['shared'], s['step'] = z, 0``), where ``S`` is
    ``self.state[p]`` or a name bound to it in the same method, in a method of a
    class deriving directly from ``torch.optim.Adam``, ``AdamW``, ``Adamax``,
    ``NAdam``, ``RAdam``, ``RMSprop`` or ``Adagrad`` (resolved through imports) that
    does not define ``step`` itself.  Position: the number.

    ## Why is this bad?
    The 2017 A3C scripts share one optimizer between processes with a subclass
    that fills the state when it is made (``SharedAdam``: ``state['step'] = 0``,
    ``exp_avg`` and ``exp_avg_sq`` zeros in shared memory) and leaves the
    updates to ``torch.optim.Adam.step``.  That ``step`` now keeps the count as a
    tensor and, given a number, raises ``RuntimeError: API has changed,
    `state_steps` argument must contain a list of singleton tensors`` at the
    first update (on 2.13, for all seven optimizers above).

    ## Example
    ```python
    class SharedAdam(torch.optim.Adam):
        def __init__(self, params, lr=1e-3):
            super(SharedAdam, self).__init__(params, lr)
            for group in self.param_groups:
                for p in group['params']:
                    state = self.state[p]
                    state['step'] = 0
                    state['exp_avg'] = p.data.new().resize_as_(p.data).zero_()
    ```

    Use instead:
    ```python
                    state['step'] = torch.tensor(0.0)
    ```

    ## Fix safety
    The fix writes ``torch.tensor(0.0)`` (what ``Adam`` itself puts there; any
    other number ``n`` as ``torch.tensor(float(n))``): ``step()`` reads the
    count's value, so the updates are the same.  It is *unsafe*: other code that
    reads the count (a log line, a condition) now gets a tensor.
    """
    if len(node.targets) != 1:
        return
    target, value = node.targets[0], node.value
    pairs = [(target, value)]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
            and len(target.elts) == len(value.elts):  # (``s['shared'], s['step'] = z, 0``)
        pairs = list(zip(target.elts, value.elts))
    for target, value in pairs:
        if not (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                and target.slice.value == "step" and _number(value)):
            continue
        method = ctx.scope.function()
        cls = enclosing(ctx.statement_parents(), method.node, ast.ClassDef) if method else None
        if cls is None or not _keeps_step(ctx, cls) or not _state(ctx, target.value, method.node):
            continue
        src = ctx.source
        number = value.value if isinstance(value, ast.Constant) else None
        new = "torch.tensor(0.0)" if number == 0 else f"torch.tensor(float({src.text(value)}))"
        yield Report(
            value,
            f"`{src.quote(target)} = {src.quote(value)}` fills the step count of a "
            f"`{_base(ctx, cls)}` state with a number; its `step()` keeps a tensor there now "
            f"and raises RuntimeError (`state_steps` must hold singleton tensors); use `{new}`",
            Fix((src.replace(value, new),), UNSAFE, ("torch",)),
        )


def _number(value: ast.AST) -> bool:
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    return isinstance(value, ast.Constant) and type(value.value) in (int, float)


def _base(ctx: Context, cls: ast.ClassDef) -> Optional[str]:
    return next((name for name in (ctx.resolve(b) for b in cls.bases) if name in TENSOR_STEPS),
                None)


def _keeps_step(ctx: Context, cls: ast.ClassDef) -> bool:
    """``cls`` derives from one of :data:`TENSOR_STEPS` and does not define ``step``."""
    return _base(ctx, cls) is not None and not any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "step"
        for s in cls.body)


def _state(ctx: Context, node: ast.AST, method: ast.AST) -> bool:
    """``node`` is ``self.state[p]``, or a name the method binds to it alone."""
    if _state_item(node, method):
        return True
    if not isinstance(node, ast.Name):
        return False
    defs = ctx.flow_of(method).reaching(node)
    return bool(defs) and all(d.kind == "assign" and d.value is not None
                              and _state_item(d.value, method) for d in defs)


def _state_item(node: ast.AST, method: ast.AST) -> bool:
    args = getattr(method, "args", None)
    first = args.args[0].arg if args is not None and args.args else None
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "state" and isinstance(node.value.value, ast.Name)
            and node.value.value.id == first)
