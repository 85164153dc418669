"""TV114: a loss backpropagated through a graph built before an ``optimizer.step()``."""
from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.nodes import LOOPS as _LOOPS, NESTED as _NESTED, function_around
from ..analysis.reads import FOREIGN_MODULES, detaches
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.values import MODULE, values
from ..source.text import Edit

#: attributes whose value carries no autograd history
_PLAIN_ATTRIBUTES = frozenset((
    "data", "grad", "shape", "dtype", "device", "requires_grad", "is_cuda", "volatile",
))
#: methods whose result carries no autograd history (beside ``reads.detaches``)
_PLAIN_METHODS = frozenset((
    "size", "dim", "numel", "argmax", "argmin", "long", "int", "byte", "bool", "char",
    "short", "eq", "ne", "lt", "gt", "le", "ge", "nonzero", "type", "zero_grad",
    "parameters", "state_dict",
))
#: methods whose result's second element holds indices: ``x.max(1)[1]``
_PAIRED = frozenset(("max", "min", "sort", "topk", "kthvalue", "mode", "median"))
#: ``torch.nn`` modules without parameters: a ``Sequential`` of them and one
#: layer with parameters saves no parameter for its backward when its input
#: needs no gradient (``G = nn.Linear(4, 2)``: ``G(z)`` survives the step)
_PARAMETER_FREE = frozenset(f"torch.nn.{m}" for m in (
    "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
    "Dropout", "Dropout2d", "Dropout3d", "Softplus", "Hardtanh", "Threshold", "Identity",
))
#: builtins whose result carries their arguments' history (``sum(losses)``)
_CARRYING_BUILTINS = frozenset(("sum", "max", "min", "abs"))
#: how many steps a value is followed through (definitions, operands)
_DEPTH = 24
_NO_GRAD = frozenset(("torch.no_grad", "torch.inference_mode", "torch.set_grad_enabled"))
#: modules whose parameters are those of the module they wrap (their first argument)
_WRAPPERS = frozenset((
    "torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel",
))
#: module methods that return the module itself (``G = nn.DataParallel(net).cuda()``)
_ITSELF = frozenset(("cuda", "cpu", "to", "train", "eval", "float", "double", "half", "type"))
#: the comparison that holds exactly when one does not
_NEGATED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
            ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
            ast.In: ast.NotIn, ast.NotIn: ast.In}

_Path = Tuple[Tuple[int, str, int], ...]
#: a stepped module: (the key of the module its optimizer is built over, the step)
_Stepped = Tuple[str, ast.Expr]
#: what a loss is computed from: (the module call made before a step of its
#: module, the step, the name read whose value is that call, or ``None``)
_Witness = Tuple[ast.Call, ast.Expr, Optional[ast.Name]]


class _Layout:
    """Where each statement of one function (or module) body stands: its path,
    ``(parent, field, index)`` from the top, and the statement lists."""

    def __init__(self, scope: ast.AST) -> None:
        self.paths: Dict[int, _Path] = {}
        self.lists: Dict[Tuple[int, str], List[ast.stmt]] = {}
        stack: List[Tuple[ast.AST, _Path]] = [(scope, ())]
        while stack:
            node, path = stack.pop()
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                items = getattr(node, field, None)
                if not isinstance(items, list) or node is not scope and isinstance(node, _NESTED):
                    continue
                self.lists[(id(node), field)] = items
                for i, item in enumerate(items):
                    here = path + ((node, field, i),)
                    self.paths[id(item)] = here
                    stack.append((item, here))

    def siblings(self, stmt: ast.AST) -> Tuple[List[ast.stmt], int]:
        """The statement list that holds ``stmt``, and its index there."""
        parent, field, index = self.paths[id(stmt)][-1]
        return self.lists[(id(parent), field)], index


def _layout(ctx: Context, scope: ast.AST) -> _Layout:
    memo = ctx.memo.setdefault("TV114 layouts", {})
    found = memo.get(id(scope))
    if found is None:
        found = memo[id(scope)] = _Layout(scope)
    return found


def _statement(layout: _Layout, node: ast.AST, parents: Sequence[ast.AST]) -> Optional[ast.AST]:
    """The innermost statement of the body around ``node``, whose ancestors are ``parents``."""
    for here in (node, *reversed(parents)):
        if id(here) in layout.paths:
            return here
    return None


