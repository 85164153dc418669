"""Learning-rate schedulers and the training loops that step them, for TV130
(``scheduler.step()`` before the optimizer's) and TV151 (``scheduler.step(epoch)``):
what a name is bound to, whether a statement steps an optimizer (directly or in a
function of the file), the loop body a statement is in, and the replacement of
``S.step(e)`` in a loop ``for e in range(n)``."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ...analysis.callers import argument
from ...analysis.context import Context
from ...analysis.reaching import continues, encloses
from ...analysis.resolve import builtin_call
from ...source.text import Edit
from .blocks import wrap_statements

PREFIX = "torch.optim.lr_scheduler."
#: schedulers whose ``step`` takes a metric and is meant to follow validation
METRIC = frozenset((PREFIX + "ReduceLROnPlateau",))
LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def bound(ctx: Context, node: ast.AST, scope: ast.AST,
          depth: int = 0) -> Optional[List[ast.AST]]:
    """The values every binding of the name ``node`` (read in ``scope``) assigns:
    the function's own, or for a name it does not bind, the module's; a
    parameter every caller gives such a name (the callers all in the file: the
    project's modules that may import the function are searched for calls),
    and a call of a function of the file that returns a call
    (``init_lr_scheduler(opt, optim)`` returning ``StepLR(...)``), are followed
    (twice at most)."""
    if not isinstance(node, ast.Name) or depth > 2:
        return None
    flow = ctx.flow_of(scope)
    defs = flow.reaching(node)
    if defs == () and scope is not ctx.tree and node.id not in flow.bound:
        defs = ctx.flow_of(ctx.tree).defs(node.id)
    if defs and len(defs) == 1 and defs[0].kind == "param" \
            and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        from ...analysis.callers import passed_arguments

        passed = passed_arguments(ctx, defs[0].node, scope)
        found: List[ast.AST] = []
        for module, expr, at in passed or ():
            if module is not ctx:
                return None  # (a caller in another module: its names are not read here)
            got = bound(ctx, expr, at, depth + 1) if isinstance(expr, ast.Name) else \
                _returned_call(ctx, expr) or [expr]
            if got is None:
                return None
            found += got
        return found or None
    if not defs or any(d.kind != "assign" or d.value is None for d in defs):
        return None
    values: List[ast.AST] = []
    for d in defs:
        made = _returned_call(ctx, d.value)
        values += made if made is not None else [d.value]
    return values


def _returned_call(ctx: Context, value: ast.AST) -> Optional[List[ast.AST]]:
    """The calls a function of the file returns, for ``value`` a call of it whose
    every ``return`` gives one (a factory: ``def init_lr_scheduler(opt, optim):
    return StepLR(optim, ...)``); else ``None``."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return None
    func = ctx.defined_once().get(value.func.id)
    if not isinstance(func, ast.FunctionDef) or func.decorator_list:
        return None
    returns = [n.value for n in _own(func) if isinstance(n, ast.Return)]
    if not returns or not all(isinstance(r, ast.Call) for r in returns):
        return None
    return returns  # type: ignore[return-value]


def made_by(ctx: Context, node: ast.AST, scope: ast.AST, test) -> bool:
    """Every binding of the name ``node`` is a call of a callable whose qualified
    name passes ``test``."""
    found = _makers(ctx, node, scope)
    return bool(found) and all(test(name) for name in found)


def _makers(ctx: Context, node: ast.AST, scope: ast.AST,
            depth: int = 0) -> Optional[List[str]]:
    """The qualified names of the callables whose calls every binding of the name
    ``node`` is, as :func:`bound` finds them; a parameter is also followed into
    the callers in other modules of the project (``fit(..., scheduler)`` from the
    script that makes the scheduler), each read in its own module."""
    found = bound(ctx, node, scope, depth)
    if found is None and isinstance(node, ast.Name) and depth <= 2 \
            and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        defs = ctx.flow_of(scope).reaching(node)
        if not defs or len(defs) != 1 or defs[0].kind != "param":
            return None
        from ...analysis.callers import passed_arguments

        names: List[str] = []
        for module, expr, at in passed_arguments(ctx, defs[0].node, scope) or ():
            if isinstance(expr, ast.Name):
                got = _makers(module, expr, at, depth + 1)
            else:
                calls = _returned_call(module, expr) or [expr]
                got = [module.resolve(c.func) or "" for c in calls if isinstance(c, ast.Call)]
                got = got if len(got) == len(calls) else None
            if not got:
                return None
            names += got
        return names or None
    if not found or not all(isinstance(v, ast.Call) for v in found):
        return None
    return [ctx.resolve(v.func) or "" for v in found]  # type: ignore[attr-defined]


def is_scheduler(name: str) -> bool:
    return name.startswith(PREFIX) and name not in METRIC


#: schedulers whose ``step`` has no epoch that warns: their own ``step`` takes it
#: (``CosineAnnealingWarmRestarts``, for a fraction of an epoch) or nothing
_OWN_STEP = frozenset(PREFIX + name for name in (
    "CosineAnnealingWarmRestarts", "SequentialLR", "ChainedScheduler", "LRScheduler",
    "_LRScheduler"))


def warns_for_epoch(name: str) -> bool:
    """``name`` is a scheduler whose ``step(epoch)`` warns on PyTorch 2.13."""
    return is_scheduler(name) and name not in _OWN_STEP


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
    if isinstance(node, ast.Subscript):  # (``opts[0].step()`` of ``train(model, [o1, o2])``)
        item = _listed_item(ctx, node, scope, via)
        return item is not None and _optimizer(ctx, *item)
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


def _listed_item(ctx: Context, node: ast.Subscript, scope: ast.AST, via: _Via,
                 depth: int = 0) -> Optional[Tuple[ast.AST, ast.AST, _Via]]:
    """The item ``node`` (``opts[0]``, a constant index of a name) reads of the list or
    tuple display the name is bound to, in the function or - a parameter - in the
    call ``via`` that entered it, with the scope and entry to read it in."""
    index, listed = node.slice, node.value
    if not (isinstance(index, ast.Constant) and type(index.value) is int
            and isinstance(listed, ast.Name)) or depth > 2:
        return None
    defs = ctx.flow_of(scope).reaching(listed)
    if not defs or len(defs) != 1:
        return None
    display, at, outer = None, scope, via
    if defs[0].kind == "assign":
        display = defs[0].value
    elif defs[0].kind == "param" and via is not None:
        call, caller, outer = via
        passed = argument(call, scope, defs[0].node)  # type: ignore[arg-type]
        if passed is None or passed[1]:
            return None
        display, at = passed[0], caller
        if isinstance(display, ast.Name):  # (``opts = [o1, o2]`` in the caller, passed on)
            return _listed_item(ctx, ast.Subscript(value=display, slice=index), at, outer,
                                depth + 1)
    if not isinstance(display, (ast.List, ast.Tuple)) or \
            any(isinstance(e, ast.Starred) for e in display.elts) or \
            not -len(display.elts) <= index.value < len(display.elts):
        return None
    return display.elts[index.value], at, outer


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


#: the schedulers 0.3 had (each one's rate at an epoch is a closed form of it), and
#: how many parameters come before ``last_epoch`` in its constructor
CLOSED_FORM = {
    PREFIX + "LambdaLR": 2, PREFIX + "StepLR": 3, PREFIX + "MultiStepLR": 3,
    PREFIX + "ExponentialLR": 2, PREFIX + "CosineAnnealingLR": 3,
}


def epoch_argument(node: ast.AST) -> Optional[Tuple[ast.AST, Optional[ast.expr]]]:
    """The receiver of ``X.step()``, ``X.step(a)`` or ``X.step(epoch=a)``, and
    ``a`` (``None`` for the first); ``None`` for any other call."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "step"):
        return None
    args, keywords = node.args, node.keywords
    if not args and not keywords:
        return node.func.value, None
    if len(args) == 1 and not keywords and not isinstance(args[0], ast.Starred):
        return node.func.value, args[0]
    if not args and len(keywords) == 1 and keywords[0].arg == "epoch":
        return node.func.value, keywords[0].value
    return None


def _stepped(ctx: Context) -> Dict[str, int]:
    """How many calls ``X.step(...)`` the file makes on each name ``X``."""
    found = ctx.memo.get("scheduler steps")
    if found is None:
        found = ctx.memo["scheduler steps"] = {}
        for node in ast.walk(ctx.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "step" and isinstance(node.func.value, ast.Name):
                name = node.func.value.id
                found[name] = found.get(name, 0) + 1
    return found  # type: ignore[return-value]


def epoch_loop(ctx: Context, node: ast.Call, stmt: ast.stmt, epoch: ast.expr,
               scope: ast.AST) -> Optional[Tuple[ast.For, int]]:
    """The loop ``for e in range(n)`` (or ``range(0, n)``, ``range(1, n)``, the start
    also a name every binding of which assigns it: the start, 0 or 1, comes second)
    whose body holds the statement ``stmt`` of the call
    ``S.step(e)`` itself, ``epoch`` being ``e`` as that loop binds it (``None``:
    ``S.step()``, with no epoch); the loop has
    no ``continue`` of its own (the call runs once an epoch), no other call in the
    file steps a name ``S``, and ``S`` is bound only to schedulers of
    :data:`CLOSED_FORM` made with no ``last_epoch``, outside the loop and inside
    every loop around it in ``scope`` (one made per run of the epochs); else
    ``None``."""
    loop = loop_of(ctx, stmt)
    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name) or \
            epoch is not None and (not isinstance(epoch, ast.Name)
                                   or epoch.id != loop.target.id):
        return None
    it = loop.iter
    if not any(builtin_call(it, ctx.scope, "range", count) for count in (1, 2)):
        return None
    start = 0
    if len(it.args) == 2:
        first = it.args[0]  # (or a name bound only to it: ``start_epoch = 0``)
        starts = {v.value if isinstance(v, ast.Constant) and type(v.value) is int else None
                  for v in (bound(ctx, first, scope) if isinstance(first, ast.Name) else [first])
                  or [None]}
        if len(starts) != 1 or not starts <= {0, 1}:
            return None
        start = starts.pop()  # type: ignore[assignment]
    if continues(loop, stmt.end_lineno or stmt.lineno):  # (one after it cannot skip it)
        return None
    defs = ctx.flow_of(scope).reaching(epoch) if epoch is not None else None
    if epoch is not None and (not defs or len(defs) != 1 or defs[0].kind != "for"
                              or defs[0].value is not it):
        return None
    receiver = node.func.value  # type: ignore[attr-defined]
    made = bound(ctx, receiver, scope)
    if not made or _stepped(ctx).get(receiver.id) != 1:
        return None
    parents = ctx.file_parents()
    around = []
    here = parents.get(id(loop))
    while here is not None and here is not scope:
        if isinstance(here, LOOPS):
            around.append(here)
        here = parents.get(id(here))
    for value in made:
        if not isinstance(value, ast.Call):
            return None
        before = CLOSED_FORM.get(ctx.resolve(value.func) or "")
        if before is None or len(value.args) > before or any(
                kw.arg in (None, "last_epoch") for kw in value.keywords) or any(
                isinstance(a, ast.Starred) for a in value.args) or \
                encloses(loop, value) or not all(encloses(outer, value) for outer in around):
            return None
    return loop, start


def lag_edits(ctx: Context, stmt: ast.stmt, loop: ast.For,
              start: int) -> Optional[Tuple[Edit, ...]]:
    """The edits that put ``S.step()`` (the statement ``stmt`` of ``loop``, ``for e
    in range(start, n)``) under ``if e > start:``: the first call skipped, as
    0.3's scheduler, one call behind today's, would have it."""
    test = f"if {loop.target.id} > {start}:"  # type: ignore[attr-defined]
    return wrap_statements(ctx.source, [stmt], test, [loop, stmt])


def epoch_edits(ctx: Context, node: ast.Call, stmt: ast.stmt, loop: ast.For,
                start: int) -> Optional[Tuple[Edit, ...]]:
    """The edits that replace ``S.step(e)`` (the statement ``stmt`` of ``loop``,
    ``for e in range(start, n)``) by what gives 0.3's rates with no argument:
    ``if e > 0: S.step()`` from 0 (the call, its epoch argument dropped, under
    the test), ``S.step()`` from 1."""
    src = ctx.source
    drop = Edit(src.end(node.func), src.end(node), "()")
    if start == 1:
        return (drop,)
    test = f"if {loop.target.id} > 0:"  # type: ignore[attr-defined]
    wrapped = wrap_statements(src, [stmt], test, [loop, stmt])
    return None if wrapped is None else (*wrapped, drop)
