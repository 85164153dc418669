"""TV104: legacy ``torch.autograd.Function`` subclasses with a non-static ``forward``."""
from __future__ import annotations

import ast
from collections import deque
from typing import Dict, Iterator, List, Optional, Tuple

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.nodes import children, every_node
from ..analysis.registry import rule
from ..source.text import Edit, has_comment
from .shared.functions import (
    FUNCTION_BASES, function_subclass as _legacy_base, static as _static
)

#: ``ctx`` methods and attributes a legacy ``self`` used the same way
_CTX = "ctx"
_MAX_LINES_IN_MESSAGE = 3


@rule("TV104")
def legacy_function(ctx: Context, node: ast.ClassDef) -> Iterator[Report]:
    """Flags legacy autograd Functions, whose ``forward`` is not a ``@staticmethod``.

    ## What it does
    Flags a subclass of ``torch.autograd.Function`` (resolved through
    imports; a project's own ``Function`` is never torch's) that defines
    ``forward`` without ``@staticmethod``; also through another class: of the
    file, or of a project module it imports (``from .base import BaseFn``, also
    through star imports; ``analysis/project/classes.py``).  The finding is placed at the
    ``class`` statement and its message names the lines of the instance calls
    ``Fn(...)(x)`` in the file (and ``fn(x)`` of an instance kept as
    ``fn = Fn(...)``), which are not reported separately.  A
    ``Function`` with a static ``forward`` (new style) is not flagged.
    A class the file uses only as ``Fn(...).forward(x)`` (and no other module
    can import) gets another message and no fix: that is a plain method call,
    which autograd differentiated through what ``forward`` computes on 0.3 too,
    never calling ``backward``; ``Fn.apply`` would use ``backward`` (other
    gradients, where it was never right), so the advice is to drop ``Function``
    from the bases (instantiating one warns ``DeprecationWarning``).

    ## Why is this bad?
    Calling an instance of a legacy Function raises ``RuntimeError: Legacy
    autograd function with non-static forward method is deprecated`` on
    current PyTorch (2.13): the old style, ``Fn(state)(x)`` with ``self`` holding the
    state, was replaced by static ``forward(ctx, ...)``/``backward(ctx, ...)``
    called through ``Fn.apply``.

    ## Example
    ```python
    class Scale(Function):
        def __init__(self, factor):
            super(Scale, self).__init__()
            self.factor = factor

        def forward(self, x):
            return x * self.factor

        def backward(self, grad):
            return grad * self.factor

    y = Scale(2.0)(x)
    ```

    Use instead:
    ```python
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.factor = factor
            return x * ctx.factor

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.factor, None

    y = Scale.apply(x, 2.0)
    ```

    ## Fix safety
    The rewrite is *unsafe*, and only offered when it is mechanical: the class
    derives from torch's ``Function`` directly (what it inherits from a class in
    between is not rewritten with it), the class and every use of its name are in
    the file, each use is a call
    ``Fn(args)(inputs)`` with plain arguments -- or an instance kept under a
    name, ``fn = Fn(constants)`` on lines of its own, which the file binds
    nowhere else and reads only in later calls ``fn(inputs)`` in the same
    function (the assignment is deleted) -- the class has no methods
    besides ``__init__``, ``forward`` and ``backward``, ``__init__`` only calls
    the base ``__init__`` and stores its parameters (``self.a = a``), and every
    ``return`` of ``backward`` visibly gives one gradient per input.  The fix
    makes ``forward``/``backward`` static with ``ctx`` for ``self``, moves
    ``__init__``'s parameters to the end of ``forward``'s (stored on ``ctx``
    there), appends a ``None`` gradient for each, and turns the calls into
    ``Fn.apply(inputs, args)``.  Otherwise the message spells the rewrite out.
    """
    methods = {
        item.name: item for item in node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    forward = methods.get("forward")
    if forward is None or _static(forward) or _class_bound(forward):
        return
    # (a module's other modules are asked only for a class that could be a Function:
    # one that defines ``backward``, in a file that names ``Function``: an
    # ``nn.Module`` subclass of a project base, the common case, pays nothing)
    if not _legacy_base(ctx, node, 0, "backward" in methods or _says_function(ctx)):
        return
    uses = _uses(ctx, node)
    direct_calls = _forward_called(ctx, node, uses)
    if direct_calls:
        lines = ", ".join(str(line) for line in direct_calls[:_MAX_LINES_IN_MESSAGE])
        plural = "s" if len(direct_calls) > 1 else ""
        yield Report(
            node,
            f"`{node.name}` is a legacy autograd Function called only as "
            f"`{node.name}().forward(...)` (line{plural} {lines}): a plain method call, "
            f"which autograd differentiates through what `forward` computes, never "
            f"through `backward` (as on 0.3); instantiating a Function warns "
            f"DeprecationWarning on current PyTorch (an error in a future version): drop "
            f"`Function` from its bases, not `{node.name}.apply` (which would use `backward`)",
        )
        return
    calls = _instance_calls(ctx, uses)
    named = _named_instances(ctx, uses, calls)
    where = ""
    if calls or named:
        lines = sorted({outer.lineno for outer, _ in calls.values()} | {
            outer.lineno for _, _, outers in named.values() for outer in outers})
        shown = ", ".join(str(line) for line in lines[:_MAX_LINES_IN_MESSAGE])
        more = ", ..." if len(lines) > _MAX_LINES_IN_MESSAGE else ""
        plural = "s" if len(lines) > 1 else ""
        where = f"; called on line{plural} {shown}{more}"
    # (through another class of the file or project: what it inherits from it is not
    # rewritten here, so no fix)
    direct = any(ctx.resolve(base) in FUNCTION_BASES for base in node.bases)
    fix = _fix(ctx, node, methods, uses, calls, named) if direct else None
    state = ""
    if fix is None and "__init__" in methods:
        state = ", `__init__` arguments as extra inputs (None gradients)"
    yield Report(
        node,
        f"legacy autograd Function `{node.name}` (non-static `forward`{where}) raises "
        f"RuntimeError on current PyTorch; use static forward/backward(ctx, ...){state} "
        f"and `{node.name}.apply(...)`",
        fix,
    )


def _says_function(ctx: Context) -> bool:
    """Whether the file's text says ``Function`` (searched once per file)."""
    found = ctx.memo.get("says Function")
    if found is None:
        found = ctx.memo["says Function"] = "Function" in ctx.text
    return found  # type: ignore[no-any-return]


def _forward_called(ctx: Context, node: ast.ClassDef, uses: List[ast.Name]) -> List[int]:
    """The lines of the uses of the class, where every one is ``Fn(...).forward(...)``
    and no other module of the project can import it; else ``[]``."""
    from ..analysis.project.importers import named_elsewhere

    if not uses:
        return []
    parents = ctx.file_parents()
    lines = []
    for use in uses:
        made = parents.get(id(use))
        method = parents.get(id(made))
        call = parents.get(id(method))
        if not (isinstance(made, ast.Call) and made.func is use
                and isinstance(method, ast.Attribute) and method.attr == "forward"
                and isinstance(call, ast.Call) and call.func is method):
            return []
        lines.append(call.lineno)
    if ctx.filename and named_elsewhere(ctx.filename, node.name, imported=True):
        return []
    return sorted(set(lines))


def _uses(ctx: Context, node: ast.ClassDef) -> List[ast.Name]:
    """Every read of the class's name in the file, outside the class itself."""
    first, last = node.lineno, node.end_lineno or node.lineno
    return [
        n for n in _index(ctx)[0].get(node.name, ())
        if not first <= n.lineno <= last
    ]


def _instance_calls(ctx: Context, uses: List[ast.Name]
                    ) -> Dict[int, Tuple[ast.Call, ast.Call]]:
    """``id(use) -> (outer, inner)`` for the uses that are ``Fn(args)(inputs)``."""
    found: Dict[int, Tuple[ast.Call, ast.Call]] = {}
    if not uses:
        return found
    calls = _index(ctx)[1]
    for use in uses:
        pair = calls.get(id(use))
        if pair is not None:
            found[id(use)] = pair
    return found


def _named_instances(ctx: Context, uses: List[ast.Name],
                     calls: Dict[int, Tuple[ast.Call, ast.Call]]
                     ) -> Dict[int, Tuple[ast.Assign, ast.Call, List[ast.Call]]]:
    """``id(use) -> (statement, inner, outers)`` for the uses that are
    ``inst = Fn(constants)`` (a statement of its own, in a block with other
    statements), where the file binds ``inst`` there alone and every read of
    ``inst`` is a later call ``inst(inputs)`` (an ``outer``) in the same function."""
    found: Dict[int, Tuple[ast.Assign, ast.Call, List[ast.Call]]] = {}
    todo = [use for use in uses if id(use) not in calls]
    if not todo:
        return found
    parents, blocks, stores = _parents(ctx)
    reads = _index(ctx)[0]
    for use in todo:
        inner = parents.get(id(use))
        if not (isinstance(inner, ast.Call) and inner.func is use):
            continue
        if not all(isinstance(a, ast.Constant) for a in inner.args) or not all(
                kw.arg is not None and isinstance(kw.value, ast.Constant)
                for kw in inner.keywords):
            continue  # (``Fn.apply`` evaluates them at the call, not at the assignment)
        statement = parents.get(id(inner))
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            continue
        block = blocks.get(id(statement))
        if block is None or len(block) < 2:
            continue  # (deleting the statement would leave an empty block)
        inst = statement.targets[0].id
        if stores.get(inst, 0) != 1:
            continue  # bound elsewhere too (a parameter, an import, another ``=``)
        scope = _function_of(parents, statement)
        end = statement.end_lineno or statement.lineno
        outers = []
        for read in reads.get(inst, ()):
            outer = parents.get(id(read))
            if not (isinstance(outer, ast.Call) and outer.func is read and read.lineno > end
                    and _function_of(parents, outer) is scope):
                break
            outers.append(outer)
        else:
            if outers:
                found[id(use)] = (statement, inner, outers)
    return found


def _function_of(parents: Dict[int, ast.AST], node: ast.AST) -> Optional[ast.AST]:
    """The innermost function (or lambda) around ``node``; ``None`` at module level."""
    while True:
        node = parents.get(id(node))  # type: ignore[assignment]
        if node is None or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                             ast.Lambda)):
            return node


