"""TV140: ``isinstance(x, Variable)`` as a test, always true for tensors since PyTorch 0.4."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional

from ..analysis.canonical import VARIABLE
from ..analysis.context import Context
from ..analysis.findings import Report
from ..analysis.nodes import innermost
from ..analysis.registry import rule
from ..analysis.resolve import builtin_call, key

_TESTED = (ast.If, ast.While, ast.IfExp, ast.Assert)
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_SINCE = "is True for any tensor since PyTorch 0.4"


@rule("TV140")
def isinstance_variable(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``isinstance(x, Variable)`` deciding a branch, which 0.4 made always true.

    ## What it does
    Flags ``isinstance(x, Variable)`` (torch's ``Variable``, through imports;
    also inside a tuple of classes) when it is the test of an ``if``,
    ``elif``, ``while``, conditional expression or ``assert``, directly or
    under ``not``, and a branch of it that handles plain tensors is dead: an
    ``elif`` testing ``isinstance(x, torch.Tensor)`` (or a legacy type,
    ``torch._TensorBase``, ``torch.is_tensor(x)``); an ``else``, the code
    after an ``if`` whose body ends in ``return``/``raise``/``continue``/
    ``break`` on every path, the body of a negated test or the other arm of a
    conditional expression, when it treats ``x`` as a tensor (a tensor-only
    or in-place method of ``x``, a torch function given ``x``); a ``while``
    loop (an unwrapping loop that never ends) and an ``assert`` (it can no
    longer fail, or always fails).  Branches for other objects (``elif
    isinstance(x, (list, tuple))``, ``else: return x == y``) and a plain ``if
    isinstance(x, Variable): x = x.data`` with nothing dead behind it are
    left alone: its body now runs for every tensor, which for such an unwrap
    changes nothing.  ``Variable`` that is not torch's, a
    tuple that also names a tensor type (``(Variable, torch.Tensor)``: code
    that already accepts both) and compatibility branches are not flagged;
    nor is code behind the test that converts the subject from a non-tensor
    (``torch.from_numpy(x)``, ``torch.tensor(x)``, ``np.asarray(x)``): callers
    pass arrays there, and that code is alive.  When an earlier test takes
    every tensor first (``if torch.is_tensor(x): ... elif isinstance(x,
    Variable):``, or an ``if isinstance(x, torch.Tensor):`` before it that
    always exits), the message says that the Variable branch is what is dead.
    The message says which branch is dead, and when the Variable branch calls
    the enclosing function again with ``x.data``, that it recurses forever and
    that ``x.requires_grad`` is the test that still tells a tracked tensor
    (whose ``.data`` does not require grad, so the recursion ends) from the
    rest.

    ## Why is this bad?
    Since PyTorch 0.4 ``Tensor`` and ``Variable`` are one class:
    ``isinstance(t, Variable)`` is ``True`` for every tensor (``Variable`` is
    kept as a name whose instance check accepts any tensor).  Code written for
    0.3 that dispatched on it silently takes the Variable branch for plain
    tensors; a function that unwraps ``x.data`` and calls itself on it (old
    copies of allennlp's ``block_orthogonal``) recurses until
    ``RecursionError``, because ``x.data`` is a ``Variable`` too.

    ## Example
    ```python
    def block_orthogonal(tensor, split_sizes, gain=1.0):
        if isinstance(tensor, Variable):
            block_orthogonal(tensor.data, split_sizes, gain)
            return tensor
        sizes = list(tensor.size())
        ...
    ```

    Use instead:
    ```python
    def block_orthogonal(tensor, split_sizes, gain=1.0):
        sizes = list(tensor.size())
        ...  # (under `with torch.no_grad():` where it writes into `tensor`)
    ```

    ## Fix safety
    No automatic fix: which branch to keep is the user's decision (usually
    the Variable branch, but not when that branch only unwraps and recurses),
    and code past the dead branch may depend on it.
    """
    test = node.test
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, not negated
    if not _is_variable_check(ctx, test):
        return
    quoted = ctx.source.quote(test, 40)
    caught = _caught_before(ctx, node, key(test.args[0]))
    if caught is not None:
        # ``if torch.is_tensor(x): ... elif isinstance(x, Variable):``: no tensor gets here
        yield Report(test, f"`{quoted}` {_SINCE}, but the test on line {caught} takes every "
                           "tensor first (Variables too, now): this branch is dead for "
                           "tensors; move what it does for Variables into that one")
        return
    dead = _dead(ctx, node, test, negated)
    if dead is not None:
        yield Report(test, f"`{quoted}` {_SINCE}: {dead}")


def _is_variable_check(ctx: Context, test: ast.AST) -> bool:
    if not builtin_call(test, ctx.scope, "isinstance", 2):
        return False
    classes = test.args[1]
    elts: List[ast.AST] = list(classes.elts) if isinstance(classes, ast.Tuple) else [classes]
    names = [ctx.resolve(elt) if isinstance(elt, (ast.Name, ast.Attribute)) else None
             for elt in elts]
    if VARIABLE not in names:
        return False
    # ``(Variable, torch.Tensor)``: written to accept both, nothing is dead
    return not any(
        name and name.startswith("torch.") and name.endswith(("Tensor", "TensorBase"))
        for name in names
    )


