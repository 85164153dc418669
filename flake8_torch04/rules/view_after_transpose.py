"""TV115: ``.view(...)`` of an element-wise result of a transposed tensor."""
from __future__ import annotations

import ast
import re
from typing import Any, Callable, Iterator, Optional

from ..analysis.callers import reaching_arguments
from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.instances import forward_arguments
from ..analysis.nodes import body_nodes
from ..analysis.registry import rule
from ..analysis.value_tables import CASTS, COMPARISONS
from ..analysis.values import FILE_CLASS, MODULE, NDARRAY, NUMBER, TENSOR, values
from .shared.calls import rename

#: methods and ``torch`` functions that move dimensions: their result is not contiguous
_MOVES = frozenset(("transpose", "permute", "t"))
#: element-wise methods whose result has the strides of their receiver on PyTorch
#: >= 0.4 (checked on 2.13); in-place methods return the receiver itself, which 0.3
#: did not make contiguous either, and ``softmax`` still returns a contiguous tensor
_ELEMENTWISE = frozenset((
    "mul", "add", "sub", "div", "pow", "clamp", "exp", "log", "sigmoid", "tanh", "relu",
    "abs", "neg", "sqrt", "sign", "floor", "ceil", "round", "reciprocal", "rsqrt", "sin",
    "cos", "log1p", "expm1", "addcmul", "addcdiv", "lerp", "fmod", "remainder",
))
_FUNCTIONS = frozenset(
    [f"torch.{f}" for f in _ELEMENTWISE]
    + [f"torch.nn.functional.{f}" for f in (
        "relu", "relu6", "elu", "selu", "leaky_relu", "dropout", "tanh", "sigmoid",
        "softplus", "hardtanh", "threshold")]
)
#: ``torch.nn`` layers (and their functions) whose output keeps a permuted 4-D
#: input's memory layout since 0.4 (an ``(N, H, W, C)`` batch permuted to ``(N, C, H,
#: W)`` is channels-last: a convolution of it is too; 0.3's were contiguous)
_LAYOUT_MODULES = frozenset(f"torch.nn.{m}" for m in (
    "Conv2d", "BatchNorm2d", "MaxPool2d", "AvgPool2d", "ReLU", "LeakyReLU", "ELU", "Tanh",
    "Sigmoid"))
_LAYOUT_FUNCTIONS = frozenset(f"torch.nn.functional.{f}" for f in (
    "conv2d", "max_pool2d", "avg_pool2d", "batch_norm"))
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod)
#: comparisons (the methods are the value facts' ``COMPARISONS``) keep the strides
#: too; so do casts (the value facts' ``CASTS``) since 0.4: on 0.3 a cast to another
#: type copied into a contiguous tensor, one to the same type returned the receiver
#: (so only a cast of an element-wise result, contiguous on 0.3 either way, is
#: followed); ``clone`` copied into a contiguous tensor on 0.3 and keeps the strides now
_COMPARE_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.Gt, ast.LtE, ast.GtE)
#: how many assignments, returns and parameters a value is followed through
_DEPTH = 8
#: a file that spells none of these has no moved tensor to follow
_MOVING = re.compile(r"transpose|permute|\.t\(|\bt\(")


def _flow(ctx: Context, scope: Optional[ast.AST]):
    return ctx.flow() if scope is None else ctx.flow_of(scope)


def _moved(ctx: Context, node: ast.AST, scope: Optional[ast.AST] = None,
           depth: int = 0) -> bool:
    """``node`` is a ``transpose``/``permute``/``.t()`` result (through names,
    parameters and returns)."""
    if isinstance(node, ast.Call):
        func = node.func
        name = ctx.resolve(func)
        if name in ("torch.transpose", "torch.t", "torch.permute"):
            return True
        if name == "torch.from_numpy" and len(node.args) == 1:  # (a transposed array's strides)
            return _moved(ctx, node.args[0], scope, depth + 1)
        if name is None and isinstance(func, ast.Attribute) and func.attr in _MOVES:
            return not (func.attr == "t" and node.args)
    return _followed(ctx, node, scope, depth, _moved)