def _precedes(a: Optional[_Path], b: Optional[_Path]) -> bool:
    """``a`` runs before ``b`` whenever both run in one pass: they stand in one
    statement list, ``a``'s first (not in two branches of an ``if``)."""
    if a is None or b is None:
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        return x[:2] == y[:2] and x[2] < y[2]
    return False


def _step_receiver(stmt: ast.AST) -> Optional[ast.AST]:
    """The receiver of a statement ``X.step()``."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "step" and \
                not call.args and not call.keywords:
            return call.func.value
    return None


def _is_optimizer(ctx: Context, value: ast.AST) -> bool:
    if not isinstance(value, ast.Call):
        return False
    parts = (ctx.resolve(value.func) or "").split(".")
    return len(parts) == 3 and parts[:2] == ["torch", "optim"] and parts[2][:1].isupper()


def _class_of(ctx: Context, scope: ast.AST) -> Optional[ast.ClassDef]:
    """The class whose method ``scope`` is."""
    parent = ctx.file_parents().get(id(scope))
    return parent if isinstance(parent, ast.ClassDef) else None


def _scope_of(ctx: Context, node: ast.AST) -> ast.AST:
    """The innermost function around ``node`` (the module at the top)."""
    return function_around(ctx.file_parents(), node, ctx.tree)


def _self_assignments(ctx: Context, cls: ast.ClassDef) -> Dict[str, Optional[List[ast.AST]]]:
    """``self.NAME = value`` in the methods of ``cls``, by name (``None``: also
    bound otherwise: ``+=``, unpacked into).  Statements alone are walked."""
    memo = ctx.memo.setdefault("TV114 classes", {})
    found = memo.get(id(cls))
    if found is None:
        found = memo[id(cls)] = {}
        stack = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        while stack:
            stmt = stack.pop()
            for field in ("body", "orelse", "finalbody", "handlers"):
                stack += getattr(stmt, field, ())
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
                targets = [stmt.target]
            else:
                continue
            for t in targets:
                if _self_key(t) and isinstance(stmt, ast.Assign):
                    if found.get(t.attr, ()) is not None:
                        found.setdefault(t.attr, []).append(stmt.value)
                    continue
                for sub in ast.walk(t):
                    if _self_key(sub):
                        found[sub.attr] = None
    return found


def _self_key(node: ast.AST) -> bool:
    """``node`` is ``self.NAME``."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
        node.value.id == "self"


def _optimizer_modules(ctx: Context, receiver: ast.AST, scope: ast.AST) -> Sequence[str]:
    """The keys of the modules whose ``.parameters()`` the optimizer ``receiver``
    is built over, as the function reads them (empty: not evident); made once
    per receiver."""
    memo = ctx.memo.setdefault("TV114 optimizers", {})
    found = memo.get(id(receiver))
    if found is None:
        found = memo[id(receiver)] = _built_over(ctx, receiver, scope)
    return found


def _assigned(ctx: Context, node: ast.AST,
              scope: ast.AST) -> Tuple[Optional[List[ast.AST]], bool, Optional[ast.AST]]:
    """The values assigned to the name or attribute ``node`` read in ``scope``
    (``None``: not evident, also bound otherwise), whether they are not the
    module's (a global's), and the function (or module) whose statements assign
    them (``None``: some method of the class, for ``self.X``)."""
    k = key(node)
    if k is None:
        return None, True, None
    flow = ctx.flow_of(scope)
    defs = flow.reaching(node)
    if defs:
        if all(d.kind == "assign" and d.value is not None for d in defs):
            return [d.value for d in defs], True, scope
    elif defs == () and "." not in k and scope is not ctx.tree and k not in flow.bound:
        module_defs = ctx.flow_of(ctx.tree).defs(k)
        if module_defs and all(d.kind == "assign" and d.value is not None for d in module_defs):
            return [d.value for d in module_defs], False, ctx.tree
    elif defs == () and _self_key(node):
        cls = _class_of(ctx, scope)
        if cls is not None:
            return _self_assignments(ctx, cls).get(k[5:]), True, None
    return None, True, None


