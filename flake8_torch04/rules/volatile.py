"""TV002: ``volatile``, removed in PyTorch 0.4 and silently ignored since."""
from __future__ import annotations

import ast
import re
from typing import Callable, Iterator, List, Optional, Set, Tuple

from ..analysis.canonical import VARIABLE
from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.markers import match_offsets
from ..analysis.nodes import innermost
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..source.text import Edit, has_comment, one_line, shorten
from .shared.blocks import drop_statement, docstring, pass_through_wrappers, wrap_statements
from .shared.consumers import (
    callers_without_grad, handed_back_advice, lambda_around, lambda_calls, never_true,
    true_callers,
)
from .shared.escapes import escapes, escaping_names, function_body, handed_back, returned
from .shared.training import trains

_SINCE = "has no effect since PyTorch 0.4"


@rule("TV002")
def volatile(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``volatile=`` in ``Variable(...)`` and every ``.volatile`` access.

    ## What it does
    Flags the ``volatile=`` argument of torch's ``Variable`` (at the keyword
    itself, so ``# noqa`` goes on its line), and every ``.volatile`` attribute
    read or write in a file that works with torch (it imports torch, or uses
    ``Variable`` or ``.backward(``).  In any other file (a helper module that
    imports nothing) ``obj.volatile`` is flagged only when the same object is
    used as a tensor in the same function (``obj.data``, ``obj.grad``,
    ``obj.cuda()``, ``obj.numpy()``...): ``.data`` elsewhere in the text is no
    evidence (jinja2's ``eval_ctx.volatile`` sits beside a template node's
    ``self.data``).  ``volatile=`` given to other functions (a project's own
    helper, unless it only passes ``*args, **kwargs`` on to ``Variable``, or
    the project's own subclass of ``Variable`` that defines no ``__new__``,
    whose base gets every argument) and ``.volatile`` of an imported module
    or class, also through a
    name bound once to one (``Tensor = torch.Tensor``;
    ``Tensor.volatile.__get__`` in an override table) are left alone.  For
    ``volatile=True`` the message names the function to decorate with
    ``@torch.no_grad()`` when the fix below applies; else the loop (by its
    line) to run under ``with torch.no_grad():`` when the innermost loop
    around it neither trains (as below) nor makes a ``Variable`` that is not
    volatile (an evaluation loop at a script's top level, or inside a
    training function); else the variable whose uses go there: the lines
    from its first use to the end of the statement of its block that holds
    the last (``lines 60 to 79``, a loop included whole), where none of them
    trains, else the lines of its first uses.

    ## Why is this bad?
    ``volatile`` was removed in PyTorch 0.4 and now only warns "volatile was
    removed and now has no effect".  An evaluation loop that relied on
    ``volatile=True`` now records the autograd graph and uses far more memory;
    ``x.volatile`` is always ``False``, so code branching on it takes the
    training path.

    ## Example
    ```python
    def evaluate(model, images):
        inputs = Variable(images, volatile=True)
        return model(inputs).data.max(1)[1]

    inputs = Variable(images, volatile=True)
    outputs = model(inputs)
    if outputs.volatile:
        ...
    ```

    Use instead:
    ```python
    @torch.no_grad()
    def evaluate(model, images):
        return model(images).max(1)[1]

    with torch.no_grad():
        outputs = model(images)
    if not torch.is_grad_enabled():
        ...
    ```

    ## Fix safety
    ``volatile=False`` is dropped: *safe*, it never did anything; so is a
    helper's ``volatile=volatile`` (its own parameter, not rebound) where every
    call of the helper is in view (in the file, and no other file of the
    project names it) and none passes a true value: each passes ``False`` or
    nothing, the default being ``False`` (``def to_var(x, volatile=False):
    ... return Variable(x, volatile=volatile)`` called as ``to_var(x)``).
    ``volatile=True`` inside a function that only reads the results is
    dropped, and the function is decorated with ``@torch.no_grad()`` (added
    right above the ``def``, below other decorators; ``import torch`` is added
    when missing): *unsafe*, because the whole function then runs without
    autograd, which is what ``volatile`` propagation did for everything
    computed from that input, but not for other computations in it.  The fix
    applies only when the function calls no ``.backward()``, ``.step()``,
    ``.zero_grad()``, ``.requires_grad_()``, ``torch.autograd.grad``,
    ``enable_grad``/``set_grad_enabled``, no function of the file that calls
    one of those, no callee named like ``train``/``fit``/``update``/``step``
    (a method named ``update`` alone is a meter's or a dict's, allowed; so
    is ``m.train()`` of a module ``m`` the function also calls ``m.eval()``
    on: a mode set back, as a DDPG agent's ``select_action`` does), asks for no ``requires_grad=True``, and the wrapped value itself does not
    leave the function (returned, yielded, stored in an attribute, item or
    list, bound to a ``global``); every ``volatile=True`` of the function gets
    the same fix.  In a
    function already decorated with ``@torch.no_grad()``, or under ``with
    torch.no_grad():``, the keyword is just dropped: *safe*.  Elsewhere, the
    evaluation loop the message names is put under ``with torch.no_grad():``
    (indented one level, as the file indents) and every ``volatile=True`` in
    it dropped: *unsafe*, for the same reason; not where the loop holds a
    ``yield`` or ``await`` (suspended inside the block, it would leave grad off
    for the caller), a string of several lines (indenting would change it), or
    a keyword whose removal spans lines.  ``volatile=<expr>`` puts the
    innermost loop around it, or else the body of its function, under ``with
    torch.set_grad_enabled(not <expr>):`` and drops the keyword: *unsafe*; only
    where every ``volatile=`` of the region's ``Variable`` calls is that same
    expression, none asks for ``requires_grad``, the expression calls nothing
    and its names are bound before the region (not in the loop; parameters of
    the function, whose wrapped value does not leave it), and it does not pass
    0.3's flag on (``volatile=x.volatile``: a region would turn grad back on
    under a caller's ``no_grad``).  Elsewhere (module level outside a loop, a
    training loop, a lambda, an ``async def``) there is no automatic fix: the
    region is the user's choice.  0.3's ``volatile`` took effect where the
    model ran on the value, so where that is other code the message sends the
    user there, and no region is offered at the constructor (there it would
    do nothing: a new tensor does not require grad): a helper that passes its
    own ``volatile`` parameter on to the ``Variable`` it returns
    (``to_var(x, volatile=True)``) names the functions of the file whose calls
    pass ``True`` where every call is in view, else its callers; a function
    that returns or yields the ``Variable`` (a batch iterator's ``__next__``,
    a generator, a helper; ``volatile=True`` or ``volatile=self.test``) sends
    the user to the code that uses its batches (what it returns); a
    ``Variable`` made in a ``lambda``, whose body runs where it is called, to
    the calls of the lambda (named where it is bound to a name).  A
    ``.volatile`` read becomes
    ``not torch.is_grad_enabled()`` (``not x.volatile`` becomes
    ``torch.is_grad_enabled()``): *unsafe*, as it changes which branch runs
    (on purpose).  A write ``x.volatile = v`` is dropped (``pass`` where it is
    the only statement of its block; a comment after it stays): *safe*, as on
    torch >= 0.4 it only warns; only where ``x`` (or ``x[i]``) is evidently a
    tensor (every binding of ``x`` in its function is a ``Variable(...)`` or a
    ``torch.*`` call, or ``x`` is a tensor parameter of a function the file
    registers as a hook) and ``v`` only reads names; on any other object it is
    an attribute the code may read again, and is left alone.  ``self.volatile``
    in a method of a class not derived from torch's (a loader that keeps its
    caller's flag) is that object's own attribute: not flagged at all.  ``volatile=``
    given to a wrapper that the module binds once and that passes ``*args,
    **kwargs`` on to ``Variable`` (``Variable = lambda *a, **k:
    autograd.Variable(*a, **k)``, ``def var(*a, **k): return Variable(*a,
    **k)``) is flagged and fixed as if given to ``Variable``.  A file that
    neither imports torch nor uses ``Variable`` gets no TV002 fix at all.
    """
    if isinstance(node, ast.Call):
        yield from _keyword(ctx, node)
    elif (
        node.attr == "volatile"
        and (ctx.uses_torch or _tensor_evidence(ctx, node.value))
        and not _module_or_class(ctx, node.value)
        and not _own_flag(ctx, node.value)
    ):
        yield _attribute(ctx, node)


def _own_flag(ctx: Context, obj: ast.AST) -> bool:
    """``self.volatile`` in a method of a class not derived from torch's
    (``BatchSentLoader.__init__`` keeps its caller's flag): an attribute of the
    object's own, not a tensor's."""
    if not isinstance(obj, ast.Name):
        return False
    function = ctx.scope.function()
    node = function.node if function is not None else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.args.args \
            or node.args.args[0].arg != obj.id:
        return False
    owner = ctx.statement_parents().get(id(node))
    return isinstance(owner, ast.ClassDef) and not any(
        (ctx.resolve(base) or "").startswith("torch.") for base in owner.bases)


#: attributes and methods of a tensor that, used on the same object in the same
#: function, make ``obj.volatile`` a tensor's flag in a file without torch
_TENSOR_MEMBERS = frozenset(("data", "grad", "grad_fn", "requires_grad", "cuda", "cpu",
                             "numpy", "backward", "detach"))


def _tensor_evidence(ctx: Context, obj: ast.AST) -> bool:
    """``var.data`` (or ``var.grad``, ``var.cuda()``...) in the same function as
    ``var.volatile``: in a file that neither imports torch nor uses ``Variable``
    or ``.backward(``, ``.data`` elsewhere in the text is not enough (jinja2's
    ``eval_ctx.volatile`` sits beside a template node's ``self.data``)."""
    k = key(obj)
    if k is None:
        return False
    cache = ctx.memo.setdefault("TV002-members", {})
    scope = (ctx.scope.function() or ctx.scope.module()).node
    members = cache.get(id(scope))
    if members is None:  # (no data flow needed: ``_flow`` stays unloaded)
        members = cache[id(scope)] = {
            key(sub.value) for sub in ast.walk(scope)
            if isinstance(sub, ast.Attribute) and sub.attr in _TENSOR_MEMBERS
        }
    return k in members


def _fixable_file(ctx: Context) -> bool:
    """Only a file that imports torch or uses ``Variable`` gets TV002 fixes (which
    write ``torch.``): elsewhere ``.volatile`` may be some other object's."""
    if ctx.imports_torch:
        return True
    found = ctx.memo.get("TV002 Variable")  # (a search of the file: once)
    if found is None:
        found = ctx.memo["TV002 Variable"] = bool(match_offsets(ctx.text, r"\bVariable\b"))
    return found  # type: ignore[return-value]


def _module_or_class(ctx: Context, node: ast.AST) -> bool:
    """``torch.Tensor`` or ``Tensor`` (imported, or bound once by ``Tensor =
    torch.Tensor`` in the function or module): ``Tensor.volatile`` is a
    descriptor, not a tensor's flag."""
    if ctx.resolve(node) is not None:
        return True
    if not isinstance(node, ast.Name):
        return False
    values = ctx.flow().assignments_to(node.id)
    return bool(values) and all(
        isinstance(value, (ast.Name, ast.Attribute)) and ctx.resolve(value) is not None
        for value in values
    )


def _keyword(ctx: Context, node: ast.Call) -> Iterator[Report]:
    value = None
    where: ast.AST
    for kw in node.keywords:
        if kw.arg == "volatile":
            value, where = kw.value, kw
            break
    else:
        if len(node.args) < 3 or isinstance(node.args[2], ast.Starred):
            return
        value = where = node.args[2]
    if not _makes_variable(ctx, node.func):
        return
    src = ctx.source
    if isinstance(value, ast.Constant) and value.value is True:
        yield _volatile_true(ctx, node, where)
    elif isinstance(value, ast.Constant) and value.value is False:
        fix = _drop_argument(ctx, node, where) if where is not value else None
        yield Report(where, f"`volatile=False` {_SINCE}; drop the argument", fix)
    else:
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            enabled = one_line(src.text(value.operand))  # volatile=not for_training
        else:
            expr = one_line(src.text(value))
            if not isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                expr = f"({expr})"
            enabled = f"not {expr}"
        what = f"`volatile={shorten(src.text(value), 30)}` {_SINCE}"
        header = f"with torch.set_grad_enabled({enabled}):"
        helper = never_true(ctx, value)
        if helper is not None:  # (every call of the helper is in view: none passes True)
            fix = _drop_argument(ctx, node, where) if where is not value else None
            yield Report(where, f"{what}, and no call of `{helper}()` passes a true "
                                f"`{src.text(value)}`; drop the argument", fix)
            return
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            condition = f"`{shorten(one_line(src.text(value.operand)), 30)}` is false"
        else:
            condition = f"`{shorten(one_line(src.text(value)), 30)}` is true"
        lam = lambda_around(ctx)
        if lam is not None:
            yield Report(where, f"{what}; {lambda_calls(ctx, lam, condition)}")
            return
        fix, region = None, None
        if isinstance(where, ast.keyword) and "\n" not in enabled:
            fix, region = _set_grad_fix(ctx, node, value, header)
        function = _enclosing_def(ctx)
        if fix is not None:
            yield Report(where, f"{what}; run {region} under `{header}`", fix)
        elif function is not None and isinstance(value, ast.Name) and value.id in {
                a.arg for a in (*function.args.posonlyargs, *function.args.args,
                                *function.args.kwonlyargs)} and handed_back(ctx, function, node):
            # (``def to_var(x, volatile=False): return Variable(x, volatile=volatile)``:
            # a region here would end before the caller's forward pass)
            callers = true_callers(ctx, value)
            if not callers and callers_without_grad(ctx, value):
                fix = _drop_argument(ctx, node, where) if where is not value else None
                yield Report(where, f"{what}; the calls of `{function.name}()` that pass "
                                    f"`{value.id}=True` already run without grad "
                                    f"(`@torch.no_grad()`): drop the argument", fix)
                return
            if callers:
                verb = "passes" if len(callers) == 1 else "pass"
                advice = (f"{' and '.join(callers)} {verb} `{value.id}=True` to "
                          f"`{function.name}()`: run the code there that uses what it "
                          f"returns under `with torch.no_grad():`")
            else:
                advice = (f"where a caller of `{function.name}()` passes `{value.id}=True`, "
                          f"run the code that uses what it returns under "
                          f"`with torch.no_grad():`")
            yield Report(where, f"{what}; {advice}")
        elif function is not None and returned(ctx, function, node):
            # (a batch iterator's ``Variable(..., volatile=self.test)``: the model runs
            # on the value elsewhere)
            yield Report(where, f"{what}; {handed_back_advice(ctx, function, condition)}")
        else:
            yield Report(where, f"{what}; use `{header}`")


def _drop_argument(ctx: Context, call: ast.Call, kw: ast.keyword):
    """Remove ``kw`` with the comma before it (or after it, when it comes first)."""
    src = ctx.source
    siblings: List[ast.AST] = sorted(
        [*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset)
    )
    index = siblings.index(kw)
    if index > 0:
        start, end = src.end(siblings[index - 1]), src.end(kw)
    elif len(siblings) > 1:
        start, end = src.start(kw), src.start(siblings[1])
    else:
        start, end = src.start(kw), src.end(kw)
    if has_comment(src.between(start, end)):
        return None
    return Fix((Edit(start, end, ""),), SAFE)


_NOT_LOOSE = (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Attribute, ast.Subscript, ast.Call,
              ast.Await)


def _attribute(ctx: Context, node: ast.Attribute) -> Report:
    quoted = ctx.source.quote(node)
    if isinstance(node.ctx, ast.Load):
        parent = ctx.parent
        replaced: ast.AST = node
        new = "not torch.is_grad_enabled()"
        advice = f"use `{new}`"
        if (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)
                and not has_comment(ctx.source.text(parent))):
            # ``not x.volatile``: ``torch.is_grad_enabled()``, not ``not (not ...)``
            replaced, new = parent, "torch.is_grad_enabled()"
            advice = f"use `{new}` for `{ctx.source.quote(parent)}`"
        elif isinstance(parent, _NOT_LOOSE) and not (
            isinstance(parent, ast.Call) and parent.func is not node
        ):
            new = f"({new})"
        fix = None
        if _fixable_file(ctx):
            fix = Fix((ctx.source.replace(replaced, new),), UNSAFE, ("torch",))
        return Report(node, f"`{quoted}` is always False since PyTorch 0.4; {advice}", fix)
    parent = ctx.parent
    value = getattr(parent, "value", None) if isinstance(parent, ast.Assign) else None
    if isinstance(value, ast.Constant) and value.value is True:
        advice = "use `with torch.no_grad():`"
    elif value is not None and not isinstance(value, ast.Constant):
        advice = (f"run the code that uses it under `with torch.set_grad_enabled(not "
                  f"{one_line(ctx.source.text(value))}):`")
    else:
        advice = "use `with torch.no_grad():` where gradients are not needed"
    drop = _drop_setting(ctx, node)
    if drop is not None:
        if isinstance(value, ast.Constant) and value.value is False:
            advice = "drop the statement"
        else:
            advice = f"drop the statement (it does nothing now) and {advice}"
        return Report(node, f"setting `{quoted}` {_SINCE}; {advice}", Fix((drop,), SAFE))
    return Report(node, f"setting `{quoted}` {_SINCE}; {advice}")


#: values whose evaluation does nothing but read (dropping them changes nothing)
_PLAIN = (ast.Constant, ast.Name)


def _drop_setting(ctx: Context, node: ast.Attribute) -> Optional[Edit]:
    """The edit that removes ``x.volatile = v`` where ``x`` is evidently a tensor
    and ``v`` only reads (a constant, a name, ``not`` or attributes of one)."""
    statement = ctx.parent
    if not (isinstance(statement, ast.Assign) and statement.targets == [node]
            and _only_reads_names(statement.value) and _only_reads_names(node.value)
            and _fixable_file(ctx) and _a_tensor(ctx, node.value)):
        return None
    chain = [ctx.tree, *ctx.parents]
    if len(chain) < 2:
        return None
    return drop_statement(ctx.source, chain[-2], statement)  # type: ignore[arg-type]


def _only_reads_names(expr: ast.AST) -> bool:
    while True:
        if isinstance(expr, _PLAIN):
            return True
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            expr = expr.operand
        elif isinstance(expr, ast.Attribute):
            expr = expr.value
        elif isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
            expr = expr.value
        else:
            return False


#: hook registrations, and the index of the first parameter of the hook that
#: holds tensors (a module hook's first one is the module)
_HOOKS = {"register_hook": 0, "register_forward_hook": 1, "register_forward_pre_hook": 1,
          "register_backward_hook": 1, "register_full_backward_hook": 1,
          "register_full_backward_pre_hook": 1}
#: torch functions whose result is not a tensor (a module, a device, a size...)
_NOT_TENSORS = re.compile(r"torch\.(?:[a-z_]+\.)+|torch\.(?:Size|device|dtype|Generator"
                          r"|is_\w+|numel|typename|get_\w+|set_\w+)$")


def _a_tensor(ctx: Context, obj: ast.AST) -> bool:
    """``x`` (or ``x[0]``) is evidently a tensor: every binding of ``x`` in its
    function or module is a ``Variable(...)`` or a call of a ``torch.*``
    function (``.cuda()`` of one), or ``x`` is a parameter of a hook that the
    file registers with ``register_forward_hook(hook)``/``register_hook``."""
    if isinstance(obj, ast.Subscript):
        obj = obj.value
    if not isinstance(obj, ast.Name):
        return False
    function = ctx.scope.function()
    if function is not None and obj.id in _hook_parameters(ctx, function.node):
        return not ctx.flow().assignments_to(obj.id)
    values = ctx.flow().assignments_to(obj.id)
    if not values:
        return False
    for value in values:
        while (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
               and value.func.attr in ("cuda", "cpu", "float", "double", "long", "detach")):
            value = value.func.value
        if not isinstance(value, ast.Call):
            return False
        name = ctx.resolve(value.func)
        if not (_makes_variable(ctx, value.func) or name is not None and name.startswith(
                "torch.") and not _NOT_TENSORS.match(name)):
            return False
    return True


def _hook_parameters(ctx: Context, function: ast.AST) -> Set[str]:
    """The parameters of ``function`` that hold tensors when the file registers it
    as a hook (``m.register_forward_hook(function)``, ``self.function``)."""
    hooks = ctx.memo.get("TV002 hooks")
    if hooks is None:
        hooks = ctx.memo["TV002 hooks"] = {}
        for sub in ast.walk(ctx.tree):
            if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr in _HOOKS and len(sub.args) == 1):
                arg = sub.args[0]
                if isinstance(arg, ast.Name):
                    hooks.setdefault(arg.id, _HOOKS[sub.func.attr])
                elif (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name)
                      and arg.value.id == "self"):
                    hooks.setdefault(arg.attr, _HOOKS[sub.func.attr] + 1)
    first = hooks.get(getattr(function, "name", None))  # type: ignore[union-attr]
    if first is None:
        return set()
    args = function.args  # type: ignore[attr-defined]
    return {a.arg for a in [*args.posonlyargs, *args.args][first:]}


# ---------------------------------------------------------------------------
# volatile=True: @torch.no_grad() on a function that only reads the result

def _volatile_true(ctx: Context, call: ast.Call, where: ast.AST) -> Report:
    what = f"`volatile=True` {_SINCE} (autograd records the graph)"
    lam = lambda_around(ctx)
    if lam is not None:  # (its body runs where it is called)
        return Report(where, f"{what}; {lambda_calls(ctx, lam)}")
    function = _enclosing_def(ctx)
    if function is not None and isinstance(where, ast.keyword):
        fix = _no_grad_fix(ctx, function)
        if fix is not None:
            if fix.safety == SAFE:
                return Report(where, f"{what}; the code already runs without grad: drop it",
                              fix)
            return Report(where, f"{what}; decorate `{function.name}()` with "
                                 "`@torch.no_grad()`", fix)
    if isinstance(where, ast.keyword) and _fixable_file(ctx):
        from ..analysis.grad import grad_disabled

        if grad_disabled(ctx.parents, ctx.resolve):  # ``with torch.no_grad():`` already
            drop = _drop_argument(ctx, call, where)
            if drop is not None:
                return Report(where, f"{what}; the code already runs without grad: drop it",
                              drop)
    if function is not None and returned(ctx, function, call):
        return Report(where, f"{what}; {handed_back_advice(ctx, function)}")
    loop = _evaluation_loop(ctx)
    names = _target_names(ctx, call)
    if loop is not None:
        kind = "while" if isinstance(loop, ast.While) else "for"
        advice = f"run the `{kind}` loop of line {loop.lineno} under `with torch.no_grad():`"
        fix = _loop_fix(ctx, loop, lambda sub: _true_volatile(sub) is not None,
                        "with torch.no_grad():") if isinstance(where, ast.keyword) else None
        if fix is not None:
            return Report(where, f"{what}; {advice}", fix)
    elif names and _bound_itself(_statement_value(ctx), call):
        advice = (f"run the code that uses `{names[0]}`{_read_on(ctx, names[:1], call)} "
                  f"under `with torch.no_grad():`")
    elif names:  # (``mu = self.actor(Variable(state, volatile=True))``: ``mu`` is computed
        computed = ", ".join(f"`{n}`" for n in names[:-1]) + (" and " if names[1:] else "") \
            + f"`{names[-1]}`"
        used = f"`{names[0]}`" if len(names) == 1 else "them"
        if _cut(_statement_value(ctx)):  # (``.data``: what uses it was never volatile)
            advice = f"run this statement, which computes {computed}, under " \
                     "`with torch.no_grad():`"
        else:
            advice = (f"run this statement, which computes {computed}, and the code that "
                      f"uses {used}{_read_on(ctx, names, call)} under `with torch.no_grad():`")
    else:
        advice = "run the code under `with torch.no_grad():`"
    return Report(where, f"{what}; {advice}")


def _cut(value: Optional[ast.AST]) -> bool:
    """``E.data`` or ``E.detach()``: a value with no graph, which made nothing it
    was used in volatile on 0.3."""
    return isinstance(value, ast.Attribute) and value.attr == "data" or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
        and value.func.attr == "detach" and not value.args)


def _evaluation_loop(ctx: Context) -> Optional[ast.AST]:
    """The innermost loop around the node, in its function or module, when
    nothing in it trains and every ``Variable`` it makes is volatile: the whole
    loop may run without autograd (an evaluation loop, at a script's top level
    or inside a training function; not a loop that also makes the inputs of a
    later backward pass, as a DQN's target-network step does)."""
    from ..analysis.nodes import every_node

    for parent in reversed(ctx.parents):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None
        if isinstance(parent, (ast.For, ast.While)):
            loops = ctx.memo.setdefault("TV002 loops", {})  # (asked once per wrap in it)
            evaluates = loops.get(id(parent))  # type: ignore[union-attr]
            if evaluates is None:
                evaluates = not trains(ctx, parent) and not any(
                    isinstance(sub, ast.Call) and _true_volatile(sub) is None
                    and _makes_variable(ctx, sub.func) for sub in every_node(parent))
                loops[id(parent)] = evaluates  # type: ignore[index]
            return parent if evaluates else None
    return None


def _true_volatile(call: ast.Call) -> Optional[ast.keyword]:
    """The keyword ``volatile=True`` of ``call``, if it has one."""
    for kw in call.keywords:
        if kw.arg == "volatile" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
            return kw
    return None


def _enclosing_def(ctx: Context) -> Optional[ast.AST]:
    """The innermost ``def`` around the node (not an ``async def``: ``no_grad``
    as a decorator would cover only the making of the coroutine)."""
    return innermost(ctx.parents, ast.FunctionDef,
                     (ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))


def _read_on(ctx: Context, names: List[str], call: ast.Call) -> str:
    """`` (lines 45 to 52)``, the extent of the statements after the call's that
    read one of ``names`` (:func:`_extent`), or `` (lines 45 and 50)``, the first
    three lines where its function (or module) reads one; ``""`` when there are
    none."""
    from ..analysis.lines import lines_matching
    from ..analysis.nodes import walk_hits

    scope = ctx.flow().node  # (only the statements on lines that spell a name)
    statement = innermost(ctx.parents, ast.stmt)  # (its own lines are not a later use)
    last = max(call.end_lineno or call.lineno, getattr(statement, "end_lineno", 0) or 0)
    lines = sorted({n.lineno for name in names
                    for n in walk_hits(scope, lines_matching(ctx.text, name))
                    if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                    and n.lineno > last and _bound_there(ctx, n, statement)})
    if not lines:
        return ""
    extent = _extent(ctx, statement, lines, names) if len(lines) > 1 else None
    if extent is not None:
        return f" (lines {extent[0]} to {extent[1]})"
    shown = ", ".join(str(n) for n in lines[:3]) + (", ..." if len(lines) > 3 else "")
    return f" (line{'s' if len(lines) > 1 else ''} {shown})"


def _bound_there(ctx: Context, use: ast.Name, statement: Optional[ast.AST]) -> bool:
    """Whether the binding made by ``statement`` may reach ``use`` (a read of the
    name a later ``for state in memory`` binds again is not one of its uses);
    ``True`` where the flow does not tell."""
    if statement is None:
        return True
    defs = ctx.flow().reaching(use)
    if not defs:
        return True
    first, end = statement.lineno, getattr(statement, "end_lineno", None) or statement.lineno
    return any(first <= getattr(d.node, "lineno", first) <= end for d in defs)


def _extent(ctx: Context, statement: Optional[ast.AST], lines: List[int],
            names: List[str]) -> Optional[Tuple[int, int]]:
    """The first and last line of the statements after ``statement``, in its own
    block and before one that binds one of ``names`` again, that hold the uses
    on ``lines`` (a loop that reads the name on its lines counts whole), where
    none of them trains; else ``None`` (a use outside the block, or a backward
    pass among them: the lines are listed instead)."""
    from .shared.blocks import body_holding

    parent = ctx.file_parents().get(id(statement)) if statement is not None else None
    body = body_holding(parent, statement) if parent is not None else None
    if body is None:
        return None
    after = body[body.index(statement) + 1:]
    rebound = next((i for i, s in enumerate(after) if isinstance(s, ast.Assign) and any(
        isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Store)
        for target in s.targets for n in ast.walk(target))), None)
    if rebound is not None:  # (the uses after it are another value's)
        lines = [n for n in lines if n < after[rebound].lineno]
        after = after[:rebound]
    held = [s for s in after if any(s.lineno <= n <= (s.end_lineno or s.lineno)
                                    for n in lines)]
    if not held or sum(1 for n in lines if any(
            s.lineno <= n <= (s.end_lineno or s.lineno) for s in held)) != len(lines):
        return None
    first, last = after.index(held[0]), after.index(held[-1])
    span = after[first:last + 1]
    if any(trains(ctx, s) for s in span):
        return None
    return span[0].lineno, span[-1].end_lineno or span[-1].lineno


