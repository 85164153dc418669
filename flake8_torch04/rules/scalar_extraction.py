"""TV003: ``loss.data[0]`` scalar extraction, and loss accumulation that keeps graphs alive."""
from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, List, Optional, Tuple

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.flow import Flow
from ..analysis.grad import enclosing_loop, grad_disabled
from ..analysis.nodes import if_tests
from ..analysis.registry import rule
from ..analysis.resolve import Scope, builtin_call, key
from ..analysis.scalars import Evidence, is_zero, loss_name, peel
from ..source.text import Edit, has_comment, one_line
from .shared.calls import method_call


@rule("TV003")
def scalar_extraction(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``loss.data[0]`` and loss accumulation that keeps every graph alive.

    ## What it does
    Form (a): flags ``E.data[0]``, ``E[0]``, ``E.data.cpu().numpy()[0]``,
    ``E.cpu().data.numpy()[0]``, ``E.data.tolist()[0]``, ``E.data.cpu()[0]`` and the
    like, where ``E`` held a one-element tensor under PyTorch 0.3: a loss by name
    (a word of the name, split on ``_`` and case changes, is ``loss``, ``cost``,
    ``nll``, ``kl``, or GAN code's ``errD``/``err_real``), a full reduction
    (``x.sum()``, ``x.norm(2)``, ``torch.mean(x)``), a loss call (``criterion(...)``,
    ``F.nll_loss(...)``, an ``nn.*Loss`` instance), a key assigned or accumulated
    from one of those in the same function (``total_loss += loss.data``), a key
    ``.backward()`` is called on, a term (through ``+ - * /``, not calls) of what
    such a key is assigned when the call passes no gradient (``J = L - a * c + U``
    then ``J.backward()``: a one-element ``J`` has one-element terms), or a name
    whose value is evidently a 0-dim
    tensor by the value facts, bound from ``.data``, an element, arithmetic or a
    method's result (``fval = f(True).data`` where ``f`` is the ``get_loss``
    every caller passes, returning ``loss.mean()``: see "How values are
    followed" in docs/how-it-works.md), or a parameter (or a loop's variable)
    that is one by what every caller passes (``to_scalar([loss_a, loss_b])``
    then ``[x.data.tolist()[0] for x in arr]``; also in a helper module that
    does not import torch), or an element the value facts make
    0-dim read in place through ``.data`` (``z[i, 0].data[0]`` of a 2-D ``z``). A
    loss-named string key counts as a name (``state['loss'].data[0]``).  The name
    alone is enough only for the forms that go through ``.data``, ``.numpy()`` or
    ``.tolist()``; a bare ``E[0]`` needs evidence from the code (the value facts
    making a call or an element 0-dim is some: ``torch.max(a, 0)[1][0]`` of a
    1-D ``a``), because ``losses[0]`` on a Python list is common, and a
    ``*_function(...)`` callee
    (scipy's ``loss_function``) is a loss call only through
    ``.data``/``.numpy()``/``.tolist()``.  A bare ``E[0]`` and form (b) need torch
    in the file (an import, torch's ``Variable`` — not ``tf.Variable`` — or
    ``.backward(``); in a file that imports TensorFlow, JAX, Keras (or another
    framework) and not torch, nothing is flagged.

    Form (b): inside a ``for``/``while`` body, flags ``acc += E``,
    ``acc = acc + E`` and ``accs.append(E)`` (also ``E * n``, ``E / n``) where
    ``acc`` lives across iterations and ``E`` carries autograd history: it is a
    loss call's result (not through ``.item()``, ``.detach()``, ``.data``,
    ``float()``), or ``E.backward()`` is called in the same function.

    Not flagged: ``output.data[0]`` (the first sample of a batch), ``self.data[0]``,
    ``x.shape[0]``, ``x.size()[0]``, the results of callees whose last word names
    something else (``nll_loss_forward(...)[0]``, ``select_min_cost_strategy(...)``;
    ``loss_fn``, ``compute_loss`` and ``criterion`` are loss calls; a callee named
    for a loss whose definition is in view, a function of the file or the project or
    a method of a module class of the file, counts only where the value facts find
    it 0-dim: a model's own ``loss(x, y, size_average=False)`` may give one loss per
    sample), per-element losses, read or accumulated (``reduce=False`` or
    ``reduction='none'`` given to the call, or to the loss module it calls:
    ``criterion = nn.CrossEntropyLoss(reduce=False)`` in the function, else anywhere
    in the file, ``self.criterion`` in ``__init__``), in a file that computes
    per-element losses a value whose only evidence is its name (``sample_loss, loss
    = model(x, y)``), a name bound (or unpacked) from a call not torch's given
    ``size_average=False`` (``t_loss, m_loss = model.loss(out, y,
    size_average=False)`` of a model passed in: one loss per sample, maybe; its
    ``.data[0]`` gets the message and the unsafe fix ``t_loss.reshape(-1)[0].item()``,
    0.3's first element as a number either way), values visibly built as lists or
    numpy arrays, a bare ``E[0]`` where an enclosing test says ``E`` is a tuple or
    list (``r[0] if type(r) in
    (tuple, list) else r``, the body of ``if isinstance(r, tuple):``), a term
    rebound to what the value facts make a Python number after its ``.backward()``
    (``loss = scalar(loss) / n``), arithmetic with a tensor they make 1-D or more
    (``shs / max_kl`` with ``shs`` from ``.sum(0, keepdim=True)``), an accumulator
    that is itself backpropagated, or returned while its terms are not
    backpropagated one by one in the loop (``total += crit(...)`` then
    ``total.backward()`` or ``return total`` builds a loss on purpose), and loops
    under ``with torch.no_grad():`` or in a function decorated with it.

    ## Why is this bad?
    Since PyTorch 0.4 a loss, like any full reduction, is a 0-dim tensor:
    ``loss.data[0]`` and ``loss[0]`` raise ``IndexError: invalid index of a 0-dim
    tensor``, ``loss.data.cpu().numpy()[0]`` raises ``IndexError`` (a 0-dim
    array) and ``loss.data.tolist()[0]`` raises ``TypeError`` (it is a float).
    Accumulating the tensor itself (``total_loss += loss``, the usual "fix" for
    the ``IndexError``) keeps every iteration's autograd graph alive until the
    accumulator dies.

    ## Example
    ```python
    for data, target in loader:
        loss = criterion(model(data), target)
        loss.backward()
        print(loss.data[0])
        total_loss += loss
    ```

    Use instead:
    ```python
    for data, target in loader:
        loss = criterion(model(data), target)
        loss.backward()
        print(loss.item())
        total_loss += loss.item()
    ```

    ## Fix safety
    ``E.data[0]`` (and the other forms of (a)) -> ``E.item()`` is *safe*: it
    gives the same number ``E.data[0]`` gave under 0.3; ``E.data.cpu().numpy()[0]``
    gets ``.reshape(-1)`` before its ``[0]``, which keeps 0.3's numpy scalar
    (``np.mean`` of float32 scalars stays float32, of Python floats it is
    float64).  Where the value is assigned to a name that is backpropagated
    later, or where the value facts alone find ``E`` 0-dim and a ``Variable``'s,
    ``E[0]`` -> ``E`` (the 0-dim tensor, what 0.3's one-element Variable became)
    is *safe*.  ``acc += E`` -> ``acc += E.item()`` is
    *unsafe*: the accumulator becomes a Python float, and ``.item()`` raises if
    ``E`` has more than one element; the sum is then kept in double precision
    (a Python float) where 0.3 summed float32 tensors, so its last digits can
    differ, and where it re-enters tensor or numpy arithmetic
    (``np.mean(losses)``) the result is float64, not float32 (the message
    says so); the same fix turns the accumulator's later
    ``acc.item()`` and ``acc.data[0]`` into ``acc`` (a float has no ``.item()``),
    and those of a name bound to arithmetic of it and of numbers (``mean = acc /
    n``) into that name; there is no automatic fix when another use needs a tensor
    (``acc.cpu()``), or a name is bound to arithmetic of it with a value that may
    be a tensor.  Where the accumulator is returned (its terms backpropagated one
    by one), its callers may read the terms as tensors (``c_loss[0].data[0]``, which
    becomes ``c_loss[0].item()``): the fix is ``E.detach()`` there, tensors without
    their graphs (*unsafe* too).  A fix whose removed text holds a comment is unsafe.
    """
    if isinstance(node, ast.Subscript):
        report = _extraction(ctx, node)
    else:
        report = _accumulation(ctx, node)
    if report is not None:
        yield report


def _extraction(ctx: Context, node: ast.Subscript) -> Optional[Report]:
    if not isinstance(node.ctx, ast.Load) or not is_zero(node.slice):
        return None
    tensor, steps = peel(node.value)
    by_name = any(step in ("data", "numpy", "tolist") for step in steps)
    if not ctx.uses_torch and (not by_name or _other_framework(ctx)):
        return None  # scipy's ``rho[0]``, sklearn's ``loss_[0]``, TensorFlow's ``loss.numpy()[0]``
    evidence = Evidence(ctx)
    bare = None  # (a bare ``E[0]`` the value facts alone make 0-dim: is ``E`` plain?)
    if not (evidence.may_be_scalar(tensor, by_name) and evidence.scalar(tensor, by_name)) \
            and not _zero_dim(ctx, evidence, tensor, by_name):
        bare = _bare_zero_dim(ctx, tensor, by_name)
        if bare is None:
            return _per_sample(ctx, evidence, node, tensor, steps)
    if not by_name and (_indexed_as_sequence(evidence.flow, tensor)
                        or _tested_as_sequence(ctx, node, tensor)):
        return None
    if _ranked_above_zero(ctx, tensor):
        return None  # (``KL_each.data[0]`` of per-example terms: its first element)
    src = ctx.source
    graph = not any(step in ("data", "numpy", "tolist") for step in steps)
    target = _backpropagated_target(ctx, node) if graph else None
    if bare is False and target is None:
        # (``torch.max(v, 0)[1][0]`` of a Variable: 0.3 gave a one-element
        # Variable, which is the 0-dim tensor now)
        kept = src.text(node.value)
        dropped = src.between(src.end(node.value), src.end(node))
        return Report(
            node,
            f"`{src.quote(node)}` raises IndexError on a 0-dim tensor since PyTorch 0.4 "
            f"(0.3 gave a one-element Variable, which is the 0-dim tensor now); use "
            f"`{one_line(kept)}`",
            Fix((src.replace(node, kept),), UNSAFE if has_comment(dropped) else SAFE),
        )
    if target is not None:
        # ``l = l.sum()[0] / n`` then ``l.backward()``: 0.3's ``[0]`` kept a
        # one-element Variable, with its graph; the 0-dim tensor is that value
        kept = src.text(node.value)
        dropped = src.between(src.end(node.value), src.end(node))
        return Report(
            node,
            f"`{src.quote(node)}` raises IndexError on a 0-dim tensor since PyTorch 0.4; "
            f"`{target}` is backpropagated later, so keep the tensor: use `{one_line(kept)}`",
            Fix((src.replace(node, kept),), UNSAFE if has_comment(dropped) else SAFE),
        )
    fixed = method_call(src, tensor, "item")
    if "tolist" in steps:
        why = "raises TypeError since PyTorch 0.4 (`.tolist()` of a 0-dim tensor gives a number)"
    elif "numpy" in steps:
        why = "raises IndexError since PyTorch 0.4 (a 0-dim array)"
    else:
        why = "raises IndexError on a 0-dim tensor since PyTorch 0.4"
    replaced = _item_after(ctx, node)  # (``loss.data[0].item()``: one ``.item()``)
    if "numpy" in steps and "tolist" not in steps and replaced is node:
        # (0.3's element of the array was a numpy scalar, float32 for a float
        # tensor, and ``np.mean`` of such stays float32: the array's one element
        # keeps it, whatever the array's rank)
        end = src.end(node.value)
        kept = f"{src.text(node.value)}.reshape(-1)[0]"
        return Report(
            node,
            f"`{src.quote(node)}` {why}; use `{one_line(kept)}` (0.3's numpy scalar; "
            f"`{one_line(fixed)}` gives a Python float)",
            Fix((Edit(end, end, ".reshape(-1)"),), SAFE),
        )
    dropped = src.between(src.start(replaced), src.start(tensor)) + src.between(
        src.end(tensor), src.end(replaced))
    safety = UNSAFE if has_comment(dropped) else SAFE
    return Report(
        node,
        f"`{src.quote(node)}` {why}; use `{one_line(fixed)}`",
        Fix((src.replace(replaced, fixed),), safety),
    )


def _per_sample(ctx: Context, evidence: Evidence, node: ast.Subscript, tensor: ast.AST,
                steps: List[str]) -> Optional[Report]:
    """``t_loss.data[0]`` of a loss-like name bound from a call that is not torch's
    given ``size_average=False`` (``model.loss(out, y, size_average=False)``): one
    number or one loss per sample, 0.3's ``[0]`` the first as a number either way."""
    if steps != ["data"] or not isinstance(tensor, ast.Name) or not loss_name(tensor) \
            or not evidence.own_size_average(tensor) or _ranked_above_zero(ctx, tensor):
        return None
    src = ctx.source
    fixed = f"{src.text(tensor)}.reshape(-1)[0].item()"
    return Report(
        node,
        f"`{src.quote(node)}` was a number on PyTorch 0.3 and is a 0-dim tensor since 0.4 "
        f"(IndexError where `{tensor.id}` is one number; it may hold one loss per sample, "
        f"`size_average=False`); use `{fixed}`, the first element as a number either way",
        Fix((src.replace(node, fixed),), UNSAFE),
    )


def _ranked_above_zero(ctx: Context, tensor: ast.AST) -> bool:
    """The value facts know ``tensor`` has a dimension (a name's evidence of a
    loss notwithstanding): its ``[0]`` is an element, which raises nothing."""
    from ..analysis.values import values

    value = values(ctx).of(tensor)
    return value.tensor and value.rank is not None and value.rank >= 1


def _item_after(ctx: Context, node: ast.Subscript) -> ast.AST:
    """``E.data[0].item()`` (half-migrated code) where ``node`` is ``E.data[0]``, else
    ``node``: what ``E.item()`` replaces."""
    parents = ctx.parents
    if len(parents) > 1:
        attribute, call = parents[-1], parents[-2]
        if isinstance(attribute, ast.Attribute) and attribute.attr == "item" and isinstance(
                call, ast.Call) and call.func is attribute and not call.args \
                and not call.keywords:
            return call
    return node


def _bare_zero_dim(ctx: Context, tensor: ast.AST, by_name: bool) -> Optional[bool]:
    """For a bare ``E[0]`` of a call or an element (``torch.max(a, 0)[1][0]`` of a
    1-D ``a``) that the value facts make a 0-dim tensor: whether it was a plain
    tensor on 0.3 (its ``[0]`` a number); ``None`` where they do not, or for the
    other forms."""
    if by_name or key(tensor) is not None or not ctx.uses_torch \
            or not isinstance(tensor, (ast.Call, ast.Subscript)):
        return None
    value = _zero_dim_value(ctx, tensor)
    return None if value is None else value.plain


def _zero_dim(ctx: Context, evidence: Evidence, tensor: ast.AST, by_name: bool) -> bool:
    """A name whose value is evidently a 0-dim tensor by the value facts (a
    reduction returned by a callback: ``fval = f(True).data`` with ``f`` the
    ``get_loss`` every caller passes), or an element written in place or a
    call read through ``.data`` (``z[i, 0].data[0]`` of a 2-D ``z``: a number
    on 0.3; ``evaluate(loader).data[0]`` of a function returning a mean)."""
    k = key(tensor)
    if not ctx.uses_torch:  # (a helper module: only what its callers pass, below)
        if not (by_name and isinstance(tensor, ast.Name)):
            return False
    elif k is None:
        return by_name and isinstance(tensor, (ast.Subscript, ast.Call)) \
            and _zero_dim_value(ctx, tensor, by_name) is not None
    assigned = evidence.assignments(tensor)
    if assigned == [] and k in evidence.flow.bound:  # (``a, b = f(x)``)
        defs = evidence.flow.defs(k)
        assigned = [d.value for d in defs] if all(d.kind == "unpack" for d in defs) else None
    if not assigned and isinstance(tensor, ast.Name):
        # a parameter, or a loop's variable: what every caller passes, what the
        # iterated list holds (``[v.data.tolist()[0] for v in losses]``)
        defs = evidence.flow.reaching(tensor)
        if not defs or not all(d.kind in ("param", "for", "comp") for d in defs):
            return False
        return _zero_dim_value(ctx, tensor, by_name) is not None or (
            all(d.kind == "param" for d in defs) and _tensor_guarded(ctx, tensor)
            and _tensors_passed_zero_dim(ctx, defs))
    if not ctx.uses_torch or not assigned:
        return False
    # (``flops += n``: the name keeps what it held, a number added; the cheap test
    # first: the value facts are asked of few names)
    augmented = {id(d.value) for d in evidence.flow.defs(k) if d.kind == "augassign"} \
        if k is not None else set()
    if not all(_may_make_zero_dim(ctx, value) for value in assigned
               if id(value) not in augmented) or all(id(v) in augmented for v in assigned):
        return False
    return _zero_dim_value(ctx, tensor, by_name) is not None


#: what ``isinstance(v, ...)`` tests for a tensor (``Variable`` is every tensor now)
_TENSOR_TYPES = frozenset(("torch.autograd.Variable", "torch.Tensor"))


def _tensor_guarded(ctx: Context, name: ast.Name) -> bool:
    """The node visited is in the body of ``if isinstance(name, Variable):`` (or
    ``torch.Tensor``) of its function: only the tensors its callers pass reach it
    (0.3's ``def to_number(v): if isinstance(v, Variable): return v.data[0]``)."""
    return any(builtin_call(test, ctx.scope, "isinstance", 2)
               and isinstance(test.args[0], ast.Name) and test.args[0].id == name.id
               and ctx.resolve(test.args[1]) in _TENSOR_TYPES
               for test in if_tests(ctx.parents))


def _tensors_passed_zero_dim(ctx: Context, defs) -> bool:
    """Every tensor the calls pass for the parameters ``defs`` is 0-dim (the calls
    that pass something else do not reach a tensor test's body), and one does."""
    from ..analysis.callers import passed_arguments
    from ..analysis.values import values

    found = False
    for d in defs:
        sites = passed_arguments(ctx, d.node, ctx.flow().node)
        if not sites:
            return False
        for other, expr, at in sites:
            value = values(other).of(expr, at)
            if value.tensor:
                if value.rank != 0:
                    return False
                found = True
            elif value.kind is None:
                return False  # (unknown: maybe a tensor of another rank)
    return found


def _zero_dim_value(ctx: Context, tensor: ast.AST, read: bool = False):
    """The value facts' answer for ``tensor`` where it is a 0-dim tensor, else ``None``;
    with ``read`` (``tensor.data[0]``, ``.numpy()[0]``), also a whole reduction of
    what may be a tensor (``a.mean()``: that fails whatever ``a`` is, a tensor or a
    numpy array; a bare ``[0]`` of it is a pandas frame's first column sum)."""
    from ..analysis.values import values

    value = values(ctx).of(tensor)
    return value if value.rank == 0 and (value.tensor or read and value.kind is None) \
        else None


def _may_make_zero_dim(ctx: Context, value: ast.AST) -> bool:
    """``x.data``, an element (``x[i]``), arithmetic, a method's result
    (``x.sum()``), or what a function of the file or of the project returns
    (``loss, bce, kld = loss_function(...)``, ``acc = accuracy(out, y)`` with
    ``accuracy`` imported from the project's ``utils``), the builtin ``sum`` of
    reductions (``sum(torch.sum(g ** 2) for g in grads)``): what a 0-dim tensor
    is bound from (not a literal, a comprehension, another call)."""
    if isinstance(value, ast.Attribute):
        return value.attr == "data"
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name) and func.id == "sum" and not ctx.scope.binds("sum"):
            return True
        if isinstance(func, ast.Name) and func.id not in ctx.defined_once():
            from ..analysis.values import values  # (a helper of another module)

            return values(ctx).callee(value) is not None
        return isinstance(func, ast.Attribute) or isinstance(func, ast.Name) and isinstance(
            ctx.defined_once().get(func.id), (ast.FunctionDef, ast.AsyncFunctionDef))
    return isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Subscript))


#: a file that imports one of these (and not torch) computes with their arrays
_OTHER_FRAMEWORKS = re.compile(
    r"^[ \t]*(?:import|from)[ \t]+(?:tensorflow|jax|keras|mxnet|chainer|paddle|theano)\b",
    re.MULTILINE)


def _other_framework(ctx: Context) -> bool:
    found = ctx.memo.get("TV003.other framework")
    if found is None:
        found = ctx.memo["TV003.other framework"] = bool(_OTHER_FRAMEWORKS.search(ctx.text))
    return found  # type: ignore[return-value]


#: attributes that only a tensor with autograd history is asked for
_GRAPH_USES = frozenset(("backward", "grad_fn"))


def _backpropagated_target(ctx: Context, node: ast.Subscript) -> Optional[str]:
    """The name ``node`` (``E[0]``, through arithmetic) is assigned to when that
    name is backpropagated in the function (``l = l.sum()[0] / n`` then
    ``l.backward()``), else ``None``: there the value must stay a tensor."""
    child: ast.AST = node
    for parent in reversed(ctx.parents):
        if isinstance(parent, (ast.BinOp, ast.UnaryOp)):
            child = parent
            continue
        if (isinstance(parent, ast.Assign) and parent.value is child
                and len(parent.targets) == 1):
            target = key(parent.targets[0])
            break
        return None
    else:
        return None
    if target is None:
        return None
    function = ctx.scope.function()
    where = function.node if function is not None else ctx.tree
    for sub in ast.walk(where):
        if (isinstance(sub, ast.Attribute) and sub.attr in _GRAPH_USES
                and key(sub.value) == target):
            return target
    return None


def _indexed_as_sequence(flow: Flow, tensor: ast.AST) -> bool:
    """``out[0]`` next to ``out[1]`` or ``out[0].backward()``: a tuple, not a tensor."""
    k = key(tensor)
    used = flow.subscripts.get(k, ()) if k else ()
    return any(index != 0 for index in used)


#: the builtin types a test may name to say that a value is a sequence
_SEQUENCE_TYPES = frozenset(("tuple", "list"))


def _tested_as_sequence(ctx: Context, node: ast.AST, tensor: ast.AST) -> bool:
    """``E[0]`` where an enclosing test says ``E`` is a tuple or list: the body of
    ``if isinstance(E, (tuple, list)):``, the ``x if type(E) in (tuple, list)``
    branch of a conditional expression, the ``else`` of ``if not isinstance(E,
    tuple):``, what follows ``isinstance(E, list) and``."""
    k = key(tensor)
    if k is None:
        return False
    child = node
    for parent in reversed(ctx.parents):
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)):
            body = parent.body if isinstance(parent.body, list) else [parent.body]
            orelse = parent.orelse if isinstance(parent.orelse, list) else [parent.orelse]
            if any(c is child for c in body):
                if _says_sequence(parent.test, k, ctx.scope) is True:
                    return True
            elif any(c is child for c in orelse):
                if _says_sequence(parent.test, k, ctx.scope) is False:
                    return True
            elif parent.test is not child:
                return False  # not the walker's chain of ancestors
        elif isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And):
            for value in parent.values:
                if value is child:
                    break
                if _says_sequence(value, k, ctx.scope) is True:
                    return True
        elif isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef, ast.Module)):
            return False
        child = parent
    return False


