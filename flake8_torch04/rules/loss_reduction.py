"""TV120: ``size_average=`` / ``reduce=`` in torch's losses."""
from __future__ import annotations

import ast
from typing import Iterator, Optional, Tuple

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.value_tables import MODULE, MODULE_ITSELF
from ..analysis.values import values
from ..source.text import has_comment, shorten
from .shared.calls import argument, keyword, remove_argument

_LEGACY = ("size_average", "reduce")
_FUNCTIONAL = "torch.nn.functional."
_MODULES = ("torch.nn.", "torch.nn.modules.loss.")
_NOT_GIVEN = object()
#: KL divergence: ``'mean'`` (its default) warns on every call
_KL_FUNCTION = "torch.nn.functional.kl_div"
_KL_MODULES = frozenset(f"{prefix}KLDivLoss" for prefix in (*_MODULES, "torch.nn.modules."))
#: an input that may be written twice (``x``, ``self.out``, ``out[0]``)
_SIMPLE = (ast.Name, ast.Attribute, ast.Subscript)
#: where ``a / b`` may stand for a call without parentheses
_LOOSE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Expr, ast.keyword,
          ast.Call, ast.List, ast.Tuple)


def _loss(qualname: Optional[str]) -> bool:
    """A function of ``torch.nn.functional`` or a ``torch.nn`` class named ``...Loss``
    (or ``NLLLoss2d``)."""
    if not qualname:
        return False
    if qualname.startswith(_FUNCTIONAL):
        return "." not in qualname[len(_FUNCTIONAL):]
    for prefix in _MODULES:
        if qualname.startswith(prefix):
            name = qualname[len(prefix):]
            if "." not in name and name.endswith(("Loss", "Loss2d")) and not name.startswith("_"):
                return True
    return False


def _constant(kw: Optional[ast.keyword]):
    """The value of a constant keyword (``None`` given is ``None``), ``_NOT_GIVEN``
    when absent; raises ``ValueError`` for a value that is not a constant."""
    if kw is None:
        return _NOT_GIVEN
    if isinstance(kw.value, ast.Constant) and type(kw.value.value) in (bool, int, type(None)):
        return kw.value.value
    raise ValueError


def reduction(size_average, reduce) -> str:
    """``torch.nn._reduction.legacy_get_string``: ``None`` (or absent) counts as ``True``."""
    size_average = True if size_average in (None, _NOT_GIVEN) else size_average
    reduce = True if reduce in (None, _NOT_GIVEN) else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


