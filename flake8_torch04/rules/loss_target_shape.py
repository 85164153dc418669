"""TV117: a loss whose target is ``(N,)`` where its input is ``(N, 1)``."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Tuple

from ..analysis.canonical import VARIABLE
from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import MODULE, NUMBER, Value, values
from ..analysis.resolve import key
from ..source.text import Edit, needs_parens, one_line

#: loss modules and functions that compare their input and target element-wise
#: (``torch.nn.<Loss>`` -> its functional name); BCE raises, the others broadcast
LOSS_MODULES = {
    "torch.nn.BCELoss": "binary_cross_entropy",
    "torch.nn.BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
    "torch.nn.MSELoss": "mse_loss",
    "torch.nn.L1Loss": "l1_loss",
    "torch.nn.SmoothL1Loss": "smooth_l1_loss",
}
LOSS_FUNCTIONS = frozenset(f"torch.nn.functional.{f}" for f in LOSS_MODULES.values())
_RAISES = frozenset(("binary_cross_entropy", "binary_cross_entropy_with_logits"))
#: constructors ``f(n)`` of a 1-D target that take one more size: ``f(n, 1)``
_SIZED = frozenset(
    [f"torch.{f}" for f in ("ones", "zeros", "empty", "rand", "randn")]
    + [f"torch.{t}Tensor" for t in ("", "Float", "Double", "Half")]
    + [f"torch.cuda.{t}Tensor" for t in ("Float", "Double", "Half")]
)
#: methods a target is built through that keep its shape (``.cuda()``, ``.fill_(1)``)
_KEEPS = frozenset(("cuda", "cpu", "float", "double", "half", "to", "fill_", "detach",
                    "requires_grad_", "type_as", "contiguous", "zero_", "normal_",
                    "uniform_"))


def _loss(ctx: Context, node: ast.Call) -> Optional[str]:
    """The functional name of the loss ``node`` calls, or ``None``."""
    name = ctx.resolve(node.func)
    if name in LOSS_FUNCTIONS:
        return name.rsplit(".", 1)[1]
    if name is not None:
        return None
    module = values(ctx).of(node.func)
    if module.kind == MODULE:
        return LOSS_MODULES.get(module.name or "")
    return None


def _pair(node: ast.Call) -> Optional[Tuple[ast.AST, ast.AST]]:
    given = {kw.arg: kw.value for kw in node.keywords}
    if None in given or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    args: List[ast.AST] = list(node.args[:2])
    for word in ("input", "target")[len(args):]:
        if word not in given:
            return None
        args.append(given[word])
    return args[0], args[1]


def mismatch(ctx: Context, node: ast.Call, scope=None) -> Optional[Tuple[Value, Value]]:
    """The input and target values of a loss call whose input is evidently
    ``(..., 1)`` and whose target is 1-D, or whose input and target have
    evident ranks that differ, or ``None``."""
    # (what the call passes first: it is read from the call alone)
    pair = _pair(node) if len(node.args) + len(node.keywords) >= 2 else None
    if pair is None or _loss(ctx, node) is None:
        return None
    facts = values(ctx)
    inner, target = (facts.of(e, scope) for e in pair)
    if not (inner.tensor and target.tensor):
        return None
    if inner.rank and target.rank and inner.rank != target.rank:
        higher = inner if inner.rank > target.rank else target
        # (``(N, 1, 1, 1)`` against ``(N,)`` or ``(N, 1)``; not ``(N, 2)`` against
        # ``(N,)``, whose element counts differ: an error on 0.3 too)
        return (inner, target) if higher.last in (None, 1) else None
    if not (inner.last == 1 and inner.rank != 1 and target.rank == 1):
        return None
    if target.last == 1 and inner.rank is None:
        return None  # (an input ``(1,)`` and a target ``(1,)`` agree)
    return inner, target


def _column(inner: Value, target: Value) -> bool:
    """The first case: an ``(N, 1)`` (or ``(..., 1)``) input and a 1-D target."""
    return inner.last == 1 and inner.rank in (None, 2) and target.rank == 1


def _peel(ctx: Context, node: ast.AST) -> ast.AST:
    """The expression a target is built from under ``Variable(...)``, ``.cuda()``..."""
    while isinstance(node, ast.Call):
        if len(node.args) == 1 and ctx.resolve(node.func) == VARIABLE:
            node = node.args[0]
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _KEEPS and \
                ctx.resolve(node.func) is None:
            node = node.func.value
        else:
            break
    return node


def _constructor(ctx: Context, node: ast.AST) -> Optional[ast.Call]:
    """``torch.ones(n)`` (one size, not a list of data), or ``None``."""
    if not isinstance(node, ast.Call) or ctx.resolve(node.func) not in _SIZED:
        return None
    if len(node.args) != 1 or isinstance(node.args[0], (ast.List, ast.Tuple, ast.Starred)):
        return None
    if values(ctx).of(node.args[0]).kind != NUMBER:
        return None
    return node


def _single_definition(ctx: Context, node: ast.Name) -> Optional[ast.AST]:
    """The value of the one assignment of ``node``'s name in its function, when
    every read of the name is the target of a loss call this rule flags."""
    flow = ctx.flow()
    defs = flow.reaching(node)
    if not defs or len(defs) != 1 or defs[0].kind != "assign":
        return None
    if len(flow.defs(node.id)) != 1:
        return None
    scope_node = flow.node
    parents = ctx.file_parents()
    for read in ast.walk(scope_node):
        if not (isinstance(read, ast.Name) and read.id == node.id and
                isinstance(read.ctx, ast.Load)):
            continue
        call = parents.get(id(read))
        if read is node:
            continue
        if not isinstance(call, ast.Call) or _pair(call) is None or \
                _pair(call)[1] is not read or _enclosing(parents, call) is not scope_node:
            return None
        if mismatch(ctx, call, scope_node) is None:
            return None
    return defs[0].value


def _enclosing(parents, node: ast.AST) -> Optional[ast.AST]:
    node = parents.get(id(node))
    while node is not None and not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
        node = parents.get(id(node))
    return node


def _built(ctx: Context, target: ast.AST) -> Optional[ast.Call]:
    """The constructor of the target, where the target is built in the call or
    by the one assignment of a name used only as such a target."""
    built = _peel(ctx, target)
    if isinstance(built, ast.Name):
        value = _single_definition(ctx, built)
        if value is None:
            return None
        built = _peel(ctx, value)
    return _constructor(ctx, built)


def _fix(ctx: Context, call: Optional[ast.Call], inner: Value) -> Optional[Fix]:
    if call is None or inner.rank not in (None, 2):
        return None
    end = ctx.source.end(call.args[0])
    return Fix((Edit(end, end, ", 1"),), SAFE if inner.rank == 2 else UNSAFE)


@rule("TV117")
def loss_target_shape(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags a loss called on an ``(N, 1)`` input with an ``(N,)`` target.

    ## What it does
    Flags calls of ``nn.BCELoss``, ``nn.BCEWithLogitsLoss``, ``nn.MSELoss``,
    ``nn.L1Loss`` and ``nn.SmoothL1Loss`` modules built in the file (and of
    their functions, ``F.binary_cross_entropy``, ``F.mse_loss``, ...) whose
    input evidently ends in a dimension of size 1 - the output of a
    ``Linear(., 1)``, of an ``nn.Sequential`` or a module class of the file
    whose ``forward`` ends in one, of ``.view(-1, 1)`` - and whose target is
    evidently 1-D: ``torch.ones(n)``, ``torch.zeros(n)``,
    ``torch.FloatTensor(n).fill_(1)``, through ``Variable(...)`` and
    ``.cuda()``.  Also flags such a call whose input and target have evident
    ranks that differ: a DCGAN-style discriminator's ``(N, 1, 1, 1)`` output
    against an ``(N,)`` or ``(N, 1)`` target.  Shapes are the value facts of
    the file (``analysis/values.py``): an input whose shape is not evident is
    not flagged.  Position: the loss call.

    ## Why is this bad?
    PyTorch 0.3's losses compared the elements in order, whatever the shapes.
    Since 0.4 they follow the shapes.  On PyTorch 2.13 ``BCELoss`` raises
    ``ValueError: Using a target size (torch.Size([4])) that is different to
    the input size (torch.Size([4, 1])) is deprecated. Please ensure they have
    the same size.`` (``BCEWithLogitsLoss``: ``ValueError: Target size
    (torch.Size([4])) must be the same as input size (torch.Size([4, 1]))``);
    ``MSELoss``, ``L1Loss`` and ``SmoothL1Loss`` warn ``UserWarning: Using a
    target size (torch.Size([4])) that is different to the input size
    (torch.Size([4, 1])). This will likely lead to incorrect results due to
    broadcasting.`` and broadcast the two to ``(4, 4)``: the loss is another
    number, and so is every gradient.

    ## Example
    ```python
    D = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 1), nn.Sigmoid())
    real_label = Variable(torch.ones(num_img))
    d_loss_real = criterion(D(real_img), real_label)
    ```

    Use instead:
    ```python
    real_label = torch.ones(num_img, 1)
    d_loss_real = criterion(D(real_img), real_label)
    ```

    ## Fix safety
    Where the target is built in the call, or by the one assignment of a name
    that is used only as the target of such loss calls, the fix gives its
    constructor one more size, ``1``: the target then has the input's shape and
    the loss 0.3's numbers.  The fix is *safe* when the input is evidently 2-D
    (``(N, 1)``), *unsafe* when only its last size is evident (the output of a
    module whose input is a parameter of ``forward``): a 1-D input ``(1,)``
    would then need no change.  Elsewhere the message says what to write
    (``torch.ones(n, 1)``, or ``out.view(-1)`` for the input).  For ranks that
    differ otherwise the fix is ``target.view_as(input)`` (where the input is a
    name or an attribute, read once more): 0.3's pairing of the elements in
    order, *safe* for ``BCELoss`` and ``BCEWithLogitsLoss`` (the call raises
    otherwise; it ran on 0.3 only where the element counts agreed), *unsafe*
    for the losses that broadcast.
    """
    found = mismatch(ctx, node)
    if found is None:
        return
    inner, target = found
    pair = _pair(node)
    assert pair is not None
    src = ctx.source
    loss = _loss(ctx, node)
    if not _column(inner, target):
        yield _ranks(ctx, node, pair, inner, target, loss)
        return
    what = ("raises ValueError" if loss in _RAISES else
            "warns and broadcasts them to (N, N): wrong numbers")
    call = _built(ctx, pair[1])
    shape = "(N, 1)" if inner.rank == 2 else "(..., 1)"
    if call is not None and inner.rank in (None, 2):
        made = src.text(call)[:-1].rstrip() + ", 1)" if src.text(call).endswith(")") else ""
        advice = f"build the target as `{' '.join(made.split())}`"
    else:
        advice = ("build the target with the input's shape (`torch.ones(n, 1)`) or "
                  f"flatten the input (`{src.quote(pair[0], 30)}.view(-1)`)")
    yield Report(
        node,
        f"`{src.quote(pair[1])}` is 1-D and `{src.quote(pair[0])}` is {shape}: since "
        f"PyTorch 0.4 `{loss}` {what}; {advice}",
        _fix(ctx, call, inner),
    )


def _ranks(ctx: Context, node: ast.Call, pair, inner: Value, target: Value,
           loss: Optional[str]) -> Report:
    """Input and target of evident, different ranks: ``target.view_as(input)``,
    0.3's pairing of the elements in order (the input named, read twice)."""
    src = ctx.source
    what = ("raises ValueError" if loss in _RAISES else
            "warns and broadcasts them: other numbers")
    given, made = pair
    fixed = f"{src.text(made)}.view_as({src.text(given)})"
    shown = one_line(src.quote(made, 30))
    if needs_parens(made, ast.Attribute, src):
        fixed = f"({src.text(made)}).view_as({src.text(given)})"
        shown = f"({shown})"
    fix = None
    if key(given) is not None and "\n" not in fixed:
        fix = Fix((src.replace(made, fixed),), SAFE if loss in _RAISES else UNSAFE)
    return Report(
        node,
        f"`{src.quote(made)}` is {target.rank}-D and `{src.quote(given)}` is "
        f"{inner.rank}-D: PyTorch 0.3 compared their elements in order; since 0.4 "
        f"`{loss}` {what}; use `{shown}.view_as({src.quote(given, 30)})`",
        fix,
    )