def _says_sequence(test: ast.AST, k: str, scope: Scope) -> Optional[bool]:
    """``True`` when ``test`` holding means ``k`` is a tuple or list, ``False``
    when it failing does, ``None`` when it tells nothing about that (the
    builtins ``isinstance`` and ``type``, not rebound in ``scope``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _says_sequence(test.operand, k, scope)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return True if any(_says_sequence(v, k, scope) is True for v in test.values) else None
    if builtin_call(test, scope, "isinstance", 2):
        if key(test.args[0]) == k and _sequence_types(test.args[1]):  # type: ignore[attr-defined]
            return True
        return None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if not _type_of(left, k, scope):
            left, right = right, left
            if not _type_of(left, k, scope):
                return None
        op = test.ops[0]
        if not _sequence_types(right):
            return None
        if isinstance(op, (ast.In, ast.Eq, ast.Is)):
            return True
        if isinstance(op, (ast.NotIn, ast.NotEq, ast.IsNot)):
            return False
    return None


def _type_of(node: ast.AST, k: str, scope: Scope) -> bool:
    """``type(k)``."""
    return builtin_call(node, scope, "type", 1) and key(node.args[0]) == k  # type: ignore


def _sequence_types(node: ast.AST) -> bool:
    """``tuple``, ``list``, or a tuple/list/set of them."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_sequence_types(e) for e in node.elts)
    return isinstance(node, ast.Name) and node.id in _SEQUENCE_TYPES