def _bound_itself(value: Optional[ast.AST], call: ast.Call) -> bool:
    """The assignment binds the ``Variable`` itself (``x = Variable(...)``, ``x, y =
    Variable(...), ...``), not something computed from it."""
    return value is call or isinstance(value, ast.Tuple) and call in value.elts


def _statement_value(ctx: Context) -> Optional[ast.AST]:
    """The value of the assignment statement around the node."""
    return getattr(innermost(ctx.parents, ast.stmt), "value", None)


def _target_names(ctx: Context, call: ast.Call) -> List[str]:
    """The names the wrapped value is bound to (``x = Variable(...)``; every name
    a call's result is unpacked into)."""
    child: ast.AST = call
    below: ast.AST = call  # (the child of ``child``: an item of a tuple value)
    for parent in reversed(ctx.parents):
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            value = parent.value
            names = []
            for target in targets:
                if isinstance(target, ast.Name) and value is child:
                    names.append(target.id)
                elif (isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)
                      and value is child and below in value.elts
                      and len(target.elts) == len(value.elts)):
                    elt = target.elts[value.elts.index(below)]
                    if isinstance(elt, ast.Name):
                        names.append(elt.id)
                elif isinstance(target, (ast.Tuple, ast.List)) and value is child \
                        and not isinstance(value, (ast.Tuple, ast.List)):
                    # (``logit, (hx, cx) = model(Variable(s, volatile=True), h)``)
                    names.extend(sub.id for sub in ast.walk(target) if isinstance(sub, ast.Name))
            return names
        if isinstance(parent, ast.stmt):
            return []
        below, child = child, parent
    return []