def _built_over(ctx: Context, receiver: ast.AST, scope: ast.AST) -> Sequence[str]:
    values_, own, at = _assigned(ctx, receiver, scope)
    if not values_ or not all(_is_optimizer(ctx, v) for v in values_):
        return ()
    flow = ctx.flow_of(scope)
    found: List[str] = []
    for value in values_:
        given = value.args[:1] or [kw.value for kw in value.keywords if kw.arg == "params"]
        modules = [sub.func.value for arg in given for sub in ast.walk(arg)
                   if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                   and sub.func.attr == "parameters" and not sub.args]
        keys = [key(m) for m in modules]
        if not keys or None in keys:
            return ()
        if not own and any(k.split(".", 1)[0] in flow.bound for k in keys):  # type: ignore
            return ()  # (a global optimizer over a name this function binds otherwise)
        found += keys  # type: ignore[arg-type]
        found += [k for m in modules
                  for k in _aliases(ctx, m, at or _scope_of(ctx, m), scope)]
    return tuple(dict.fromkeys(found))


def _wrapped(ctx: Context, node: ast.AST,
             scope: ast.AST) -> Tuple[Optional[List[ast.AST]], Optional[ast.AST]]:
    """What the module ``node`` read in ``scope`` is, through ``.cuda()`` and the
    wrappers that share the wrapped module's parameters: ``X`` of ``node = X``
    or ``node = nn.DataParallel(X, ...).cuda()``, for each assignment that
    reaches it (``None``: not evident), and the function (or module) those
    assignments are in (``None``: a method of the class)."""
    values_, _, at = _assigned(ctx, node, scope)
    if not values_:
        return None, None
    found = []
    for value in values_:
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                value.func.attr in _ITSELF:
            value = value.func.value
        if isinstance(value, ast.Call) and ctx.resolve(value.func) in _WRAPPERS:
            given = value.args[:1] or [kw.value for kw in value.keywords if kw.arg == "module"]
            if not given:
                return None, None
            value = given[0]
        found.append(value)
    return found, at


def _aliases(ctx: Context, node: ast.AST, scope: ast.AST, where: ast.AST,
             depth: int = 0) -> List[str]:
    """The keys, as the function ``where`` reads them, of the modules whose
    parameters the module ``node`` (read in ``scope``) may have as its own:
    ``net`` of ``G = nn.DataParallel(net)``."""
    found: List[str] = []
    inner, held = _wrapped(ctx, node, scope) if depth < 4 else (None, None)
    for value in inner or ():
        k = key(value)
        if k is None or value is node:
            continue
        at = held or _scope_of(ctx, value)
        cls = _class_of(ctx, at)
        if at is where or at is ctx.tree and k.split(".", 1)[0] not in ctx.flow_of(where).bound \
                or _self_key(value) and cls is not None and cls is _class_of(ctx, where):
            found += [k, *_aliases(ctx, value, at, where, depth + 1)]
    return found


def _module_node(func: ast.AST) -> ast.AST:
    """The module of a call: ``G`` of ``G(z)`` and of ``G.forward(z)``."""
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        return func.value
    return func


def _steps_before(ctx: Context, layout: _Layout, stmt: ast.AST,
                  scope: ast.AST) -> List[_Stepped]:
    """The optimizer steps that run before ``stmt`` on some path to it: earlier
    statements ``opt.step()`` of a statement list that holds it, and steps
    nested in such an earlier statement (a loop body, a branch, a ``with`` or
    ``try`` block) from which the path goes on to its end (see :func:`_goes_on`)
    and whose branches are not exclusive with ``stmt``'s (see :func:`_exclusive`)."""
    found: List[_Stepped] = []
    for parent, field, index in layout.paths[id(stmt)]:
        for earlier in layout.lists[(id(parent), field)][:index]:
            for step in _step_statements(earlier):
                if step is not earlier and not (
                        _goes_on(layout, step, earlier) and not _exclusive(layout, step, stmt)):
                    continue
                receiver = _step_receiver(step)
                found += [(m, step) for m in _optimizer_modules(ctx, receiver, scope)]
    return found