def _accumulation(ctx: Context, node: ast.AST) -> Optional[Report]:
    parts = _accumulation_parts(node)
    if parts is None:
        return None
    acc_read, added = parts
    if not ctx.uses_torch:
        return None  # TensorFlow's ``average_loss += batch_loss``
    loop = enclosing_loop(ctx.parents, node)
    if loop is None:
        return None
    acc = key(acc_read)
    if acc is None:
        return None
    evidence = Evidence(ctx)
    if not evidence.may_carry_history(added):
        return None  # decided without the reaching definitions
    leak = _leaking_part(evidence, added)
    flow = evidence.flow
    if leak is None or not flow.carried(acc_read, loop):
        return None
    if key(leak) is not None and (evidence.not_tensor(leak) or evidence.plain_number(leak)):
        return None  # one loss per sample, a Python number: ``.item()`` would raise
    if acc in flow.sinks and not _backpropagated_in(loop, leak, acc, flow):
        return None  # a loss built on purpose
    if grad_disabled(ctx.parents, ctx.resolve):
        return None
    src = ctx.source
    returned = acc in flow.sinks  # (the caller reads it: it may read tensors)
    fixed = method_call(src, leak, "detach" if returned else "item")
    whole = src.between(src.start(node), src.start(leak)) + fixed + src.between(
        src.end(leak), src.end(node))
    message = (f"`{src.quote(node)}` keeps every iteration's autograd graph alive (losses "
               f"are tensors since PyTorch 0.4); use `{one_line(whole)}` " + (
                   f"(tensors without their graphs: `{acc}` is returned, and its readers "
                   "may read tensors)" if returned else
                   "(a Python float)" if isinstance(node, ast.Call) else
                   "(a Python float: summed in float64, not float32)"))
    fix: Optional[Fix] = None
    if returned:
        fix = Fix((src.replace(leak, fixed),), UNSAFE)
    elif isinstance(node, (ast.AugAssign, ast.Assign)):
        later = _tensor_uses(ctx, flow.node, acc, node)
        if later is not None:
            fix = Fix((src.replace(leak, fixed), *later), UNSAFE)
        else:
            message += f" (no automatic fix: `{acc}` is used as a tensor)"
    else:
        fix = Fix((src.replace(leak, fixed),), UNSAFE)
    return Report(node, message, fix)