def _volatile_calls(ctx: Context, function: ast.AST) -> List[Tuple[ast.Call, ast.AST]]:
    """``(call, keyword)`` of every ``Variable(..., volatile=True)`` of the function's own body."""
    found = []
    for sub in function_body(ctx, function)[0]:
        if not isinstance(sub, ast.Call):
            continue
        kw = _true_volatile(sub)
        if kw is not None and _makes_variable(ctx, sub.func):
            found.append((sub, kw))
    return found


def _no_grad_fix(ctx: Context, function: ast.AST) -> Optional[Fix]:
    """Drop every ``volatile=True`` of ``function`` and decorate it with
    ``@torch.no_grad()``; every finding of the function gets this same fix, which
    the fixer applies once.  Only dropping, *safe*, when grad is already off."""
    if not _fixable_file(ctx):
        return None
    cache = ctx.memo.setdefault("TV002-no-grad", {})
    if id(function) in cache:
        return cache[id(function)]
    cache[id(function)] = None
    calls = _volatile_calls(ctx, function)
    edits: List[Edit] = []
    for call, kw in calls:
        drop = _drop_argument(ctx, call, kw)
        if drop is None:
            return None
        edits.extend(drop.edits)
    if not edits:
        return None
    from ..analysis.grad import grad_disabled

    if grad_disabled([function], ctx.resolve):  # already @torch.no_grad()
        fix = Fix(tuple(edits), SAFE)
    else:
        decorator = _decorator_edit(ctx, function)
        if decorator is None or not _only_reads(ctx, function, calls):
            return None
        fix = Fix((decorator, *edits), UNSAFE, ("torch",))
    cache[id(function)] = fix
    return fix


