"""TV123: softmax, log_softmax and softmin without ``dim``."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.flow import Flow
from ..analysis.nodes import every_node
from ..analysis.registry import rule
from ..analysis.resolve import key
from .shared.calls import append_arguments, argument, plain_arguments

_FUNCTIONS = {
    "torch.nn.functional.softmax": "softmax",
    "torch.nn.functional.log_softmax": "log_softmax",
    "torch.nn.functional.softmin": "softmin",
}
_MODULES = {
    "torch.nn.Softmax": "Softmax",
    "torch.nn.LogSoftmax": "LogSoftmax",
    "torch.nn.Softmin": "Softmin",
    "torch.nn.modules.activation.Softmax": "Softmax",
    "torch.nn.modules.activation.LogSoftmax": "LogSoftmax",
    "torch.nn.modules.activation.Softmin": "Softmin",
}

# -- the rank of a value, from simple evidence in the file -----------------

#: methods and functions whose result has the rank of their receiver / first argument
_SAME_RANK_METHODS = frozenset((
    "contiguous", "float", "double", "half", "cuda", "cpu", "clone", "detach", "to",
    "type_as", "relu", "tanh", "sigmoid", "exp", "log", "abs", "neg", "sqrt",
))
_SAME_RANK_FUNCTIONS = frozenset(
    [f"torch.nn.functional.{f}" for f in (
        "relu", "relu6", "elu", "selu", "celu", "gelu", "leaky_relu", "dropout", "tanh",
        "sigmoid", "linear", "softplus", "hardtanh")]
    + [f"torch.{f}" for f in ("relu", "tanh", "sigmoid", "exp", "log", "abs")]
    + ["torch.autograd.Variable"]
)
#: modules whose output has the rank of their input (nn.Linear keeps the leading dims)
_SAME_RANK_MODULES = frozenset(f"torch.nn.{m}" for m in (
    "Linear", "ReLU", "ReLU6", "ELU", "SELU", "LeakyReLU", "Tanh", "Sigmoid", "Dropout",
    "Softplus",
))
_FACTORIES = frozenset(f"torch.{f}" for f in ("randn", "rand", "zeros", "ones", "empty"))
_MATRIX = {"mm": 2, "matmul": None, "bmm": 3}
_DEPTH = 12


def _int(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _shape_length(args: List[ast.AST]) -> Optional[int]:
    """How many dimensions ``view(*args)`` / ``torch.zeros(*args)`` gives."""
    if not args or any(isinstance(a, ast.Starred) for a in args):
        return None
    if len(args) > 1:
        return len(args)  # each argument is one size
    only = args[0]
    if isinstance(only, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in only.elts):
            return None
        return len(only.elts)
    return 1 if _int(only) else None  # a name may hold a whole shape


class Ranks:
    """Ranks of expressions, followed through assignments in one function."""

    def __init__(self, ctx: Context, flow: Flow) -> None:
        self.ctx = ctx
        self.flow = flow

    def of(self, node: ast.AST, depth: int = 0) -> Optional[int]:
        if depth > _DEPTH:
            return None
        depth += 1
        if isinstance(node, (ast.Name, ast.Attribute)) and key(node):
            return self._assigned(node, depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.of(node.operand, depth)
        if isinstance(node, ast.BinOp):
            if _number(node.left):
                return self.of(node.right, depth)
            if _number(node.right):
                return self.of(node.left, depth)
            return None
        if isinstance(node, ast.Call) and all(kw.arg is not None for kw in node.keywords):
            return self._call(node, depth)
        return None

    def _assigned(self, node: ast.AST, depth: int) -> Optional[int]:
        defs = self.flow.reaching(node)
        if not defs:
            return None
        ranks = set()
        for d in defs:
            if d.kind != "assign" or d.value is None:
                return None
            ranks.add(self.of(d.value, depth))
            if len(ranks) > 1 or None in ranks:
                return None
        return ranks.pop()

    def _call(self, node: ast.Call, depth: int) -> Optional[int]:
        func = node.func
        args = node.args
        qualname = self.ctx.resolve(func)
        if qualname in _SAME_RANK_FUNCTIONS and args:
            return self.of(args[0], depth)
        if qualname in _FACTORIES:
            return _shape_length(args)
        if isinstance(func, ast.Attribute) and qualname is None:
            attr = func.attr
            if attr in ("view", "reshape"):
                return _shape_length(args)
            if attr == "unsqueeze" and len(args) == 1:
                inner = self.of(func.value, depth)
                return inner + 1 if inner is not None else None
            if attr == "flatten" and not node.keywords:
                if not args:
                    return 1
                if len(args) == 1 and isinstance(args[0], ast.Constant) and type(
                        args[0].value) is int and args[0].value >= 0:
                    return args[0].value + 1
                return None
            if attr in _SAME_RANK_METHODS and len(args) <= 1:
                return self.of(func.value, depth)
            if attr in _MATRIX and len(args) == 1 and _MATRIX[attr]:
                return _MATRIX[attr]
        if len(args) == 1 and self._rank_keeping_module(func):
            return self.of(args[0], depth)
        return None

    def _rank_keeping_module(self, func: ast.AST) -> bool:
        """``self.fc`` / ``fc`` bound only to ``nn.Linear(...)`` (or an activation)."""
        values = module_values(self.ctx, self.flow, func)
        return bool(values) and all(
            isinstance(v, ast.Call) and self.ctx.resolve(v.func) in _SAME_RANK_MODULES
            for v in values
        )


def _enclosing_class(ctx: Context) -> Optional[ast.ClassDef]:
    for parent in reversed(ctx.parents):
        if isinstance(parent, ast.ClassDef):
            return parent
    return None


def module_values(ctx: Context, flow: Flow, func: ast.AST) -> List[ast.AST]:
    """What ``self.NAME`` (assigned anywhere in the enclosing class) or a local
    ``NAME`` (in this function) is assigned."""
    if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == "self"):
        cls = _enclosing_class(ctx)
        if cls is None:
            return []
        values = []
        for node in every_node(cls):  # (in any order: one node that says no is enough)
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if (isinstance(target, ast.Attribute) and target.attr == func.attr
                            and isinstance(target.value, ast.Name)
                            and target.value.id == "self"):
                        if isinstance(node, ast.AugAssign) or node.value is None:
                            return []
                        values.append(node.value)
                    elif not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
                        if any(isinstance(t, ast.Attribute) and t.attr == func.attr
                               for t in ast.walk(target)):
                            return []
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                    node.func.id in ("setattr", "delattr")):
                return []
        return values
    if isinstance(func, ast.Name):
        return list(flow.assigned.get(func.id, [])) if func.id in flow.assigned else []
    return []


def implicit_dim(rank: int) -> int:
    """``torch.nn.functional._get_softmax_dim``."""
    return 0 if rank in (0, 1, 3) else 1


# -- the rule --------------------------------------------------------------


def _missing_dim(call: ast.Call, index: int) -> Optional[ast.AST]:
    """Whether ``dim`` is missing; returns the ``None`` given for it, if any
    (``call`` itself when it is absent), else ``None``."""
    given = argument(call, index, "dim")
    if given is None:
        return call
    if isinstance(given, ast.Constant) and given.value is None:
        return given
    return None


def _module_uses(ctx: Context, node: ast.Call) -> Optional[List[ast.AST]]:
    """The inputs of every call of the module ``node`` builds, when it is bound
    to ``self.NAME`` (calls in the class) or a local name (calls in the function)."""
    parent = ctx.parent
    if not (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1):
        return None
    target = parent.targets[0]
    k = key(target)
    if k is None:
        return None
    if isinstance(target, ast.Attribute):
        if not (isinstance(target.value, ast.Name) and target.value.id == "self"):
            return None
        scope = _enclosing_class(ctx)
    elif isinstance(target, ast.Name):
        scope = ctx.flow().node
    else:
        return None
    if scope is None:
        return None
    inputs = []
    for sub in ast.walk(scope):
        if isinstance(sub, ast.Name) and sub.id == k and isinstance(target, ast.Name) or (
            isinstance(sub, ast.Attribute) and key(sub) == k
        ):
            if isinstance(sub.ctx, ast.Store):
                continue
            inputs.append(sub)
    return inputs


@rule("TV123")
def softmax_dim(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags softmax, log_softmax and softmin without ``dim``.

    ## What it does
    Flags ``F.softmax(x)``, ``F.log_softmax(x)``, ``F.softmin(x)`` and
    ``nn.Softmax()``, ``nn.LogSoftmax()``, ``nn.Softmin()`` (resolved through
    imports) given no ``dim`` or ``dim=None``.  Position: the call.  ``dim``
    given by position (``F.softmax(x, 1)``) or keyword is fine.

    The input's rank is taken as evident only from simple, reliable evidence
    in the same function (or, for a module stored as ``self.NAME`` or a local
    name, from every call of it): ``x.view(-1, 320)``, ``x.view(n, c, h, w)``,
    ``x.reshape(...)``, ``x.flatten(1)``, ``torch.randn(4, 10)``,
    ``x.unsqueeze(0)`` of a value of known rank, and rank-keeping steps from
    such a value: ``nn.Linear``, activations and dropout (functions, methods
    or modules bound to ``self.NAME`` in the class), ``.contiguous()``,
    ``.float()``, arithmetic with a number; followed through the assignments
    that reach the read (every one must agree).  A ``Linear`` output alone is
    not evidence: ``nn.Linear`` keeps every leading dimension, so its output
    has the rank of its input.

    ## Why is this bad?
    Before PyTorch 0.3 these functions picked the dimension themselves: ``0``
    for 0-, 1- and 3-D inputs, ``1`` otherwise.  On PyTorch 2.13 they still
    do, and each call warns ``UserWarning: Implicit dimension choice for
    softmax has been deprecated. Change the call to include dim=X as an
    argument.``  The implicit choice is rarely what a 3-D input (sequence x
    batch x features) meant.

    ## Example
    ```python
    x = x.view(-1, 320)
    x = F.relu(self.fc1(x))
    return F.log_softmax(self.fc2(x))
    ```

    Use instead:
    ```python
    x = x.view(-1, 320)
    x = F.relu(self.fc1(x))
    return F.log_softmax(self.fc2(x), dim=1)
    ```

    ## Fix safety
    Where the input's rank is evident, the fix writes the dimension torch
    picked implicitly (``dim=1`` for 2-D, ``dim=0`` for 1- and 3-D): *safe*,
    the same numbers.  Elsewhere the fix writes ``dim=1`` and is *unsafe*: it
    changes the result for 1-D and 3-D inputs, where the implicit choice was
    ``0`` (check that this is the dimension you mean).
    """
    qualname = ctx.resolve(node.func)
    if qualname in _FUNCTIONS:
        if not node.args or not plain_arguments(node):
            return
        missing = _missing_dim(node, 1)
        inputs: Optional[List[ast.AST]] = [node.args[0]]
        name = ctx.source.quote(node.func, 30)
    elif qualname in _MODULES:
        if not plain_arguments(node):
            return
        missing = _missing_dim(node, 0)
        inputs = None
        name = ctx.source.quote(node.func, 30)
    else:
        return
    if missing is None:
        return
    flow = ctx.flow()
    rank = None
    if qualname in _MODULES:
        uses = _module_uses(ctx, node)
        if uses:
            inputs = _call_inputs(ctx, uses)
    if inputs:
        ranks = {Ranks(ctx, flow if qualname in _FUNCTIONS else _flow_of(ctx, i)).of(i)
                 for i in inputs}
        if len(ranks) == 1:
            rank = ranks.pop()
    if rank is not None:
        dim, safety = implicit_dim(rank), SAFE
        why = f"its input is {rank}-D here, so torch picks dim={dim}"
    else:
        dim, safety = 1, UNSAFE
        why = "torch picks dim=0 for 0-, 1- and 3-D inputs, else 1"
    src = ctx.source
    if missing is node:
        edit = append_arguments(ctx, node, f"dim={dim}")
    else:
        edit = src.replace(missing, str(dim))
    fix = Fix((edit,), safety) if edit is not None else None
    yield Report(
        node,
        f"`{name}` without dim is deprecated since PyTorch 0.3 ({why}); "
        f"pass `dim={dim}`" + ("" if rank is not None else " if that is the class dimension"),
        fix,
    )


def _call_inputs(ctx: Context, uses: List[ast.AST]) -> Optional[List[ast.AST]]:
    """The first argument of each call of the module (``None`` if it is used otherwise)."""
    parents = {}
    scope = _enclosing_class(ctx) or ctx.flow().node
    for sub in ast.walk(scope):
        for child in ast.iter_child_nodes(sub):
            parents[id(child)] = sub
    inputs = []
    for use in uses:
        call = parents.get(id(use))
        if not (isinstance(call, ast.Call) and call.func is use and len(call.args) == 1
                and not call.keywords):
            return None
        inputs.append(call.args[0])
    return inputs


def _flow_of(ctx: Context, node: ast.AST) -> Flow:
    """The flow of the function around ``node`` (found in the enclosing class)."""
    cls = _enclosing_class(ctx)
    if cls is not None:
        for sub in ast.walk(cls):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(sub):
                    if inner is node:
                        cache = ctx.memo.setdefault("TV123-flows", {})
                        flow = cache.get(id(sub))
                        if flow is None:
                            flow = cache[id(sub)] = Flow(sub, ctx)
                        return flow
    return ctx.flow()