def _step_statements(stmt: ast.AST) -> Iterator[ast.Expr]:
    """The statements ``X.step()`` that are ``stmt`` or stand in its blocks (not
    in a function or class defined there)."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        if _step_receiver(node) is not None:
            yield node  # type: ignore[misc]
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            items = getattr(node, field, None)
            if isinstance(items, list) and not isinstance(node, _NESTED):
                stack += reversed(items)


def _goes_on(layout: _Layout, step: ast.AST, top: ast.AST) -> bool:
    """After ``step``, the path goes on past the end of ``top``, the statement
    that holds it: no ``return`` or ``raise`` follows it in a block between the
    two, nor a ``break`` or ``continue`` of a loop outside ``top``; and it is
    not under ``if False:`` (or the ``else`` of ``if True:``)."""
    outer = len(layout.paths[id(top)])
    levels = layout.paths[id(step)][outer:]
    for depth, (parent, field, index) in enumerate(levels):
        if isinstance(parent, ast.If) and isinstance(parent.test, ast.Constant) and \
                bool(parent.test.value) != (field == "body"):
            return False  # (code switched off)
        for later in layout.lists[(id(parent), field)][index + 1:]:
            if isinstance(later, (ast.Return, ast.Raise)):
                return False
            if isinstance(later, (ast.Break, ast.Continue)) and not any(
                    isinstance(p, _LOOPS) and f == "body" for p, f, _ in levels[:depth + 1]):
                return False
    return True


def _exclusive(layout: _Layout, step: ast.AST, stmt: ast.AST) -> bool:
    """``step`` and ``stmt`` stand in branches that do not both run in one pass:
    ``if c:`` and a later ``if not c:`` (or the ``else`` of a later ``if c:``,
    or ``if i % 2 == 0:`` and ``if i % 2 == 1:``)."""
    a, b = layout.paths[id(step)], layout.paths[id(stmt)]
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    return any(_disjoint(x, y) for x in _conditions(a[common + 1:])
               for y in _conditions(b[common + 1:]))


def _conditions(levels: _Path) -> List[ast.expr]:
    """What holds where the last of ``levels`` stands: the tests of the ``if``
    statements it is in (negated in their ``else``)."""
    return [p.test if f == "body" else _negation(p.test)
            for p, f, _ in levels if isinstance(p, ast.If)]


def _disjoint(x: ast.expr, y: ast.expr) -> bool:
    if ast.dump(x) == ast.dump(_negation(y)) or ast.dump(_negation(x)) == ast.dump(y):
        return True
    return all(isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)
               and isinstance(t.comparators[0], ast.Constant) for t in (x, y)) and \
        ast.dump(x.left) == ast.dump(y.left) and \
        x.comparators[0].value != y.comparators[0].value  # type: ignore[attr-defined]


def _negation(test: ast.expr) -> ast.expr:
    """The condition that holds exactly when ``test`` does not."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
        return ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators)
    return ast.UnaryOp(ast.Not(), test)


def _same_module(called: str, stepped: str) -> bool:
    """``called`` (``G``, ``self.G``, ``G.main``) is, holds or belongs to ``stepped``."""
    return called == stepped or called.startswith(stepped + ".") or \
        stepped.startswith(called + ".")


def _single_layer(ctx: Context, node: ast.AST, scope: ast.AST, depth: int = 0) -> bool:
    """The module ``node`` is evidently one torch layer with parameters (and
    others without), or a wrapper of one."""
    module = values(ctx).of(node, scope)
    if module.kind != MODULE or module.name is None:
        return False
    if module.name in _WRAPPERS:
        inner, held = _wrapped(ctx, node, scope) if depth < 4 and key(node) is not None \
            else (None, None)
        return bool(inner) and all(_single_layer(ctx, v, held or _scope_of(ctx, v), depth + 1)
                                   for v in inner)  # type: ignore[union-attr]
    layers = module.parts if module.name == "torch.nn.Sequential" else (module,)
    if layers is None or any(m.name is None or m.name.startswith("<") for m in layers):
        return False
    return sum(m.name not in _PARAMETER_FREE and m.name not in _WRAPPERS for m in layers) <= 1


def _without_grad(ctx: Context, path: _Path) -> bool:
    return any(isinstance(node, (ast.With, ast.AsyncWith)) and any(
        isinstance(item.context_expr, ast.Call) and
        ctx.resolve(item.context_expr.func) in _NO_GRAD for item in node.items)
        for node, _, _ in path)


#: the context that saves tensors as themselves (``lambda t: t`` both ways): the
#: backward reads the weights as the step left them, as 0.3's did
_SAVED_HOOKS = frozenset(("torch.autograd.graph.saved_tensors_hooks",))