def _decorator_edit(ctx: Context, function: ast.AST) -> Optional[Edit]:
    line = ctx.source.lines[function.lineno - 1]
    indent = line[:len(line) - len(line.lstrip())]
    if not line[len(indent):].startswith("def ") or "\t" in indent and " " in indent:
        return None
    return Edit((function.lineno, 0), (function.lineno, 0), f"{indent}@torch.no_grad()\n")


def _only_reads(ctx: Context, function: ast.AST, calls: List[Tuple[ast.Call, ast.AST]]) -> bool:
    """No training in the function (nor in a function of the file it calls), and
    no wrapped value leaves it: the whole function may run without autograd."""
    if trains(ctx, function):
        return False
    nodes, parents = function_body(ctx, function)
    escaped = escaping_names(nodes)
    for call, _ in calls:
        if escapes(call, parents, escaped):
            return False
    return True


# ---------------------------------------------------------------------------
# torch's Variable, or a module-level wrapper that passes everything on to it

def _makes_variable(ctx: Context, func: ast.AST) -> bool:
    """``Variable`` resolved to torch's, or a name the module binds once to a
    wrapper that passes ``*args, **kwargs`` on to it (``Variable = lambda *a,
    **k: autograd.Variable(*a, **k).cuda() if USE_CUDA else ...``, ``def
    var(*a, **k): return Variable(*a, **k)``), not rebound where it is called."""
    if isinstance(func, ast.Name):
        wrappers = ctx.memo.get("TV002 wrappers")
        if wrappers is None:
            wrappers = ctx.memo["TV002 wrappers"] = pass_through_wrappers(
                ctx.tree, lambda f: ctx.resolve(f) == VARIABLE)
        if func.id in wrappers:  # type: ignore[operator]
            function = ctx.scope.function()
            if function is None:
                return True
            args = function.node.args  # type: ignore[attr-defined]
            params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                      args.vararg, args.kwarg) if a is not None}
            return func.id not in params and not ctx.flow().assignments_to(func.id)
    return ctx.resolve(func) == VARIABLE