def _backpropagated_in(loop: ast.AST, leak: ast.AST, acc: str, flow: Flow) -> bool:
    """Whether each term is backpropagated in the loop (``loss.backward()`` there)
    while the accumulator is not: then a returned accumulator only reports."""
    k = key(leak)
    if k is None or acc in flow.backward:
        return False
    for sub in ast.walk(loop):
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                and sub.func.attr == "backward" and key(sub.func.value) == k):
            return True
    return False


#: what turns a one-element tensor into a number (also on a number, after the fix)
_TO_NUMBER = ("item",)


def _tensor_uses(ctx: Context, scope: ast.AST, acc: str, node: ast.AST):
    """The edits that keep the accumulator's later uses working once it holds a
    float: ``acc.item()`` and ``acc.data[0]`` become ``acc``.  ``None`` when
    another use needs a tensor (``acc.cpu()``, ``acc.data``, ``acc[1]``).
    (The uses of every name are indexed in one walk of the scope.)"""
    cache = ctx.memo.setdefault("TV003.uses", {})
    entry = cache.get(id(scope))
    if entry is None or entry[0] is not scope:
        entry = cache[id(scope)] = (scope, _index_uses(scope))
    numbers, others = entry[1]
    src = ctx.source
    derived = _derived(ctx, scope, acc)
    if derived is None:
        return None
    edits = []
    for k in derived:  # (``mean = total / n`` holds a float then too)
        rewritten = [(src.start(n), src.end(n)) for n in numbers.get(k, ())
                     if not _within(src, n, node)]
        for use in others.get(k, ()):
            if _within(src, use, node):
                continue
            start, end = src.start(use), src.end(use)
            if not any(a <= start and end <= b for a, b in rewritten):
                return None
        edits += [Edit(a, b, k) for a, b in rewritten]
    return tuple(edits)