def _parents(ctx: Context) -> Tuple[Dict[int, ast.AST], Dict[int, list], Dict[str, int]]:
    """The file's parent of each node (:meth:`Context.file_parents`), the block
    (statement list) of each statement, and how many times each name is bound
    (once per file, only for a file with a legacy Function whose instances
    are kept under a name)."""
    found = ctx.memo.get("TV104 blocks")
    if found is None:
        blocks: Dict[int, list] = {}
        stores: Dict[str, int] = {}
        for node in every_node(ctx.tree):
            for field in _BLOCK_FIELDS:
                value = getattr(node, field, None)
                if value.__class__ is list and value and isinstance(value[0], ast.stmt):
                    for statement in value:
                        blocks[id(statement)] = value
            bound: List[str] = []
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound.append(node.id)
            elif isinstance(node, ast.arg):
                bound.append(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.append(node.name)
            elif isinstance(node, ast.alias):
                bound.append((node.asname or node.name).split(".")[0])
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                bound += node.names
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.append(node.name)
            for name in bound:
                stores[name] = stores.get(name, 0) + 1
        found = ctx.memo["TV104 blocks"] = (blocks, stores)
    return (ctx.file_parents(), *found)  # type: ignore[return-value]


#: the fields that hold a block of statements (an ``if``'s test is no block)
_BLOCK_FIELDS = ("body", "orelse", "finalbody")


def _index(ctx: Context) -> Tuple[Dict[str, List[ast.Name]],
                                  Dict[int, Tuple[ast.Call, ast.Call]]]:
    """The file's name reads by name, in the order of ``ast.walk``, and the
    calls of calls (``Fn(args)(inputs)``) by ``id`` of the inner callee: one
    walk of the file, however many classes ask."""
    found = ctx.memo.get("TV104 index")
    if found is None:
        reads: Dict[str, List[ast.Name]] = {}
        calls: Dict[int, Tuple[ast.Call, ast.Call]] = {}
        todo = deque([ctx.tree])  # (``ast.walk``'s order, without its generators and
        while todo:               # without the expression contexts and operators)
            sub = todo.popleft()
            todo.extend(children(sub))
            cls = sub.__class__
            if cls is ast.Name:
                if isinstance(sub.ctx, ast.Load):  # type: ignore[attr-defined]
                    reads.setdefault(sub.id, []).append(sub)  # type: ignore[attr-defined]
            elif cls is ast.Call and isinstance(sub.func, ast.Call):  # type: ignore
                inner = sub.func  # type: ignore[attr-defined]
                calls[id(inner.func)] = (sub, inner)  # type: ignore[assignment]
        found = ctx.memo["TV104 index"] = (reads, calls)
    return found  # type: ignore[return-value]


# ---------------------------------------------------------------------------
# the rewrite


class _Plan:
    def __init__(self) -> None:
        self.params: List[str] = []  # __init__'s parameters, in order
        self.defaults: Dict[str, ast.AST] = {}
        self.stored: Dict[str, str] = {}  # attribute -> parameter


def _fix(ctx: Context, node: ast.ClassDef, methods: Dict[str, ast.AST],
         uses: List[ast.Name], found: Dict[int, Tuple[ast.Call, ast.Call]],
         named: Dict[int, Tuple[ast.Assign, ast.Call, List[ast.Call]]]) -> Optional[Fix]:
    if set(methods) - {"__init__", "forward", "backward"} or "backward" not in methods:
        return None
    forward, backward = methods["forward"], methods["backward"]
    if _static(backward) or forward.decorator_list or backward.decorator_list:
        return None
    if any(isinstance(m, ast.AsyncFunctionDef) for m in methods.values()):
        return None
    plan = _init_plan(node, methods.get("__init__"))
    if plan is None:
        return None
    sites = list(found.values()) + [
        (outer, inner) for _, inner, outers in named.values() for outer in outers]
    if not uses or len(found) + len(named) != len(uses) or _nested(sites):
        return None
    if len(forward.args.args) < 2:
        return None  # no inputs
    edits: List[Edit] = []
    for method in (forward, backward):
        method_edits = _method_edits(ctx, method, plan if method is forward else None)
        if method_edits is None:
            return None
        edits += method_edits
    returns = _backward_returns(ctx, forward, backward, len(plan.params))
    if returns is None:
        return None
    edits += returns
    init = methods.get("__init__")
    if init is not None:
        edits.append(_delete_lines(ctx, init))
    for outer, inner in sites:
        call_edit = _call_edit(ctx, node.name, outer, inner, plan)
        if call_edit is None:
            return None
        edits.append(call_edit)
    for statement, _, _ in named.values():
        deletion = ctx.source.remove_lines(statement)  # (``inst = Fn()``)
        if deletion is None:
            return None
        edits.append(deletion)
    return Fix(tuple(edits), UNSAFE)


def _init_plan(node: ast.ClassDef, init: Optional[ast.AST]) -> Optional[_Plan]:
    """``__init__``'s parameters and what it stores, when that is all it does."""
    plan = _Plan()
    if init is None:
        return plan
    args = init.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or init.decorator_list:
        return None
    if not args.args:
        return None
    self_name = args.args[0].arg
    plan.params = [a.arg for a in args.args[1:]]
    for param, default in zip(reversed(plan.params), reversed(args.defaults)):
        if not isinstance(default, ast.Constant):
            return None
        plan.defaults[param] = default
    for stmt in init.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and _base_init(stmt.value, node, self_name):
            continue
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and isinstance(stmt.targets[0].value, ast.Name)
            and stmt.targets[0].value.id == self_name
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id in plan.params
            and stmt.targets[0].attr not in plan.stored
        ):
            plan.stored[stmt.targets[0].attr] = stmt.value.id
            continue
        return None
    if set(plan.stored.values()) != set(plan.params):
        return None  # a parameter not stored (or stored twice)
    return plan