# ---------------------------------------------------------------------------
# a loop (or a function's body) put under ``with torch.no_grad():`` or
# ``with torch.set_grad_enabled(not <expr>):``

def _loop_fix(ctx: Context, loop: ast.AST, wrapped: Callable[[ast.Call], bool],
              header: str, statements: Optional[List[ast.stmt]] = None) -> Optional[Fix]:
    """Every ``volatile=`` keyword of the ``Variable`` calls in ``loop`` for which
    ``wrapped`` holds dropped, and the loop (or ``statements``: a function's
    body) put under ``header``; *unsafe*.  Every finding of the loop gets this
    same fix, which the fixer applies once."""
    if not _fixable_file(ctx):
        return None
    cache = ctx.memo.setdefault("TV002 loop fixes", {})
    if (id(loop), header) in cache:
        return cache[(id(loop), header)]  # type: ignore[no-any-return]
    cache[(id(loop), header)] = None
    from ..analysis.nodes import every_node

    edits: List[Edit] = []
    for sub in every_node(loop):
        if isinstance(sub, (ast.Yield, ast.YieldFrom, ast.Await)):
            return None  # (suspended inside the block, it would leave grad off outside)
        if isinstance(sub, ast.Call) and wrapped(sub) and _makes_variable(ctx, sub.func):
            kw = next(k for k in sub.keywords if k.arg == "volatile")
            drop = _drop_argument(ctx, sub, kw)
            if drop is None or drop.edits[0].start[0] != drop.edits[0].end[0]:
                return None  # (an edit across lines would cross the indentation's)
            edits.extend(drop.edits)
    around = [p for p in ctx.parents if p is not loop]
    if statements is None:
        wrap = wrap_statements(ctx.source, [loop], header, around)  # type: ignore[list-item]
    else:
        wrap = wrap_statements(ctx.source, statements, header, [loop, *statements])
    if wrap is None or not edits:
        return None
    fix = Fix((*wrap, *edits), UNSAFE, ("torch",))
    cache[(id(loop), header)] = fix
    return fix