@rule("TV120")
def loss_reduction(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``size_average=`` and ``reduce=`` given to torch's losses.

    ## What it does
    Flags the keywords ``size_average=`` and ``reduce=`` in calls of
    ``torch.nn.functional`` functions (``F.nll_loss``, ``F.mse_loss``,
    ``F.cross_entropy``...) and of ``torch.nn`` classes named ``...Loss``
    (``nn.CrossEntropyLoss``, ``nn.MSELoss``...) or ``nn.NLLLoss2d``,
    resolved through imports.
    Position: the first of the two keywords.  Not flagged: a project's own
    loss, ``reduction=`` alone, both keywords given as ``None`` (which torch
    ignores without a warning), and a wrapper handing its own parameters on
    (``size_average=size_average, reduce=reduce``) where they default to
    ``None`` or to nothing (its callers decide); one that defaults to a bool
    (``def __init__(self, w, size_average=True)``) is flagged, with the
    replacement spelled in the message (``reduction='mean' if size_average else
    'sum'``) and no fix (not constants; and a caller passing ``None`` meant
    ``'mean'``).
    Also flags the KL divergence averaged over every element, which warns
    whatever the keyword: ``F.kl_div(input, target)`` and
    ``nn.KLDivLoss()`` with no reduction, ``reduction='mean'`` or old keywords
    that mean it (``size_average=True``).  Position: the call, or the
    keyword.  Not flagged: ``'sum'``, ``'batchmean'``, ``'none'``,
    ``reduce=False``, a reduction that is not a constant.
    And it flags ``criterion.size_average = False`` and ``criterion.reduce =
    False`` (a ``True`` or ``False`` constant) where ``criterion`` is
    evidently a loss module of ``torch.nn`` (see "How values are followed"
    in docs/how-it-works.md: ``reconstruction_function = nn.BCELoss()``,
    ``self.loss_fn = nn.CrossEntropyLoss().cuda()``).  Position: the
    attribute.

    ## Why is this bad?
    Since PyTorch 0.4.1 one ``reduction=`` keyword replaces both; on PyTorch
    2.13 each call (each construction of a loss module) warns
    ``UserWarning: size_average and reduce args will be deprecated, please use
    reduction='sum' instead.``  Torch still maps the old pair to a reduction:
    ``reduce=False`` gives ``'none'`` (whatever ``size_average``), else
    ``size_average=False`` gives ``'sum'``, else ``'mean'``; a missing or
    ``None`` keyword counts as ``True``.  The old pair wins over a
    ``reduction=`` given with it.

    The KL divergence's ``'mean'`` (0.3's ``size_average=True``, the default
    then and now) divides the sum by the number of elements; on 2.13 every
    call warns ``UserWarning: reduction: 'mean' divides the total loss by
    both the batch size and the support size.'batchmean' divides only by the
    batch size, and aligns with the KL div math definition.'mean' will be
    changed to behave the same as 'batchmean' in the next major release.``,
    also with ``reduction='mean'`` given.  ``'batchmean'`` silences it but
    divides by the batch size only: a loss as many times larger as a sample
    has elements (a learning rate tuned for the old loss no longer fits).
    ``F.kl_div(input, target, reduction='sum') / input.numel()`` is the old
    number without the warning.

    A loss module reads ``self.reduction`` since 0.4.1: setting its
    ``size_average`` or ``reduce`` attribute, which 0.3's losses read at
    each call, is silently ignored on 2.13, so ``criterion.size_average =
    False`` still averages: a loss as many times smaller as the batch (and
    each sample) has elements, other gradients, no warning.

    ## Example
    ```python
    criterion = nn.CrossEntropyLoss(size_average=False)
    loss = F.nll_loss(output, target, size_average=False, reduce=False)
    divergence = F.kl_div(output, target)
    ```

    Use instead:
    ```python
    criterion = nn.CrossEntropyLoss(reduction='sum')
    loss = F.nll_loss(output, target, reduction='none')
    divergence = F.kl_div(output, target, reduction='sum') / output.numel()
    ```

    ## Fix safety
    The fix is *safe*: it writes the reduction torch itself derives from the
    old keywords, so the loss is the same.  It is offered only when every
    old keyword is a constant (``True``, ``False``, ``None``, ``0``, ``1``) and
    no ``reduction=`` is given; otherwise the message names the mapping.
    The KL divergence's fix, ``F.kl_div(x, y, reduction='sum') / x.numel()``
    for a call of ``F.kl_div`` whose input is a name, an attribute or a
    subscript (it is written twice), is *unsafe*: it equals ``'mean'`` when
    the input has the target's shape; where the target broadcasts to a larger
    shape the number of elements is the target's.  ``nn.KLDivLoss()`` gets
    advice only: its calls are elsewhere (construct it with
    ``reduction='sum'`` and divide each call's result by the input's
    ``numel()``).
    The attribute's fix, ``criterion.reduction = 'sum'`` (the reduction 0.3
    derived from the attribute and the keywords the loss was constructed
    with: ``'none'`` for ``reduce = False``), is *safe* where the module is
    a name bound only to losses constructed with constant old keywords or
    none (not ``reduction=``) and the file sets only one of the two
    attributes on it: 0.3's loss then reduced exactly so from that statement
    on.  A module on ``self`` or of unknown construction gets it as an
    *unsafe* fix (it assumes no ``reduce=False`` was given to the
    constructor); where the file sets both attributes on it, 0.3's result
    depended on their order at run time: a message only.
    """
    if isinstance(node, ast.Assign):
        yield from _attribute_set(ctx, node)
        return
    found = [keyword(node, name) for name in _LEGACY]
    present = [kw for kw in found if kw is not None]
    if not present:
        reduction_kw = keyword(node, "reduction")
        if reduction_kw is None or isinstance(reduction_kw.value, ast.Constant) \
                and reduction_kw.value.value == "mean":
            yield from _kl_mean(ctx, node, reduction_kw, ())
        return
    if all(isinstance(kw.value, ast.Name) and kw.value.id == kw.arg for kw in present):
        if _loss(ctx.resolve(node.func)):
            yield from _handed_on(ctx, node, present)
        return  # (a wrapper handing its caller's arguments on)
    if not _loss(ctx.resolve(node.func)):
        return
    try:
        values = [_constant(kw) for kw in found]
    except ValueError:
        values = None
    if values is not None and all(v in (None, _NOT_GIVEN) for v in values):
        return  # torch ignores them: no warning, no change
    src = ctx.source
    present.sort(key=lambda kw: (kw.lineno, kw.col_offset))
    first = present[0]
    quoted = ", ".join(src.text(kw) for kw in present)
    why = "deprecated since PyTorch 0.4.1 (warns on 2.13)"
    if values is None or keyword(node, "reduction") is not None:
        yield Report(first, f"`{quoted}` is {why}; use `reduction=` ('none' if reduce is "
                            "false, else 'sum' if size_average is false, else 'mean')")
        return
    if reduction(*values) == "mean" and _kl(ctx, node) is not None:
        yield from _kl_mean(ctx, node, first, tuple(present))
        return
    new = f"reduction='{reduction(*values)}'"
    edits = [src.replace(first, new)]
    for kw in present:
        if kw is not first:
            edit = remove_argument(ctx, node, kw)
            if edit is None:
                edits = None
                break
            edits.append(edit)
    fix = Fix(tuple(edits), SAFE) if edits else None
    yield Report(first, f"`{quoted}` is {why}; use `{new}`", fix)


def _handed_on(ctx: Context, node: ast.Call, present) -> Iterator[Report]:
    """``nn.CrossEntropyLoss(w, size_average=size_average)`` in a function whose
    parameter ``size_average`` defaults to a bool (``=True``): torch warns at every
    call that keeps the default (one defaulting to ``None``, torch ignores)."""
    from ..analysis.callers import default_of
    from ..analysis.nodes import innermost
    from ..analysis.reaching import params_of

    function = innermost(ctx.parents, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return
    params = {p.arg: p for p in params_of(function)}
    given = {kw.arg: default_of(function, params[kw.arg]) if kw.arg in params else None
             for kw in present}
    if not any(isinstance(d, ast.Constant) and isinstance(d.value, bool)
               for d in given.values()):
        return  # (``None`` or no default: what the callers pass decides)
    size_average = "size_average" if "size_average" in given else None
    reduce = "reduce" if "reduce" in given else None
    if size_average and reduce:
        new = f"reduction=('mean' if {size_average} else 'sum') if {reduce} else 'none'"
    elif size_average:
        new = f"reduction='mean' if {size_average} else 'sum'"
    else:
        new = f"reduction='mean' if {reduce} else 'none'"
    src = ctx.source
    first = sorted(present, key=lambda kw: (kw.lineno, kw.col_offset))[0]
    quoted = ", ".join(src.text(kw) for kw in present)
    yield Report(  # (not constants: a message only, as for any other such value)
        first,
        f"`{quoted}` is deprecated since PyTorch 0.4.1: it warns on 2.13 whenever "
        f"`{function.name}`'s default (`{src.text(next(d for d in given.values() if d))}`) "
        f"reaches it; use `{new}` (where no caller passes `None`, which meant `True`)")


def _attribute_set(ctx: Context, node: ast.Assign) -> Iterator[Report]:
    """``criterion.size_average = False`` on a loss module of torch (see the docstring)."""
    if len(node.targets) != 1:
        return
    target = node.targets[0]
    if not (isinstance(target, ast.Attribute) and target.attr in _LEGACY
            and isinstance(node.value, ast.Constant) and type(node.value.value) is bool):
        return
    module = values(ctx).of(target.value)
    if module.kind != MODULE or not _loss(module.name):
        return
    constructed = _constructed(ctx, target)
    state = dict(constructed or {})
    state[target.attr] = node.value.value
    new = reduction(state.get("size_average"), state.get("reduce"))
    src = ctx.source
    statement = f"{src.text(target.value)}.reduction = '{new}'"
    spelled = key(target.value)
    set_here = {n.attr for n in ast.walk(ctx.tree) if isinstance(n, ast.Attribute)
                and n.attr in _LEGACY and isinstance(n.ctx, ast.Store)
                and key(n.value) == spelled}
    fix = None
    if len(set_here) == 1 and "\n" not in src.text(node) and not has_comment(src.text(node)):
        fix = Fix((src.replace(node, statement),), SAFE if constructed is not None else UNSAFE)
    yield Report(target, f"`{src.text(node)}` is silently ignored since PyTorch 0.4.1 (a "
                         f"loss module reads `reduction`: this one still reduces as it was "
                         f"constructed); use `{statement}`", fix)


def _constructed(ctx: Context, target: ast.Attribute) -> Optional[dict]:
    """The old keywords (constants) of the construction of ``target``'s owner,
    where it is a name bound only to torch losses constructed with constant old
    keywords (or none) and no ``reduction=``; ``None`` where that is not evident."""
    owner = target.value
    defs = ctx.flow().reaching(owner) if isinstance(owner, ast.Name) else None
    if not defs:
        return None
    found = []
    for d in defs:
        call = d.value if d.kind == "assign" else None
        while isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                and call.func.attr in MODULE_ITSELF and isinstance(call.func.value, ast.Call):
            call = call.func.value  # (``nn.BCELoss().cuda()``)
        if not isinstance(call, ast.Call) or not _loss(ctx.resolve(call.func)) or call.args \
                or any(kw.arg in ("reduction", None) for kw in call.keywords):
            return None
        try:
            found.append({name: _constant(keyword(call, name)) for name in _LEGACY})
        except ValueError:
            return None
    if any(f != found[0] for f in found):
        return None
    return {k: v for k, v in found[0].items() if v is not _NOT_GIVEN}


def _kl(ctx: Context, node: ast.Call) -> Optional[str]:
    """``"function"`` for ``F.kl_div``, ``"module"`` for ``nn.KLDivLoss``, else ``None``."""
    qualname = ctx.resolve(node.func)
    if qualname == _KL_FUNCTION:
        return "function"
    return "module" if qualname in _KL_MODULES else None


def _kl_mean(ctx: Context, node: ast.Call, at: Optional[ast.AST],
             legacy: Tuple[ast.keyword, ...]) -> Iterator[Report]:
    """The KL divergence averaged over every element (see the docstring): ``at``
    is the keyword that says so (``None``: the default), ``legacy`` the old
    keywords given."""
    kind = _kl(ctx, node)
    if kind is None or not all(kw.arg is not None for kw in node.keywords) \
            or any(isinstance(a, ast.Starred) for a in node.args):
        return
    src = ctx.source
    said = "the default reduction ('mean')" if at is None else \
        f"`{src.text(at)}`" if not legacy else \
        f"`{', '.join(src.text(kw) for kw in legacy)}` (deprecated since 0.4.1: 'mean')"
    why = (f"with {said} averages over every element, and every call warns on PyTorch 2.13 "
           f"('mean' is to become 'batchmean', which divides by the batch size only: "
           f"other numbers)")
    if kind == "module":
        if node.args:
            return  # (0.3's positional ``size_average``)
        parent = ctx.parent
        name = "criterion"  # (the name the module is bound to, where it is one)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], (ast.Name, ast.Attribute)):
            name = shorten(src.text(parent.targets[0]), 30)
        yield Report(at or node, f"`{shorten(src.text(node), 40)}` {why}; for the same "
                                 f"numbers without the warning construct it with "
                                 f"`reduction='sum'` and divide each call's result by its "
                                 f"input's `numel()` (`{name}(x, y) / x.numel()`)")
        return
    if len(node.args) > 2:
        return  # (a positional ``size_average``)
    first = argument(node, 0, "input")
    target = argument(node, 1, "target")
    if first is None or target is None:
        return
    new, fix = _kl_call(ctx, node, first, [kw for kw in legacy] + ([at] if at else []))
    bound = "" if isinstance(first, _SIMPLE) else \
        f" (`x` = `{shorten(src.text(first), 40)}`, computed once)"
    yield Report(at or node, f"`{shorten(src.text(node), 40)}` {why}; use `{shorten(new, 80)}`"
                             f"{bound} for the same numbers without the warning", fix)


def _kl_call(ctx: Context, node: ast.Call, first: ast.AST, drop: list
             ) -> Tuple[str, Optional[Fix]]:
    """The text of ``F.kl_div(x, y, reduction='sum') / x.numel()`` for ``node``, and
    its fix where ``x`` may be written twice."""
    src = ctx.source
    text = src.text(node)
    simple = isinstance(first, _SIMPLE)
    kept = [src.text(a) if simple or a is not first else "x" for a in node.args] + [
        src.text(kw) if simple or kw.value is not first else f"{kw.arg}=x"
        for kw in node.keywords if kw not in drop]
    numel = src.text(first) if simple else "x"
    kept.append("reduction='sum'")
    new = f"{src.text(node.func)}({', '.join(kept)}) / {numel}.numel()"
    if not simple or "\n" in text or has_comment(text):
        return new, None
    parent = ctx.parent
    if not (isinstance(parent, _LOOSE) or isinstance(parent, ast.BinOp) and (
            isinstance(parent.op, (ast.Add, ast.Sub)) or parent.left is node
            and isinstance(parent.op, (ast.Mult, ast.Div)))):
        new = f"({new})"
    return new, Fix((src.replace(node, new),), UNSAFE)
