"""TV123: softmax, log_softmax and softmin without ``dim``."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Tuple

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.values import TENSOR, values
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


def _enclosing_class(ctx: Context) -> Optional[ast.ClassDef]:
    for parent in reversed(ctx.parents):
        if isinstance(parent, ast.ClassDef):
            return parent
    return None


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
    ``x.unsqueeze(0)`` of a value of known rank, ``torch.mv`` (1-D),
    ``torch.mm`` (2-D), ``torch.bmm`` (3-D), and rank-keeping steps from
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
    ``0`` (check that this is the dimension you mean); where the input is arithmetic
    between a tensor of evident rank and a value of unknown kind (``theta * logits``
    with ``logits`` 1-D and ``theta = args.theta``), the unsafe fix writes that
    tensor's implicit dim instead, and the message says so.
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
    rank = None
    if qualname in _MODULES:
        uses = _module_uses(ctx, node)
        if uses:
            inputs = _call_inputs(ctx, uses)
    if inputs:
        facts = values(ctx)
        found = [facts.of(i, _function_of(ctx, i)) for i in inputs]
        ranks = {v.rank if v.kind in (TENSOR, None) else None for v in found}
        if len(ranks) == 1:
            rank = ranks.pop()
    guess = None
    if rank is not None:
        dim, safety = implicit_dim(rank), SAFE
        why = f"its input is {rank}-D here, so torch picks dim={dim}"
    else:
        guess = _operand(ctx, inputs) if inputs and len(inputs) == 1 else None
        dim, safety = implicit_dim(guess[1]) if guess else 1, UNSAFE
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
        f"pass `dim={dim}`" + ("" if rank is not None else
                               f" if the input is {guess[1]}-D as `{guess[0]}` is" if guess
                               else " if that is the class dimension"),
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


def _operand(ctx: Context, inputs: List[ast.AST]) -> Optional[Tuple[str, int]]:
    """For an unsafe fix only: ``s * scale`` with ``s`` of known rank and ``scale`` of
    unknown kind (``args.theta``) is most likely of ``s``'s rank (the operand's text and
    rank), where ``scale`` is a number; a tensor ``scale`` could broadcast it higher."""
    node = inputs[0]
    if not isinstance(node, ast.BinOp):
        return None
    facts, scope = values(ctx), _function_of(ctx, node)
    left, right = facts.of(node.left, scope), facts.of(node.right, scope)
    for known, other, operand in ((left, right, node.left), (right, left, node.right)):
        if known.tensor and known.rank is not None and other.kind is None:
            return ctx.source.quote(operand, 20), known.rank
    return None


def _function_of(ctx: Context, node: ast.AST) -> ast.AST:
    """The function (or module) around ``node``."""
    parents = ctx.file_parents()
    parent = parents.get(id(node))
    while parent is not None and not isinstance(
            parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        parent = parents.get(id(parent))
    return parent if parent is not None else ctx.tree
