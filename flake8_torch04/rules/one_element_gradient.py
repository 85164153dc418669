"""TV103: ``loss.backward(one)`` with a one-element gradient for a 0-dim loss."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Set, Union

from ..analysis.canonical import LEGACY_TENSOR_TYPES, VARIABLE
from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.flow import Flow
from ..analysis.nodes import innermost
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.scalars import Evidence
from ..analysis.values import value_of, values
from ..source.text import has_comment, needs_parens, shorten

#: constructors taking the data as a list: ``torch.FloatTensor([1])``
_FROM_DATA = LEGACY_TENSOR_TYPES | {"torch.Tensor", "torch.tensor"}
#: methods that keep a tensor's value and shape
_TRANSPARENT = frozenset(("cuda", "cpu", "float", "double", "half", "to", "detach", "clone",
                          "contiguous", "type_as"))
#: one-element tensor of a value not known here
UNKNOWN = "unknown"
#: the key being evaluated, read again in its own assignment (``one = one.cuda()``)
SELF = "self"
_MAX_DEPTH = 6

Value = Union[float, str, None]  # a number, UNKNOWN, or None: not a one-element tensor


@rule("TV103")
def one_element_gradient(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``E.backward(one)`` where ``one`` is a one-element tensor and ``E`` a scalar.

    ## What it does
    Flags ``E.backward(g)`` (``g`` positional or ``gradient=``) where ``g`` is
    a one-element tensor -- ``torch.FloatTensor([1])``, ``torch.ones(1)``,
    ``torch.FloatTensor(1).fill_(-1)``, ``one * -1``, ``-one``, also through
    ``.cuda()``, ``Variable(...)`` and assignments in the function, the module
    or ``self.`` attributes set in the class, or the call of a function of the
    file whose returns are evidently one (the value facts of
    ``analysis/values.py``) -- and ``E`` held a scalar under
    PyTorch 0.3 (TV003's evidence: a loss by name such as ``errD_real``, a loss
    call, a full reduction, or assigned from one).  A gradient that is a
    computed tensor, a 0-dim ``torch.tensor(1.)``, and ``E`` without scalar
    evidence (an output of several elements) are left alone.

    ## Why is this bad?
    Since PyTorch 0.4 a loss is a 0-dim tensor, and ``backward`` checks the
    gradient's shape: ``RuntimeError: Mismatch in shape: grad_output[0] has a
    shape of torch.Size([1]) and output[0] has a shape of torch.Size([])``.
    This is the classic WGAN idiom ``errD_real.backward(one)``,
    ``errD_fake.backward(mone)``.

    ## Example
    ```python
    one = torch.FloatTensor([1])
    mone = one * -1
    errD_real.backward(one)
    errD_fake.backward(mone)
    ```

    Use instead:
    ```python
    errD_real.backward()
    (-errD_fake).backward()
    ```

    ## Fix safety
    The fix is *unsafe*: ``E.backward()`` for a gradient of 1, ``(-E).backward()`` for
    -1 (other values get no automatic fix).  They give the gradients the old
    call gave whether ``E`` is 0-dim or, as in code that reshapes its output
    with ``.view(1)``, one-element 1-D; making the constant 0-dim at its
    definition would fail for the latter, so the call is what is rewritten.
    The fix is not offered when other positional arguments follow the
    gradient or the call holds a comment.
    """
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "backward":
        return
    grad = _gradient(node)
    if grad is None:
        return
    value = one_element(ctx, grad, set(), 0)
    if value is None:
        return
    receiver = func.value
    if ctx.resolve(receiver) is not None:
        return  # ``torch.autograd.backward`` and other module functions
    evidence = Evidence(ctx)
    if not (evidence.may_be_scalar(receiver, True) and evidence.scalar(receiver, True)):
        return
    known = values(ctx).of(receiver)
    if known.tensor and known.rank is not None and known.rank >= 1:
        return  # (``(...).view(1)``, ``mean(0)`` of a column: its gradient of one element fits)
    src = ctx.source
    call = src.text(node)
    grad_text = src.text(grad)
    rest = [src.text(kw) for kw in node.keywords if kw.value is not grad]
    fix = None
    fixed = None
    if value in (1.0, -1.0) and len(node.args) <= 1 and not has_comment(call):
        text = src.text(receiver)
        if value == -1.0:
            inner = f"({text})" if needs_parens(receiver, ast.UnaryOp, src) else text
            text = f"(-{inner})"
        elif needs_parens(receiver, ast.Attribute, src):
            text = f"({text})"
        fixed = f"{text}.backward({', '.join(rest)})"
        fix = Fix((src.replace(node, fixed),), UNSAFE)
    shown = "one element" if value == UNKNOWN else f"one element, {value:g}"
    advice = f"use `{shorten(fixed, 40)}`" if fixed else (
        f"use `{shorten(src.text(receiver), 20)}.backward()` and scale the loss by the value")
    yield Report(
        node,
        f"`{shorten(call, 40)}` passes `{shorten(grad_text, 20)}` ({shown}) as the gradient of "
        f"a 0-dim loss: RuntimeError (shape mismatch) since PyTorch 0.4; {advice}",
        fix,
    )


def _gradient(call: ast.Call) -> Optional[ast.AST]:
    if call.args:
        if isinstance(call.args[0], ast.Starred):
            return None
        return call.args[0]
    for kw in call.keywords:
        if kw.arg == "gradient":
            return kw.value
    return None