def _dead(ctx: Context, node: ast.AST, test: ast.Call, negated: bool) -> Optional[str]:
    """What is dead for tensors, with the advice; ``None`` when nothing is."""
    if isinstance(node, ast.Assert):
        if negated:
            return "this assert fails for any tensor; drop it"
        return "this assert always passes for tensors; drop it"
    if isinstance(node, ast.While):
        if negated:
            return "this loop is dead for tensors; drop it"
        return "an unwrapping loop never ends; drop it"
    subject = key(test.args[0])
    if isinstance(node, ast.IfExp):
        arm = node.body if negated else node.orelse
        keep = node.orelse if negated else node.body
        if not _tensor_code(ctx, [arm], subject):
            return None
        return (f"`{ctx.source.quote(arm, 25)}` is dead for tensors; "
                f"use `{ctx.source.quote(keep, 25)}`")
    # an ``if`` (or ``elif``)
    recursion = _recursion(ctx, node, test.args[0], negated) is not None
    if negated:
        if not _tensor_code(ctx, node.body, subject) or _converts(ctx, node.body, subject):
            return None
        what = "its body is dead for tensors"
        if node.orelse:
            what += ", the `else` always runs"
        return f"{what}; keep the Variable branch only"
    dead = _dead_branch(ctx, node, subject)
    if dead is None and _always_exits(node.body) and (
            recursion or _tensor_code(ctx, _following(ctx, node), subject)):
        if not recursion and _converts(ctx, _following(ctx, node), subject):
            return None  # numpy input goes on there: that code is alive
        dead = "the code after this `if` is dead for tensors"
    if dead is None:
        return None
    if recursion:
        quoted = ctx.source.quote(test.args[0], 20)
        return (f"{dead}, and the call on `{quoted}.data` recurses forever; "
                f"test `{quoted}.requires_grad` instead")
    return f"{dead}; keep the Variable branch only"


def _dead_branch(ctx: Context, node: ast.If, subject: Optional[str]) -> Optional[str]:
    """The ``elif`` that tests for a tensor type, or an ``else`` that handles tensors."""
    orelse = node.orelse
    while len(orelse) == 1 and isinstance(orelse[0], ast.If) and _is_elif(ctx, node):
        node = orelse[0]
        if _tests_for_tensor(ctx, node.test, subject):
            return f"the `elif` on line {node.lineno} is dead"
        orelse = node.orelse
    if orelse and _tensor_code(ctx, orelse, subject) and not _converts(ctx, orelse, subject):
        return "the `else` branch is dead for tensors"
    return None


#: ``torch.Tensor`` and the legacy types: a test for one of them is a test for a tensor
def _tensor_type(name: Optional[str]) -> bool:
    return bool(name) and name.startswith("torch.") and name.endswith(("Tensor", "TensorBase"))


def _tests_for_tensor(ctx: Context, test: ast.AST, subject: Optional[str]) -> bool:
    """``isinstance(x, torch.Tensor)``, ``isinstance(x, torch._TensorBase)``,
    ``torch.is_tensor(x)`` on the same subject."""
    if not isinstance(test, ast.Call) or not test.args or subject is None:
        return False
    if key(test.args[0]) != subject:
        return False
    func = test.func
    if ctx.resolve(func) == "torch.is_tensor":
        return True
    if isinstance(func, ast.Name) and func.id == "isinstance" and len(test.args) == 2:
        classes = test.args[1]
        elts = classes.elts if isinstance(classes, ast.Tuple) else [classes]
        return any(_tensor_type(ctx.resolve(e)) for e in elts
                   if isinstance(e, (ast.Name, ast.Attribute)))
    return False


#: methods of a tensor that a list, a number or a numpy array lacks (or spells otherwise)
_TENSOR_METHODS = frozenset((
    "cpu", "cuda", "dim", "numel", "size", "storage", "storage_type", "type", "float",
    "long", "double", "half", "byte", "contiguous", "view", "new", "data", "normal_",
    "uniform_", "fill_", "zero_", "copy_", "masked_fill", "unsqueeze", "type_as",
))


def _tensor_code(ctx: Context, nodes: List[ast.AST], subject: Optional[str]) -> bool:
    """Whether ``nodes`` treat the subject as a tensor: a tensor-only method or an
    in-place method on it, or a torch function (``Variable`` too) given it."""
    if subject is None:
        return False
    for root in _before_rebinding(nodes, subject):
        for sub in ast.walk(root):
            if isinstance(sub, ast.Attribute) and key(sub.value) == subject:
                attr = sub.attr
                if attr in _TENSOR_METHODS or (
                        attr.endswith("_") and not attr.startswith("_")):
                    return True
            elif isinstance(sub, ast.Call) and any(key(a) == subject for a in sub.args):
                name = ctx.resolve(sub.func)
                if name is not None and name.startswith("torch."):
                    return True
    return False