def _base_init(expr: ast.AST, node: ast.ClassDef, self_name: str) -> bool:
    """``super(Fn, self).__init__()``, ``super().__init__()``, ``Function.__init__(self)``."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)):
        return False
    if expr.func.attr != "__init__" or expr.keywords:
        return False
    receiver = expr.func.value
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name):
        return receiver.func.id == "super" and not expr.args
    return (
        len(expr.args) == 1 and isinstance(expr.args[0], ast.Name)
        and expr.args[0].id == self_name
    )


def _names_in(func: ast.AST) -> set:
    found = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
    found |= {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}
    return found


def _method_edits(ctx: Context, method: ast.FunctionDef, plan: Optional[_Plan]
                  ) -> Optional[List[Edit]]:
    """``@staticmethod``, ``self`` -> ``ctx``; for ``forward`` the extra parameters
    and the statements storing them on ``ctx``."""
    src = ctx.source
    args = method.args
    if not args.args or args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        return None
    self_arg = args.args[0]
    names = _names_in(method)
    if _CTX in names:
        return None
    if plan is not None and names & set(plan.params):
        return None  # a parameter would shadow a name of forward
    for sub in ast.walk(method):
        if sub is not method and isinstance(
                sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None  # ``self`` in a nested scope: keep the rewrite simple
    line, col = src.start(method)
    indent = src.lines[line - 1][:col]
    if indent.strip():
        return None
    edits = [Edit((line, col), (line, col), f"@staticmethod\n{indent}")]
    edits.append(src.replace(self_arg, _CTX))
    for sub in ast.walk(method):
        if isinstance(sub, ast.Name) and sub.id == self_arg.arg:
            edits.append(src.replace(sub, _CTX))
    if plan is not None and plan.params:
        last = args.args[-1]
        end = src.end(last)
        if args.defaults:
            return None
        edits.append(Edit(end, end, "".join(f", {p}" for p in plan.params)))
        first = method.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and len(
                method.body) > 1:
            first = method.body[1]
        body_line, body_col = src.start(first)
        body_indent = src.lines[body_line - 1][:body_col]
        if body_indent.strip() or body_line == line:
            return None
        before = src.lines[body_line - 2].rstrip("\r\n")
        at = (body_line - 1, len(before))
        stores = "".join(
            f"\n{body_indent}{_CTX}.{attr} = {param}" for attr, param in plan.stored.items()
        )
        edits.append(Edit(at, at, stores))
    return edits


def _backward_returns(ctx: Context, forward: ast.FunctionDef, backward: ast.FunctionDef,
                      extra: int) -> Optional[List[Edit]]:
    """Edits appending ``None`` gradients for the extra ``forward`` parameters."""
    if not extra:
        return []
    src = ctx.source
    inputs = len(forward.args.args) - 1
    nones = ", None" * extra
    edits = []
    for sub in ast.walk(backward):
        if not isinstance(sub, ast.Return):
            continue
        value = sub.value
        if value is None:
            return None
        if isinstance(value, ast.Tuple):
            if len(value.elts) != inputs or any(isinstance(e, ast.Starred) for e in value.elts):
                return None
            end = src.end(value.elts[-1])
        elif inputs == 1:
            end = src.end(value)
        else:
            return None
        edits.append(Edit(end, end, nones))
    return edits


def _delete_lines(ctx: Context, init: ast.FunctionDef) -> Edit:
    """Remove ``__init__`` with its whole lines (and one blank line after it)."""
    src = ctx.source
    first = init.lineno
    last = init.end_lineno or init.lineno
    if last < len(src.lines) and not src.lines[last].strip():
        last += 1
    return Edit((first, 0), (last + 1, 0), "") if last < len(src.lines) else Edit(
        (first, 0), (last, len(src.lines[last - 1])), "")


def _call_edit(ctx: Context, name: str, outer: ast.Call, inner: ast.Call, plan: _Plan
               ) -> Optional[Edit]:
    """``Fn(a)(x)`` -> ``Fn.apply(x, a)``."""
    src = ctx.source
    if outer.keywords or any(isinstance(a, ast.Starred) for a in outer.args + inner.args):
        return None
    if len(inner.args) > len(plan.params):
        return None
    given: Dict[str, str] = {}
    for param, arg in zip(plan.params, inner.args):
        given[param] = src.text(arg)
    for kw in inner.keywords:
        if kw.arg is None or kw.arg not in plan.params or kw.arg in given:
            return None
        given[kw.arg] = src.text(kw.value)
    extra = []
    for param in plan.params:
        if param in given:
            extra.append(given[param])
        elif param in plan.defaults:
            extra.append(src.text(plan.defaults[param]))
        else:
            return None
    parts = [src.text(a) for a in outer.args] + extra
    text = f"{name}.apply({', '.join(parts)})"
    if has_comment(src.text(outer)):
        return None
    return src.replace(outer, text)


def _nested(calls: List[Tuple[ast.Call, ast.Call]]) -> bool:
    """Whether one call site holds another (their edits would overlap)."""
    spans = sorted(
        ((outer.lineno, outer.col_offset), (outer.end_lineno, outer.end_col_offset))
        for outer, _ in calls
    )
    return any(a[1] > b[0] for a, b in zip(spans, spans[1:]))


def _class_bound(func: ast.AST) -> bool:
    """``@classmethod def forward(cls, ctx, ...)``: the class takes the place of
    ``@staticmethod``'s nothing, and ``Fn.apply`` passes ``ctx`` as today (the
    Shake-Shake Functions of 2018 are written so, and run on 2.13)."""
    return any(isinstance(d, ast.Name) and d.id == "classmethod"
               for d in func.decorator_list) and len(func.args.args) >= 2  # type: ignore