def _opaque(value: Value) -> Value:
    """A value changed by an operation: the key's own earlier value is not known here."""
    return None if value == SELF else value


def _number(node: ast.AST) -> Optional[float]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(node.operand)
        if inner is None:
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    return None


def _is_one(node: ast.AST) -> bool:
    """The size ``1``, ``[1]``, ``(1,)``."""
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == 1:
        node = node.elts[0]
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 1


def one_element(ctx: Context, node: ast.AST, seen: Set[str], depth: int) -> Value:
    """The value of the one-element (1-D) tensor ``node`` builds, ``UNKNOWN`` when
    it surely is one but its value is not known, ``None`` when not known to be one."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = one_element(ctx, node.operand, seen, depth + 1)
        return -inner if isinstance(inner, float) else _opaque(inner)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        for tensor, scalar in ((node.left, node.right), (node.right, node.left)):
            number = _number(scalar)
            if number is None:
                continue
            inner = one_element(ctx, tensor, seen, depth + 1)
            if not isinstance(inner, float):
                return _opaque(inner)
            if isinstance(node.op, ast.Mult):
                return inner * number
            return inner / number if tensor is node.left and number else UNKNOWN
        return None
    if isinstance(node, ast.Call):
        return _call_value(ctx, node, seen, depth)
    k = key(node)
    if k is None:
        return None
    if k in seen:
        return SELF
    return _key_value(ctx, node, k, seen | {k}, depth)


def _call_value(ctx: Context, node: ast.Call, seen: Set[str], depth: int) -> Value:
    func = node.func
    name = ctx.resolve(func)
    if name is not None:
        if node.keywords and name != VARIABLE:
            if any(kw.arg not in ("dtype", "device", "requires_grad") for kw in node.keywords):
                return None
        if name == VARIABLE and node.args:
            return one_element(ctx, node.args[0], seen, depth + 1)
        if len(node.args) != 1:
            return None
        arg = node.args[0]
        if name in _FROM_DATA and isinstance(arg, (ast.List, ast.Tuple)) and len(arg.elts) == 1:
            number = _number(arg.elts[0])
            return number if number is not None else None
        if name in ("torch.ones",) and _is_one(arg):
            return 1.0
        if (name in LEGACY_TENSOR_TYPES or name == "torch.Tensor") and _is_one(arg):
            return UNKNOWN  # ``torch.FloatTensor(1)``: uninitialized, one element
        return None
    if isinstance(func, ast.Name):
        # a function of the file or the project: the argument it passes through
        # (``to_gpu(cuda, torch.FloatTensor([1]))``), or what its returns evidently
        # are (the value facts)
        inner = values(ctx).passed_through(node)
        if inner is not None:
            return one_element(ctx, inner, seen, depth + 1)
        made = value_of(ctx, node)
        return UNKNOWN if made.tensor and made.rank == 1 and made.last == 1 else None
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in _TRANSPARENT:
        return one_element(ctx, func.value, seen, depth + 1)
    if func.attr == "fill_" and len(node.args) == 1:
        inner = _opaque(one_element(ctx, func.value, seen, depth + 1))
        if inner is None:
            return None
        number = _number(node.args[0])
        return number if number is not None else UNKNOWN
    if func.attr in ("mul", "mul_") and len(node.args) == 1:
        inner = _opaque(one_element(ctx, func.value, seen, depth + 1))
        number = _number(node.args[0])
        if isinstance(inner, float) and number is not None:
            return inner * number
        return UNKNOWN if inner is not None else None
    return None


def _key_value(ctx: Context, node: ast.AST, k: str, seen: Set[str], depth: int) -> Value:
    """The value every assignment of ``k`` gives it (function, then module or class)."""
    values = _assigned(ctx, k)
    if not values:
        return None
    found: List[Value] = [one_element(ctx, v, seen, depth + 1) for v in values]
    found = [v for v in found if v != SELF]  # ``one = one.cuda()`` keeps the value
    if not found or any(v is None for v in found):
        return None
    numbers = {v for v in found if isinstance(v, float)}
    if len(numbers) == 1 and UNKNOWN not in found:
        return numbers.pop()
    return UNKNOWN


def _assigned(ctx: Context, k: str) -> Optional[List[ast.AST]]:
    """Values assigned to ``k``: in the function if it assigns it, else at module
    level (a name) or in the class's methods (``self.x``)."""
    local = ctx.flow().assignments_to(k)
    if local:
        return local
    if "." not in k:
        if k in ctx.flow().bound and ctx.scope.function() is not None:
            return None  # a parameter, a loop variable...
        return _module_flow(ctx).assignments_to(k)
    if k.count(".") == 1 and k.startswith("self."):
        cls = innermost(ctx.parents, ast.ClassDef)
        if cls is None:
            return None
        values: List[ast.AST] = []
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found = _method_flow(ctx, item).assignments_to(k)
                if found is None:
                    return None
                values += found
        return values
    return None


def _module_flow(ctx: Context) -> Flow:
    flow = ctx.memo.get("TV103 module flow")
    if flow is None:
        flow = ctx.memo["TV103 module flow"] = Flow(ctx.tree, ctx)
    return flow  # type: ignore[return-value]


def _method_flow(ctx: Context, method: ast.AST) -> Flow:
    flows = ctx.memo.setdefault("TV103 method flows", {})
    flow = flows.get(id(method))  # type: ignore[union-attr]
    if flow is None:
        flow = flows[id(method)] = Flow(method, ctx)  # type: ignore[index]
    return flow