def _followed(ctx: Context, node: ast.AST, scope: Optional[ast.AST], depth: int,
              test: Callable[..., Any], every: Callable[..., Any] = all,
              none: Any = False) -> Any:
    """``test`` of what ``node`` is, through the assignments that reach a name, the
    callers of a parameter (every one in view, also a module class's ``forward``'s)
    and the returns of a function or module class of the file (``every`` of
    the answers: ``all``, or ``min`` for numbers; ``none`` where nothing is
    followed)."""
    if depth >= _DEPTH or not isinstance(node, (ast.Call, ast.Name)):
        return none
    memo = ctx.memo.setdefault("TV115 followed", {})
    known = (id(node), test)
    found = memo.get(known)
    if found is None:  # (an answer cut short by the depth is not kept)
        memo[known] = none  # (a value that reaches itself)
        found = _follow(ctx, node, scope, depth, test, every, none)
        memo[known] = found if found != none else None
    return none if found is None else found


def _follow(ctx: Context, node: ast.AST, scope: Optional[ast.AST], depth: int,
            test: Callable[..., Any], every: Callable[..., Any], none: Any) -> Any:
    if isinstance(node, ast.Call):
        found = _returns(ctx, node, scope)
        if not found:
            return none
        definition, returns = found
        return every(test(ctx, r, definition, depth + 1) for r in returns)
    flow = _flow(ctx, scope)
    defs = flow.reaching(node)
    if not defs:
        return none
    parts = []
    for d in defs:
        if d.kind == "assign" and d.value is not None:
            parts.append((d.value, scope))
        elif d.kind == "param":
            sites = _arguments(ctx, d.node, flow.node)
            if not sites:
                return none
            parts += sites
        else:
            return none
    return every(test(ctx, value, at, depth + 1) for value, at in parts)


def _arguments(ctx: Context, param: ast.arg, func: ast.AST) -> Optional[list]:
    """What every caller passes for ``param`` of ``func`` (also a ``forward``)."""
    cls = ctx.statement_parents().get(id(func))
    if isinstance(cls, ast.ClassDef) and getattr(func, "name", None) == "forward":
        if values(ctx).module_classes().get(cls.name) is not cls:
            return None
        return forward_arguments(ctx, param, func, cls)  # type: ignore[arg-type]
    return reaching_arguments(ctx, param, func)


def _returns(ctx: Context, call: ast.Call, scope: Optional[ast.AST]) -> Optional[tuple]:
    """The function of the file ``call`` runs (a module's ``forward`` for the call
    of an instance of a module class of the file) and what its ``return``
    statements give; ``None`` where that is not evident (a ``yield``, a bare
    ``return``)."""
    facts, func = values(ctx), call.func
    definition = None
    module = facts.of(func, scope)
    if module.kind == MODULE and (module.name or "").startswith(FILE_CLASS):
        cls = facts.module_classes().get(module.name[len(FILE_CLASS):])
        definition = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and
                           f.name == "forward" and not f.decorator_list), None) \
            if cls is not None else None
    elif isinstance(func, ast.Name):
        definition = facts.callee(call, scope)
    if definition is None or id(definition) not in ctx.statement_parents():
        return None  # (nothing evident, or in another module)
    memo = ctx.memo.setdefault("TV115 returns", {})
    if id(definition) not in memo:
        returns = []
        for sub in body_nodes(definition):
            if isinstance(sub, (ast.Yield, ast.YieldFrom)) or \
                    isinstance(sub, ast.Return) and sub.value is None:
                returns = []
                break
            if isinstance(sub, ast.Return):
                returns.append(sub.value)
        memo[id(definition)] = (definition, returns) if returns else None
    return memo[id(definition)]