def _hooked(ctx: Context, call: ast.AST) -> bool:
    """Whether ``call`` runs in a ``with torch.autograd.graph.saved_tensors_hooks(...)``."""
    parents = ctx.file_parents()
    node = call
    while id(node) in parents:
        node = parents[id(node)]
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                isinstance(item.context_expr, ast.Call)
                and ctx.resolve(item.context_expr.func) in _SAVED_HOOKS for item in node.items):
            return True
    return False


class _Trace:
    """What a loss is computed from: the module calls made before a step of an
    optimizer over their module, followed through the function's assignments.
    Each expression is asked with the statement that evaluates it."""

    def __init__(self, ctx: Context, scope: ast.AST, layout: _Layout,
                 stepped: Sequence[_Stepped]) -> None:
        self.ctx = ctx
        self.scope = scope
        self.layout = layout
        self.flow = ctx.flow_of(scope)
        self.stepped = stepped
        self.memo: Dict[int, Optional[List[_Witness]]] = {}

    def of(self, node: ast.AST, stmt: ast.AST, depth: int = 0) -> Optional[List[_Witness]]:
        """The witnesses that ``node`` carries the history of (``None``: none evident)."""
        if depth > _DEPTH:
            return None
        if id(node) in self.memo:
            return self.memo[id(node)]
        self.memo[id(node)] = None  # (a definition that reaches itself)
        found = self.memo[id(node)] = self._of(node, stmt, depth + 1)
        return found

    def _any(self, nodes: Sequence[ast.AST], stmt: ast.AST,
             depth: int) -> Optional[List[_Witness]]:
        found: List[_Witness] = []
        for node in nodes:
            found += self.of(node, stmt, depth) or ()
        return found or None

    def _of(self, node: ast.AST, stmt: ast.AST, depth: int) -> Optional[List[_Witness]]:
        if detaches(node):
            return None
        if isinstance(node, ast.Name):
            return self._named(node, depth)
        if isinstance(node, ast.Attribute):
            if node.attr in _PLAIN_ATTRIBUTES:
                return None
            if self.flow.reaching(node):
                return self._named(node, depth)
            return self.of(node.value, stmt, depth)
        if isinstance(node, ast.BinOp):
            return self._any((node.left, node.right), stmt, depth)
        if isinstance(node, ast.UnaryOp):
            return None if isinstance(node.op, ast.Not) else self.of(node.operand, stmt, depth)
        if isinstance(node, (ast.Tuple, ast.List)):
            return self._any(node.elts, stmt, depth)
        if isinstance(node, ast.Starred):
            return self.of(node.value, stmt, depth)
        if isinstance(node, ast.Subscript):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                    value.func.attr in _PAIRED and isinstance(node.slice, ast.Constant) and \
                    node.slice.value == 1:
                return None  # (indices)
            return self.of(value, stmt, depth)
        if isinstance(node, ast.Call):
            return self._call(node, stmt, depth)
        return None

    def _named(self, node: ast.AST, depth: int) -> Optional[List[_Witness]]:
        """Every definition that reaches the read must carry a history."""
        defs = self.flow.reaching(node)
        if not defs:
            return None
        found: List[_Witness] = []
        for d in defs:
            if d.kind not in ("assign", "unpack", "augassign") or d.value is None:
                return None
            carried = self.of(d.value, d.node, depth)
            if carried is None and d.kind == "augassign":
                carried = self.of(d.node.target, d.node, depth)
            if carried is None:
                return None
            found += [(call, step, node if read is None and d.value is call else read)
                      for call, step, read in carried]
        return found

    def _call(self, node: ast.Call, stmt: ast.AST, depth: int) -> Optional[List[_Witness]]:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _PLAIN_METHODS:
            return None
        name = self.ctx.resolve(func)
        if name is not None and name.split(".", 1)[0] in FOREIGN_MODULES:
            return None
        found: List[_Witness] = []
        module_node = _module_node(func)
        called = key(module_node)
        if called is not None and name is None:
            calls = [called, *_aliases(self.ctx, module_node, self.scope, self.scope)]
            for module, step in self.stepped:
                if any(_same_module(c, module) for c in calls) and \
                        self._before(stmt, step) and \
                        not _single_layer(self.ctx, module_node, self.scope):
                    found.append((node, step, None))
                    break
        if name is None and self._opaque(func, called):
            return found or None
        parts = [*node.args, *(kw.value for kw in node.keywords)]
        if isinstance(func, ast.Attribute):
            parts.append(func.value)  # (``out.mean()``)
        found += self._any(parts, stmt, depth) or ()
        return found or None

    def _opaque(self, func: ast.AST, called: Optional[str]) -> bool:
        """A call of a function of the file or of an unknown one, whose result may
        not carry its arguments' history (``repackage_hidden(h)``); not a call of
        a module (``X.parameters()`` is called in the file), of an object made by
        a call (``D = Discriminator()``, ``criterion = nn.BCELoss()``), of
        ``sum``/``max``/``min``/``abs``, or a method."""
        if called is not None and called in _modules(self.ctx):
            return False
        if isinstance(func, ast.Attribute):
            if not _self_key(func):
                return False
            cls = _class_of(self.ctx, self.scope)
            return cls is None or any(
                isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == func.attr
                for f in cls.body)
        if not isinstance(func, ast.Name):
            return False
        defs = self.flow.reaching(func)
        if defs == () and self.scope is not self.ctx.tree and func.id not in self.flow.bound:
            defs = self.ctx.flow_of(self.ctx.tree).defs(func.id)
        if defs == () and func.id in _CARRYING_BUILTINS:
            return False
        if defs and all(d.kind == "def" for d in defs) and _carries(
                self.ctx.defined_once().get(func.id)):
            return False  # (``l1(a, b)``: ``torch.mean(torch.abs(a - b))``)
        return not defs or not all(d.kind == "assign" and isinstance(d.value, ast.Call)
                                   for d in defs)

    def _before(self, stmt: ast.AST, step: ast.Expr) -> bool:
        path = self.layout.paths.get(id(stmt))
        return path is not None and not _without_grad(self.ctx, path) and \
            _precedes(path, self.layout.paths.get(id(step)))