def _derived(ctx: Context, scope: ast.AST, acc: str) -> Optional[List[str]]:
    """``acc`` and the names ``scope`` binds to arithmetic of it and of numbers
    (``mean_loss = total / args.log_interval``): numbers too once ``acc`` is one;
    ``None`` where a name is bound to arithmetic of it with a value that may be a
    tensor (its number uses could not be told).  Once per function and name."""
    memo = ctx.memo.setdefault("TV003.derived", {})
    k = (id(scope), acc)
    if k not in memo:
        memo[k] = _read_derived(ctx, scope, acc)
    return memo[k]


def _read_derived(ctx: Context, scope: ast.AST, acc: str) -> Optional[List[str]]:
    from ..analysis.values import NUMBER, values

    facts = values(ctx)
    found = [acc]
    for sub in ast.walk(scope):
        if not (isinstance(sub, ast.Assign) and len(sub.targets) == 1
                and isinstance(sub.targets[0], ast.Name) and sub.targets[0].id != acc
                and isinstance(sub.value, ast.BinOp)):
            continue
        reads = [n for n in ast.walk(sub.value) if isinstance(n, ast.Name) and n.id == acc]
        if not reads:
            continue
        others = [sub.value.left, sub.value.right]
        while others:
            part = others.pop()
            if isinstance(part, ast.BinOp):
                others += [part.left, part.right]
            elif isinstance(part, ast.Name) and part.id == acc or isinstance(
                    part, ast.Constant) and type(part.value) in (int, float):
                continue
            elif facts.of(part, scope).kind != NUMBER:
                return None
        if sub.targets[0].id not in found:
            found.append(sub.targets[0].id)
    return found