def _strided(ctx: Context, node: ast.AST, scope: Optional[ast.AST] = None,
             depth: int = 0) -> bool:
    """``node`` is computed element-wise from a moved tensor, and its first tensor
    operand is that tensor, so its result keeps the moved strides."""
    facts = values(ctx)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        left = node.left
        if facts.of(left, scope).kind == NUMBER:
            left = node.right
        return _moved_or_strided(ctx, left, scope, depth)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _moved_or_strided(ctx, node.operand, scope, depth)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
            isinstance(node.ops[0], _COMPARE_OPS):
        left = node.left
        if facts.of(left, scope).kind == NUMBER:
            left = node.comparators[0]
        return _moved_or_strided(ctx, left, scope, depth)
    if isinstance(node, ast.Subscript):  # (``correct[:k]``: a slice keeps the strides)
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        return all(isinstance(p, ast.Slice) for p in parts) and \
            _strided(ctx, node.value, scope, depth)
    if isinstance(node, ast.Call):
        func = node.func
        name = ctx.resolve(func)
        if name in _FUNCTIONS:
            return bool(node.args) and _moved_or_strided(ctx, node.args[0], scope, depth)
        if name in _LAYOUT_FUNCTIONS:
            return bool(node.args) and _channels_last(ctx, node.args[0], scope, depth)
        if name is not None:
            return False
        if isinstance(func, ast.Attribute):
            if func.attr in _ELEMENTWISE or func.attr in COMPARISONS or func.attr == "clone":
                return _moved_or_strided(ctx, func.value, scope, depth)
            if func.attr in CASTS:
                # (a cast to another type copied on 0.3: a moved tensor's too)
                return not node.args and (_strided(ctx, func.value, scope, depth) or (
                    _moved(ctx, func.value, scope, depth)
                    and _other_dtype(facts.of(func.value, scope).dtype, CASTS[func.attr])))
        module = facts.of(func, scope)
        if module.kind == MODULE and module.name in _LAYOUT_MODULES and len(node.args) == 1:
            return _channels_last(ctx, node.args[0], scope, depth)
    return _followed(ctx, node, scope, depth, _strided)


def _other_dtype(dtype: Optional[str], cast: str) -> bool:
    """A cast to ``cast`` of a tensor of ``dtype`` evidently changes its type."""
    return dtype is not None and dtype != cast