_PARAMETERS = re.compile(r"\.\s*parameters\s*\(")
_DOTTED_END = re.compile(r"[A-Za-z_][\w.]*$")


#: what cuts a value from its graph (or makes it no tensor)
_CUTS = frozenset(("data", "detach", "detach_", "item", "numpy", "tolist", "no_grad",
                   "Variable", "tensor", "requires_grad_", "set_grad_enabled"))


def _carries(func: Optional[ast.AST]) -> bool:
    """Whether ``func``, a function of the file, returns what it computes from its
    parameters with the graph they carry: every ``return`` gives a value that
    reads a parameter, and nothing in it cuts a graph (``.data``, ``.detach()``,
    ``Variable(...)``, ``.item()``, ``no_grad``...)."""
    if not isinstance(func, ast.FunctionDef) or func.decorator_list:
        return False
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    returns = 0
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and node.attr in _CUTS or \
                isinstance(node, ast.Name) and node.id in _CUTS or \
                isinstance(node, (ast.Yield, ast.YieldFrom, ast.Lambda)) or \
                isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node is not func:
            return False
        if isinstance(node, ast.Return):
            if node.value is None or not any(isinstance(n, ast.Name) and n.id in params
                                             for n in ast.walk(node.value)):
                return False
            returns += 1
    return returns > 0


def _modules(ctx: Context) -> FrozenSet[str]:
    """The keys ``X`` of the file's ``X.parameters()`` calls: modules."""
    found = ctx.memo.get("TV114 modules")
    if found is None:
        text = ctx.text
        keys = set()
        for m in _PARAMETERS.finditer(text):
            before = _DOTTED_END.search(text, max(0, m.start() - 80), m.start())
            if before is not None:
                keys.add(before.group())
        found = ctx.memo["TV114 modules"] = frozenset(keys)
    return found  # type: ignore[return-value]


def _critic(ctx: Context, witness: _Witness, stepped: Sequence[str]) -> Optional[ast.Call]:
    """The call ``D(fake)`` (``D(G(z))``) that hands the stepped module's output to
    another module, ``D`` stepped by none of ``stepped``; else ``None``."""
    call, _, read = witness
    given = read if read is not None else call
    parent = ctx.file_parents().get(id(given))
    if not isinstance(parent, ast.Call) or not any(a is given for a in parent.args):
        return None
    critic = key(_module_node(parent.func))
    if critic is None or ctx.resolve(parent.func) is not None or \
            any(_same_module(critic, m) for m in stepped):
        return None
    return parent