def _within(src, inner: ast.AST, outer: ast.AST) -> bool:
    return src.start(outer) <= src.start(inner) and src.end(inner) <= src.end(outer)


def _index_uses(scope: ast.AST):
    """``(numbers, others)``: by key, the expressions that turn it into a number
    (``k.item()``, ``k.data[0]``, ``k.data.cpu().numpy()[0]``), and every
    attribute or subscript taken of it."""
    numbers: Dict[str, List[ast.AST]] = {}
    others: Dict[str, List[ast.AST]] = {}
    for sub in ast.walk(scope):
        if isinstance(sub, ast.Subscript):
            if isinstance(sub.ctx, ast.Load) and is_zero(sub.slice):
                base, steps = peel(sub.value)
                k = key(base)
                if k is not None and all(s in ("data", "cpu", "numpy", "tolist") for s in steps):
                    numbers.setdefault(k, []).append(sub)
        elif isinstance(sub, ast.Call):
            func = sub.func
            if (isinstance(func, ast.Attribute) and func.attr in _TO_NUMBER
                    and not sub.args and not sub.keywords):
                k = key(func.value)
                if k is not None:
                    numbers.setdefault(k, []).append(sub)
        if isinstance(sub, (ast.Attribute, ast.Subscript)):
            k = key(sub.value)
            if k is not None:
                others.setdefault(k, []).append(sub)
    return numbers, others