def _set_grad_fix(ctx: Context, call: ast.Call, value: ast.AST,
                  header: str) -> Tuple[Optional[Fix], Optional[str]]:
    """``volatile=<expr>``: the innermost loop around the call, or else the body
    of the function around it, under ``with torch.set_grad_enabled(not <expr>):``
    where every ``volatile=`` of its ``Variable`` calls is the same expression,
    none asks for ``requires_grad``, the expression's names are bound before
    the region (not in the loop; parameters of the function, rebound nowhere in
    it), and the wrapped value does not leave the function (returned, stored,
    appended: the graph is built where it goes, not in the region)."""
    from ..analysis.nodes import every_node

    text = ctx.source.text(value)
    names = {sub.id for sub in ast.walk(value) if isinstance(sub, ast.Name)}
    if any(isinstance(sub, (ast.Call, ast.Await, ast.NamedExpr, ast.Lambda))
           or isinstance(sub, ast.Attribute) and sub.attr == "volatile"
           for sub in ast.walk(value)):
        return None, None  # (evaluated once instead of at each call; ``x.volatile``
        # passed on: a region of its own would undo the caller's ``no_grad``)

    def same(sub: ast.Call) -> bool:
        kw = next((k for k in sub.keywords if k.arg == "volatile"), None)
        return kw is not None and ctx.source.text(kw.value) == text

    def uniform(region: ast.AST) -> bool:
        for sub in every_node(region):
            if isinstance(sub, ast.keyword) and sub.arg == "requires_grad":
                return False
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id in names:
                return False
            if (isinstance(sub, ast.Call) and any(k.arg == "volatile" for k in sub.keywords)
                    and not same(sub) and _makes_variable(ctx, sub.func)):
                return False
        return True

    for parent in reversed(ctx.parents):
        if isinstance(parent, (ast.For, ast.While)):
            nodes, parents = function_body(ctx, _enclosing_def(ctx) or ctx.tree)
            if not uniform(parent) or escapes(call, parents, escaping_names(nodes)):
                return None, None  # (appended, returned: the graph is built elsewhere)
            kind = "while" if isinstance(parent, ast.While) else "for"
            return (_loop_fix(ctx, parent, same, header),
                    f"the `{kind}` loop of line {parent.lineno}")
        if isinstance(parent, ast.FunctionDef):
            params = {a.arg for a in (*parent.args.posonlyargs, *parent.args.args,
                                      *parent.args.kwonlyargs)}
            body = parent.body[1:] if docstring(parent.body[0]) else parent.body
            if not (body and names <= params and uniform(parent)
                    and not any(escapes(c, function_body(ctx, parent)[1],
                                        escaping_names(function_body(ctx, parent)[0]))
                                for c in every_node(parent) if isinstance(c, ast.Call)
                                and same(c) and _makes_variable(ctx, c.func))):
                return None, None
            return (_loop_fix(ctx, parent, same, header, body),
                    f"the body of `{parent.name}()`")
        if isinstance(parent, (ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            break
    return None, None