def _detach_fix(ctx: Context, scope: ast.AST, layout: _Layout, stmt: ast.AST,
                witnesses: Sequence[_Witness]) -> Optional[Fix]:
    """``fake`` -> ``fake.detach()`` where every way the loss reaches the stepped
    module's output is ``D(fake)`` made after the step, ``D`` is stepped by none
    of those steps, and the next step after the backward is of an optimizer over
    ``D`` alone."""
    stepped = _stepped_modules(ctx, scope, witnesses)
    reads = {}
    critics = set()
    for witness in witnesses:
        call, step, read = witness
        parent = _critic(ctx, witness, stepped)
        where = _statement(layout, parent, _ancestors(ctx, parent)) if parent else None
        if read is None or where is None or not _precedes(
                layout.paths[id(step)], layout.paths[id(where)]):
            return None  # (``out = D(fake)`` before the step may feed G's loss too)
        reads[id(read)] = read
        critics.add(key(parent.func))
    following = _next_step(ctx, layout, stmt, scope)
    if not following or any(_same_module(m, s) for m in following for s in stepped) or \
            not all(any(_same_module(c, m) for m in following) for c in critics):
        return None
    src = ctx.source
    edits = tuple(Edit(src.end(r), src.end(r), ".detach()") for r in reads.values())
    return Fix(edits, UNSAFE)


def _stepped_modules(ctx: Context, scope: ast.AST, witnesses: Sequence[_Witness]) -> List[str]:
    found: List[str] = []
    for _, step, _ in witnesses:
        found += _optimizer_modules(ctx, _step_receiver(step), scope)
    return found


def _next_step(ctx: Context, layout: _Layout, stmt: ast.AST, scope: ast.AST) -> Sequence[str]:
    """The modules of the first ``opt.step()`` after ``stmt`` in its statement list."""
    siblings, index = layout.siblings(stmt)
    for later in siblings[index + 1:]:
        receiver = _step_receiver(later)
        if receiver is not None:
            return _optimizer_modules(ctx, receiver, scope)
    return ()


def _ancestors(ctx: Context, node: ast.AST) -> List[ast.AST]:
    parents = ctx.file_parents()
    found = []
    while id(node) in parents:
        node = parents[id(node)]
        found.append(node)
    return found[::-1]