def _before_rebinding(nodes: List[ast.AST], subject: str) -> Iterator[ast.AST]:
    """What of ``nodes`` (statements in order, or expressions) runs while the
    subject is still what the test saw: up to the first statement that rebinds
    it, of which only the value counts (``x = x.cuda()`` is about the tested
    ``x``; after ``x = torch.from_numpy(helper(x))`` a use of ``x`` is not)."""
    for root in nodes:
        if isinstance(root, ast.stmt) and any(
                isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Store)
                and key(n) == subject for n in ast.walk(root)):
            if isinstance(root, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and root.value:
                yield root.value
            return
        yield root


#: functions that make a tensor (or an array) from what is not one: code that
#: calls them on the subject is there for numpy arrays, lists, numbers
_CONVERTERS = frozenset((
    "torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor",
    "torch.DoubleTensor", "torch.LongTensor", "torch.IntTensor", "torch.ByteTensor",
    "torch.cuda.FloatTensor", "torch.cuda.LongTensor",
))


def _converts(ctx: Context, nodes: List[ast.AST], subject: Optional[str]) -> bool:
    """Whether ``nodes`` convert the subject from a non-tensor: ``torch.from_numpy(x)``,
    ``torch.tensor(x)``, ``np.asarray(x)`` (then they are alive for such input)."""
    if subject is None:
        return False
    for root in _before_rebinding(nodes, subject):
        for sub in ast.walk(root):
            if isinstance(sub, ast.Call) and any(key(a) == subject for a in sub.args):
                name = ctx.resolve(sub.func)
                if name is not None and (name in _CONVERTERS or name.startswith("numpy.")):
                    return True
    return False


def _caught_before(ctx: Context, node: ast.AST, subject: Optional[str]) -> Optional[int]:
    """The line of an earlier test that takes every tensor before ``node`` is
    reached: the ``if``/``elif`` before it in its chain, or an ``if`` before it
    in its block whose body always exits."""
    if subject is None or not isinstance(node, ast.If):
        return None
    child: ast.AST = node
    for parent in reversed(ctx.parents):
        if isinstance(parent, ast.If) and parent.orelse == [child]:
            if _tests_for_tensor(ctx, parent.test, subject):
                return parent.lineno
            child = parent
            continue
        break
    for stmt in _preceding(ctx, child):
        if (isinstance(stmt, ast.If) and _tests_for_tensor(ctx, stmt.test, subject)
                and _always_exits(stmt.body)):
            return stmt.lineno
    return None


def _preceding(ctx: Context, node: ast.AST) -> List[ast.stmt]:
    """The statements before ``node`` in its block."""
    parent = ctx.file_parents().get(id(node), ctx.tree)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and node in block:
            return block[:block.index(node)]
    return []


def _following(ctx: Context, node: ast.stmt) -> List[ast.stmt]:
    """The statements after ``node`` in its block."""
    parent = ctx.parent
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and node in block:
            return block[block.index(node) + 1:]
    return []


def _always_exits(body: List[ast.stmt]) -> bool:
    """Whether every path through ``body`` ends in ``return``/``raise``/``continue``/
    ``break`` (so that the code after it runs only when the test is false)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, _EXITS):
        return True
    if isinstance(last, ast.If):
        return _always_exits(last.body) and _always_exits(last.orelse)
    return False


def _is_elif(ctx: Context, node: ast.If) -> bool:
    orelse = node.orelse
    if len(orelse) != 1 or not isinstance(orelse[0], ast.If):
        return False
    line = ctx.source.lines[orelse[0].lineno - 1]
    return line.lstrip().startswith("elif")


def _recursion(ctx: Context, node: ast.If, subject: ast.AST, negated: bool) -> Optional[str]:
    """The call in the Variable branch of the enclosing function on ``subject.data``
    (whose tests are True again: it recurses until ``RecursionError``)."""
    function = _enclosing_function(ctx)
    subject_key = key(subject)
    if function is None or subject_key is None:
        return None
    branch = node.orelse if negated else node.body
    for stmt in branch:
        for sub in ast.walk(stmt):
            if not isinstance(sub, ast.Call):
                continue
            callee = sub.func
            name = callee.id if isinstance(callee, ast.Name) else (
                callee.attr if isinstance(callee, ast.Attribute)
                and isinstance(callee.value, ast.Name) and callee.value.id in ("self", "cls")
                else None)
            if name != function.name:
                continue
            for arg in [*sub.args, *(kw.value for kw in sub.keywords)]:
                if (isinstance(arg, ast.Attribute) and arg.attr == "data"
                        and key(arg.value) == subject_key):
                    return ctx.source.quote(sub, 22)
    return None


def _enclosing_function(ctx: Context) -> Optional[ast.AST]:
    return innermost(ctx.parents, (ast.FunctionDef, ast.AsyncFunctionDef),
                     (ast.ClassDef, ast.Lambda))