def _accumulation_parts(node: ast.AST) -> Optional[Tuple[ast.AST, ast.AST]]:
    """``(accumulator read, added value)`` for ``acc += E``, ``acc = acc + E``,
    ``accs.append(E)``."""
    if isinstance(node, ast.AugAssign):
        if isinstance(node.op, ast.Add) and isinstance(node.target, (ast.Name, ast.Attribute)):
            return node.target, node.value
        return None
    if isinstance(node, ast.Assign):
        value = node.value
        if len(node.targets) != 1 or not isinstance(value, ast.BinOp):
            return None
        if not isinstance(value.op, ast.Add):
            return None
        target = key(node.targets[0])
        if target is None:
            return None
        if key(value.left) == target:
            return value.left, value.right
        if key(value.right) == target:
            return value.right, value.left
        return None
    if isinstance(node, ast.Call):
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "append"
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], ast.Starred)
            and key(func.value) is not None
        ):
            return func.value, node.args[0]
    return None


def _leaking_part(evidence: Evidence, added: ast.AST) -> Optional[ast.AST]:
    """The part of ``added`` that carries history: ``loss`` in ``loss * n``."""
    if isinstance(added, ast.BinOp) and isinstance(added.op, (ast.Mult, ast.Div)):
        left, right = evidence.history(added.left), evidence.history(added.right)
        if left and not right:
            return _leaking_part(evidence, added.left)
        if right and not left:
            return _leaking_part(evidence, added.right)
        return added if left else None
    return added if evidence.history(added) else None