@rule("TV114")
def graph_before_step(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags a loss backpropagated through a graph that an ``optimizer.step()`` has since updated.

    ## What it does
    Flags ``loss.backward()`` where ``loss`` is computed from the output of a
    module call ``G(...)`` (or ``G.forward(...)``) made before a statement
    ``opt.step()``, ``opt`` is built over that module's parameters
    (``optim.Adam(G.parameters(), ...)``, in the function, at the top of the
    module, or as ``self.opt`` in the class), and the step runs between the
    two on a path from the call to the ``backward``: all three in one function
    (or one module-level block), the call earlier than the step in a statement
    list that holds both, the step a statement of a statement list that holds
    the ``backward``, or nested in an earlier statement of one (a loop body, a
    branch of an ``if``, a ``with`` or ``try`` block).  A nested step counts
    when it runs on some pass: the loop whose body holds it may run zero times
    and the ``if`` may not be taken, but a program where it runs raises.  It
    does not count when ``return``, ``raise``, or a ``break``/``continue`` of
    a loop outside that statement follows it in its block, under ``if
    False:``, or when the ``backward`` stands in a branch exclusive with the
    step's (``if c:`` and a later ``if not c:`` or ``else``, ``i % 2 == 0``
    and ``i % 2 == 1``).  A module wrapped by ``nn.DataParallel`` or
    ``DistributedDataParallel`` (``G = nn.DataParallel(net).cuda()``) has the
    wrapped module's parameters: an optimizer over either updates both.  The
    loss is followed through the function's assignments (every assignment
    that reaches a name must carry that history) and through a function of the
    file whose every ``return`` computes from its parameters with nothing that
    cuts a graph (``def l1(a, b): return torch.mean(torch.abs(a - b))``), not
    through ``.detach()``, ``.data``, ``.item()``, indices or sizes.  Steps in another branch,
    another function or a previous iteration, a value recomputed after the
    step, a ``backward(inputs=...)``, a module made of one layer with
    parameters (or a wrapper of one), a call under ``torch.no_grad()`` and one
    under ``torch.autograd.graph.saved_tensors_hooks(...)`` (the migration that
    keeps 0.3's numbers) are left alone.  Position: the ``backward`` call.

    ## Why is this bad?
    PyTorch 0.3's optimizers wrote ``p.data``, which autograd did not track, so
    a graph built before ``opt.step()`` could still be backpropagated after it
    (the 2017 GAN loop: G's loss ``backward(retain_graph=True)``,
    ``opt_G.step()``, then D's loss through the same ``fake = G(z)``).  Since
    0.4 the optimizers update the parameters in place, which bumps their
    version counter, and on PyTorch 2.13 the ``backward`` stops the program:
    ``RuntimeError: one of the variables needed for gradient computation has
    been modified by an inplace operation: [torch.FloatTensor [8, 2]], which is
    output 0 of AsStrided, is at version 2; expected version 1 instead.``

    ## Example
    ```python
    fake = G(z)
    g_loss = criterion(D(fake), real_label)
    g_loss.backward(retain_graph=True)
    opt_G.step()
    d_loss = criterion(D(fake), fake_label)
    d_loss.backward()
    opt_D.step()
    ```

    Use instead:
    ```python
    fake = G(z)
    g_loss = criterion(D(fake), real_label)
    g_loss.backward(retain_graph=True)
    opt_G.step()
    d_loss = criterion(D(fake.detach()), fake_label)
    d_loss.backward()
    opt_D.step()
    ```

    Or recompute the value after the step (``fake = G(z)`` again: new
    numbers), or keep the graph and ask for the gradients of the parameters
    this loss updates only: ``d_loss.backward(inputs=list(D.parameters()))``.

    ## Fix safety
    The fix is offered only where the right one is evident: every way the loss
    reaches the stepped module's output is a call ``D(fake)`` of another
    module, and the next ``step`` after the ``backward`` is of an optimizer
    over ``D`` alone; it writes ``D(fake.detach())``.  It is *unsafe*: the
    loss no longer puts gradients into ``G``'s parameters (0.3 accumulated
    them there, computed with the updated weights), which changes the numbers
    where ``G``'s gradients are not zeroed before its next step.  Elsewhere
    the message names the three ways out.
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "backward"):
        return
    if any(kw.arg in ("inputs", None) for kw in node.keywords) or \
            ctx.resolve(func) is not None:
        return
    scope = (ctx.scope.function() or ctx.scope.module()).node
    layout = _layout(ctx, scope)
    stmt = _statement(layout, node, ctx.parents)
    if stmt is None:
        return
    stepped = _steps_before(ctx, layout, stmt, scope)
    if not stepped:
        return
    witnesses = _Trace(ctx, scope, layout, stepped).of(func.value, stmt)
    if not witnesses:
        return
    call, step, read = witnesses[0]
    if _hooked(ctx, call):
        return  # (its saved tensors are the tensors themselves: the backward reads them now)
    src = ctx.source
    module = src.quote(_module_node(call.func), 20)
    value = src.quote(call, 30)
    critic = _critic(ctx, witnesses[0], _stepped_modules(ctx, scope, witnesses[:1]))
    stale = key(_module_node(call.func))
    trains_it = stale is not None and any(  # (the next step updates the stale module: the
        _same_module(stale, m) for m in _next_step(ctx, layout, stmt, scope))  # loss is for it)
    if critic is not None and not trains_it:
        given = src.quote(read if read is not None else call, 20)
        other = src.quote(_module_node(critic.func), 20)
        ways = (f"recompute `{value}` after the step, write `{src.quote(critic.func, 30)}"
                f"({given}.detach())` where this loss should not reach `{module}`, or "
                f"`{src.quote(func.value, 20)}.backward(inputs=list({other}.parameters()))`")
    else:
        ways = f"recompute `{value}` after the step for this loss"
    ways += (f"; 0.3's numbers (its backward read the updated weights): make `{value}` under "
             "`with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):`")
    yield Report(
        node,
        f"`{src.quote(node, 30)}` backpropagates through `{value}` (line {call.lineno}), "
        f"computed before `{src.quote(step, 30)}` (line {step.lineno}) updated `{module}`'s "
        "parameters in place: since PyTorch 0.4 RuntimeError (a variable needed for gradient "
        f"computation has been modified by an inplace operation); {ways}",
        _detach_fix(ctx, scope, layout, stmt, witnesses),
    )