def _channels_last(ctx: Context, node: ast.AST, scope: Optional[ast.AST],
                   depth: int) -> bool:
    """``node``, the input of a 2-D layer (4-D, unless the facts say otherwise), keeps
    a moved tensor's strides on 2.13: moved, computed element-wise from one, cast
    (to any type: casts keep the strides now) or wrapped in ``Variable``."""
    if values(ctx).of(node, scope).rank not in (None, 4) or depth >= _DEPTH:
        return False
    if _moved_or_strided(ctx, node, scope, depth):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        left = node.left
        if values(ctx).of(left, scope).kind == NUMBER:
            left = node.right
        return _channels_last(ctx, left, scope, depth + 1)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and (
            ctx.resolve(node.func) == "torch.autograd.Variable"):
        return _channels_last(ctx, node.args[0], scope, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in CASTS and not node.args and ctx.resolve(node.func) is None:
        return _channels_last(ctx, node.func.value, scope, depth + 1)
    if isinstance(node, ast.Name):
        return bool(_followed(ctx, node, scope, depth, _channels_last))
    return False


def _moved_or_strided(ctx: Context, node: ast.AST, scope: Optional[ast.AST],
                      depth: int) -> bool:
    return _moved(ctx, node, scope, depth) or _strided(ctx, node, scope, depth)


def _sizes(ctx: Context, view: ast.Call) -> Optional[int]:
    """How many sizes ``view`` is given (``0``: one size that may be a shape)."""
    args = view.args
    if any(isinstance(a, ast.Starred) for a in args):
        return None
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
        if any(isinstance(a, ast.Starred) for a in args):
            return None
    if len(args) == 1:
        return 1 if values(ctx).of(args[0]).kind == NUMBER else 0
    return len(args)


def _int(node: ast.AST) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return -inner if inner is not None else None
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _rank_floor(ctx: Context, node: ast.AST, scope: Optional[ast.AST] = None,
                depth: int = 0) -> int:
    """How many dimensions ``node`` has at least, where its rank is not known:
    a slice or ``None`` of an index keeps or adds one; a broadcast has the most
    of its operands'; ``transpose(a, b)`` has 2 and more than ``a`` and ``b``;
    ``torch.cat(xs, d)`` and ``torch.stack(xs, d)`` more than ``d``;
    element-wise methods keep their receiver's; through names, parameters
    and returns as :func:`_strided` follows them."""
    value = values(ctx).of(node, scope)
    if value.kind == TENSOR and value.rank is not None:
        return value.rank  # type: ignore[no-any-return]
    if value.kind == NUMBER:
        return 0
    if isinstance(node, ast.Subscript):
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        kept = sum(1 for p in parts if isinstance(p, ast.Slice) or
                   isinstance(p, ast.Constant) and p.value is None)
        if all(isinstance(p, ast.Slice) or isinstance(p, ast.Constant) and (
                p.value is None or p.value is Ellipsis or type(p.value) is int) for p in parts):
            return max(kept, _rank_floor(ctx, node.value, scope, depth) - sum(
                1 for p in parts if isinstance(p, ast.Constant) and type(p.value) is int))
        return kept  # (a tensor index: each slice and ``None`` still gives one)
    if isinstance(node, ast.BinOp):
        return max(_rank_floor(ctx, node.left, scope, depth),
                   _rank_floor(ctx, node.right, scope, depth))
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        return max(_rank_floor(ctx, node.left, scope, depth),
                   _rank_floor(ctx, node.comparators[0], scope, depth))
    if isinstance(node, ast.UnaryOp):
        return _rank_floor(ctx, node.operand, scope, depth)
    if isinstance(node, ast.Call):
        func, args = node.func, node.args
        name = ctx.resolve(func)
        receiver = args[0] if name is not None and args else None
        if name in ("torch.transpose", "torch.permute"):
            args = args[1:]
        elif name is None and isinstance(func, ast.Attribute):
            receiver = func.value
            name = func.attr
        if receiver is not None and name in ("transpose", "torch.transpose") and \
                len(args) == 2:
            dims = [_int(a) for a in args]
            return max([2, _rank_floor(ctx, receiver, scope, depth)] +
                       [d + 1 for d in dims if d is not None and d >= 0])
        if name in ("torch.cat", "torch.stack") and len(args) <= 2:  # (``cat(outs, 2)``:
            given = args[1] if len(args) == 2 else next(  # a third dimension at least)
                (kw.value for kw in node.keywords if kw.arg == "dim"), None)
            dim = _int(given) if given is not None else None
            return dim + 1 if dim is not None and dim >= 0 else 0
        if receiver is not None and name in ("permute", "torch.permute"):
            if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                args = args[0].elts
            return 0 if any(isinstance(a, ast.Starred) for a in args) else len(args)
        if receiver is not None and (name in _ELEMENTWISE or name in _FUNCTIONS or
                                     name in COMPARISONS or name in CASTS or
                                     name in ("clone", "contiguous")):
            return _rank_floor(ctx, receiver, scope, depth)
    return _followed(ctx, node, scope, depth, _rank_floor, _least, 0)


def _least(floors) -> int:
    return min(floors, default=0)


def _source_of(ctx: Context, node: ast.AST) -> Optional[str]:
    return ctx.source.quote(node, 30)


@rule("TV115")
def view_after_transpose(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``.view(...)`` of an element-wise result of a transposed tensor.

    ## What it does
    Flags ``E.view(...)`` where ``E`` is computed element-wise (``+``, ``*``,
    ``-x``, ``.mul()``, ``.sigmoid()``, ``torch.tanh``, ``F.relu``,
    ``F.dropout``, a comparison ``.eq()``/``==``..., ``.clone()``) from the
    result of ``.transpose()``, ``.permute()`` or ``.t()`` (also of
    ``torch.from_numpy`` of a transposed array), that tensor being
    the first tensor operand, or is a slice (``correct[:k]``) or a cast
    (``.float()``) of such a result (or of the moved tensor itself, where the cast
    evidently changes its type: 0.3 copied), or the output of a 2-D layer that
    keeps the memory layout (``nn.Conv2d``, ``BatchNorm2d``, pooling, activations,
    ``F.conv2d``) of a 4-D input computed, cast or wrapped from one (an ``(N, H,
    W, C)`` batch permuted to ``(N, C, H, W)`` is channels-last, and so is the
    convolution's output now; 0.3's was contiguous), and the view evidently
    merges dimensions (``view(-1)``, or fewer dimensions than ``E`` evidently
    has, at least: ``(x * w[:, :, None]).view(n, -1)`` has three or more, one
    per slice or ``None`` of the index; a ``transpose(a, b)`` has two and more
    than ``a`` and ``b``; a view that only splits dimensions still works).
    ``E`` and its operands are followed through the assignments of the
    function, the returns of the file's functions and of its module classes'
    ``forward`` (``ff(x).view(6, -1)`` where ``FF.forward`` returns
    ``self.conv(x.transpose(1, 2)).transpose(2, 1) + x``), and a parameter
    every caller in the file passes such a value (a ``forward``'s where every
    instance of its class, or of a subclass of the file that inherits its
    ``forward`` (``class BottleLinear(Bottle, nn.Linear)``), is only called:
    one passed along, or a class another file names, is not followed).
    Position: the ``view`` call.  A ``.contiguous()`` in between, a ``view``
    of the transposed tensor itself (which failed on 0.3 too), ``F.softmax``
    (still contiguous) and in-place methods are left alone.

    ## Why is this bad?
    PyTorch 0.3's element-wise kernels returned contiguous tensors.  Since 0.4
    the result's strides follow its first operand's, so the result of
    ``x.t() * 2`` is as non-contiguous as ``x.t()`` (so are a comparison's,
    a cast's and a clone's, which 0.3 made contiguous too), and a ``view`` that merges
    its moved dimensions stops the program on PyTorch 2.13: ``RuntimeError:
    view size is not compatible with input tensor's size and stride (at least
    one dimension spans across two contiguous subspaces). Use .reshape(...)
    instead.``  (A ``view`` that only splits dimensions still works; ``reshape``
    gives the same numbers in both cases.)

    The ImageNet example's ``accuracy`` helper is the common case:
    ``correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))`` then
    ``correct[:k].view(-1)`` stops for any ``k`` above 1.

    ## Example
    ```python
    scores = torch.tanh(h.transpose(0, 1) + bias)
    flat = scores.view(-1, hidden)
    ```

    Use instead:
    ```python
    scores = torch.tanh(h.transpose(0, 1) + bias)
    flat = scores.reshape(-1, hidden)
    ```

    ## Fix safety
    The fix writes ``reshape`` for ``view``, and is *unsafe*: ``reshape`` copies
    where ``view`` cannot, so an in-place write through the result (``flat[0]
    = 0``, ``flat.add_(1)``) no longer reaches ``scores``.  The numbers read
    are the same.
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "view" and node.args):
        return
    if ctx.resolve(func) is not None or len(node.args) == 1 and \
            ctx.resolve(node.args[0]) is not None:
        return  # (a module's ``view``; ``x.view(torch.int32)``: another dtype)
    moving = ctx.memo.get("TV115 moving")
    if moving is None:
        moving = ctx.memo["TV115 moving"] = bool(_MOVING.search(ctx.text))
    if not moving:
        return  # (no moved tensor in the file)
    sizes = _sizes(ctx, node)
    receiver = values(ctx).of(func.value)
    if not sizes or receiver.kind == NDARRAY or \
            sizes > 1 and receiver.rank is not None and sizes >= receiver.rank or \
            not _strided(ctx, func.value):
        return
    if sizes > 1 and receiver.rank is None and sizes >= _rank_floor(ctx, func.value):
        return  # (a view that may only split dimensions works)
    made = rename(ctx, func, "reshape", "")
    fix = Fix((made[0],), UNSAFE) if made is not None else None
    yield Report(
        node,
        f"`{_source_of(ctx, func.value)}` is computed (element-wise, or by a layer that keeps "
        "the memory layout) from a transposed tensor and keeps its strides since PyTorch "
        "0.4: `view` raises RuntimeError (view size is "
        "not compatible with input tensor's size and stride) wherever the transposed "
        "dimensions are both larger than 1; use `.reshape(...)`",
        fix,
    )
