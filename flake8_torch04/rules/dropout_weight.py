"""TV118: a module weight re-set from ``F.dropout(raw, training=...)`` (WeightDrop)."""
from __future__ import annotations

import ast
from typing import FrozenSet, Iterator, List, Optional, Set, Tuple

from ..analysis.context import Context
from ..analysis.findings import Report
from ..analysis.registry import rule
from ..analysis.resolve import builtin_call
from .shared.calls import argument

_DROPOUT = "torch.nn.functional.dropout"
_PARAMETER = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")
_MEMO = "TV118.parameters"


def _dropout(ctx: Context, node: Optional[ast.AST]) -> Optional[ast.Call]:
    """``F.dropout(w, p, training=flag)`` whose ``training`` may be false."""
    if not (isinstance(node, ast.Call) and ctx.resolve(node.func) == _DROPOUT):
        return None
    training = argument(node, 2, "training")
    if training is None or (isinstance(training, ast.Constant) and training.value is True):
        return None  # (``training`` defaults to ``True``: a new tensor every time)
    return node


def _parameters(ctx: Context) -> Tuple[FrozenSet[str], bool]:
    """The attribute names the file makes ``Parameter``s under (``m.w = Parameter(x)``,
    ``register_parameter('w', Parameter(x))``), and whether it registers some
    under a computed name (``register_parameter(name_w + '_raw', ...)``)."""
    found = ctx.memo.get(_MEMO)
    if found is None:
        names: Set[str] = set()
        computed = False
        if "Parameter" in ctx.text:
            for node in ast.walk(ctx.tree):
                if isinstance(node, ast.Assign) and _makes_parameter(ctx, node.value):
                    names.update(t.attr for t in node.targets if isinstance(t, ast.Attribute))
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr == "register_parameter" and len(node.args) == 2
                      and _makes_parameter(ctx, node.args[1])):
                    name = node.args[0]
                    if isinstance(name, ast.Constant) and isinstance(name.value, str):
                        names.add(name.value)
                    else:
                        computed = True
        found = ctx.memo[_MEMO] = (frozenset(names), computed)
    return found  # type: ignore[return-value]


def _makes_parameter(ctx: Context, node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ctx.resolve(node.func) in _PARAMETER


def _parameter_read(ctx: Context, node: ast.AST, depth: int = 0) -> bool:
    """A weight the file made a ``Parameter``, read off an object:
    ``getattr(m, name_w + '_raw')`` (registered under a computed name),
    ``self.weight_raw`` (made under that name), or a name bound only to one
    of those in the function."""
    names, computed = _parameters(ctx)
    if isinstance(node, ast.Attribute):
        return node.attr in names
    if builtin_call(node, ctx.scope, "getattr", 2):
        name = node.args[1]  # type: ignore[attr-defined]
        if isinstance(name, ast.Constant):
            return name.value in names
        return computed
    if isinstance(node, ast.Name) and not depth:
        defs = ctx.flow().reaching(node)
        return bool(defs) and all(
            d.kind == "assign" and d.value is not None and _parameter_read(ctx, d.value, 1)
            for d in defs)
    return False


def _dropped(ctx: Context, value: ast.AST) -> Optional[ast.Call]:
    """The ``F.dropout`` call ``value`` is, or that binds the name ``value``."""
    call = _dropout(ctx, value)
    if call is not None or not isinstance(value, ast.Name):
        return call
    defs = ctx.flow().reaching(value) or ()
    calls: List[ast.Call] = []
    for d in defs:
        found = _dropout(ctx, d.value) if d.kind == "assign" else None
        if found is not None:
            calls.append(found)
    return calls[0] if calls else None


@rule("TV118")
def dropout_weight(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags a module weight re-set from ``F.dropout(raw_w, training=self.training)``.

    ## What it does
    Flags ``setattr(M, name, w)`` (the builtin) where ``w`` is a call of
    ``torch.nn.functional.dropout`` (resolved through imports) or a name bound
    to one in the function, and ``M.attr = F.dropout(...)``; the dropout's ``training``
    argument is not the constant ``True``, and whose input is a weight the
    file makes an ``nn.Parameter``, read off an object: ``getattr(self.module,
    name_w + '_raw')`` where the file registers parameters under a computed
    name (``register_parameter(name_w + '_raw', Parameter(w.data))``),
    ``self.weight_raw`` where it makes one under that name, or a name bound
    only to such a read.  That is the
    ``WeightDrop`` wrapper of the 2017 AWD-LSTM language models, copied into
    many projects.  Position: the ``setattr`` call or the assignment.
    Writing into ``M._parameters[name]`` directly runs on 2.13 and is not
    flagged; nor is a dropout with ``training`` left at its default (``True``),
    of a tensor made in the function (a variational mask), or of any other
    attribute (``self.h = F.dropout(self.h, training=self.training)``).

    ## Why is this bad?
    In evaluation mode ``F.dropout(raw_w, training=False)`` now returns
    ``raw_w`` itself, a ``Parameter``: ``setattr`` then registers it as a
    parameter of the module under the dropped weight's name.  The next
    training step assigns a plain tensor to that name, and ``Module.__setattr__``
    raises ``TypeError: cannot assign 'torch.FloatTensor' as parameter
    'weight_hh_l0' (torch.nn.Parameter or None expected)``: training stops
    after its first evaluation (checked on 2.13 with the awd-lstm-lm
    ``WeightDrop`` around a ``Linear``: train, eval, then train fails).
    Wrapping the result in ``nn.Parameter(...)`` runs, but cuts the graph: the
    raw weight then gets no gradient and never learns.

    ## Example
    ```python
    raw_w = getattr(self.module, name_w + '_raw')
    w = F.dropout(raw_w, p=self.dropout, training=self.training)
    setattr(self.module, name_w, w)
    ```

    Use instead:
    ```python
    raw_w = getattr(self.module, name_w + '_raw')
    if self.training:
        w = F.dropout(raw_w, p=self.dropout, training=True)
    else:
        w = raw_w.clone()  # a plain tensor in both modes; gradients still reach raw_w
    setattr(self.module, name_w, w)
    ```

    ## Fix safety
    No automatic fix: the change is to the wrapper's logic (the
    evaluation branch), which the message spells out; checked on 2.13 that
    this form runs in training and evaluation mode, in any order, with the
    gradient reaching the raw weight.
    """
    if isinstance(node, ast.Call):
        if not builtin_call(node, ctx.scope, "setattr", 3):
            return
        value = node.args[2]
        target = f"setattr({ctx.source.quote(node.args[0], 30)}, ...)"
    elif isinstance(node, ast.Assign):
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Attribute):
            return
        value = node.value
        if _dropout(ctx, value) is None:
            return
        target = f"{ctx.source.quote(node.targets[0], 30)} = ..."
    else:
        return
    call = _dropped(ctx, value)
    if call is None or not call.args or not _parameter_read(ctx, call.args[0]):
        return
    raw = ctx.source.quote(call.args[0], 40)
    yield Report(
        node,
        f"`{target}` of `F.dropout({raw}, training=...)`: in eval mode dropout returns "
        f"the Parameter itself, and the next training step raises TypeError (cannot assign "
        f"a tensor as parameter) since PyTorch 0.4; set a plain tensor in both modes: "
        f"`F.dropout(..., training=True)` when training, else `{raw}.clone()` "
        f"(not `nn.Parameter(...)`, which cuts the gradient)",
    )
