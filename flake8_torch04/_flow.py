"""Intra-function data-flow facts, shared by the rules that need evidence about values.

A :class:`Flow` is computed lazily, at most once per function (or module body),
and never enters nested functions or classes.  Expressions are keyed by their
dotted spelling (``loss``, ``self.loss``); other expressions have no key and no
facts.

Two layers:

- cheap facts from one walk over the body, made when the flow is first asked
  for: what each key is assigned, which keys ``.backward()`` is called on,
  which keys were made to require grad;
- reaching definitions, made on the first question that needs them: for every
  read of a key, the bindings of that key that may reach the read, aware of
  branches, loops (a binding later in a loop body reaches an earlier read
  through the back edge), ``try``/``with`` blocks and ``return``/``break``.

The reaching-definitions walk visits each node once.  Branch merges and loop
exits touch only the keys bound inside them, so the work is the size of the
function times its nesting depth (which Python bounds); sets of definitions
larger than :data:`CAP` are given up as unknown, which keeps every merge
constant-sized.  Known simplifications: rebinding ``x`` does not kill facts
about ``x.attr``; calls that mutate their arguments bind nothing; a name bound
by ``:=`` inside a comprehension is forgotten after it.
"""
from __future__ import annotations

import ast
from bisect import bisect_left
from typing import (
    Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set,
    Tuple, Union,
)


def key(node: ast.AST) -> Optional[str]:
    """``"a.b.c"`` for a ``Name``/``Attribute`` chain, else ``None``."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def body_nodes(scope_node: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function's (or module's) own body, nested scopes excluded."""
    if isinstance(scope_node, ast.Lambda):
        stack: List[ast.AST] = [scope_node.body]
    else:
        stack = list(reversed(getattr(scope_node, "body", [])))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


# ---------------------------------------------------------------------------
# detaching constructs and the keys an expression reads

#: methods whose result no longer carries autograd history
DETACHING_METHODS = frozenset(("item", "detach", "tolist", "numpy", "detach_"))
#: builtins whose result is a plain Python number
NUMBER_BUILTINS = frozenset(("float", "int", "bool", "len", "round"))


def detaches(node: ast.AST) -> bool:
    """``x.item()``, ``x.detach()``, ``x.data``, ``float(x)``: no history past here."""
    if isinstance(node, ast.Attribute):
        return node.attr == "data"
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr in DETACHING_METHODS
        return isinstance(func, ast.Name) and func.id in NUMBER_BUILTINS
    return False


_NOT_TENSOR_CALLS = frozenset((
    "list", "dict", "set", "tuple", "str", "bytes", "bytearray", "float", "int", "len",
    "sorted", "range", "bool", "round", "sum", "zip", "enumerate", "map", "filter",
))
_NOT_TENSOR_NODES = (
    ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.JoinedStr,
)
#: modules whose values are never torch tensors
FOREIGN_MODULES = frozenset(("numpy", "pandas", "scipy", "math", "chainer", "cupy"))


def plainly_not_tensor(node: ast.AST, resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    """A literal, a comprehension, a builtin container or number, ``x.item()``, or
    a value built by numpy/pandas/math (``np.zeros(3).astype(f)``)."""
    if isinstance(node, _NOT_TENSOR_NODES):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in _NOT_TENSOR_CALLS:
            return True
        if isinstance(func, ast.Attribute) and func.attr in ("item", "tolist"):
            return True
    root = node
    while isinstance(root, (ast.Call, ast.Attribute, ast.Subscript)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if root is not node and isinstance(root, ast.Name):
        name = resolve(root) or ""
        return name.split(".", 1)[0] in FOREIGN_MODULES
    return False


def read_keys(expr: ast.AST, through_detach: bool = True) -> Iterator[str]:
    """Keys of the ``Name``/``Attribute`` chains ``expr`` reads (prefixes included).

    With ``through_detach=False`` the walk stops at :func:`detaches` constructs,
    so ``total.item()`` reads nothing that keeps history.
    """
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if not through_detach and detaches(node):
            continue
        if isinstance(node, (ast.Name, ast.Attribute)):
            k = key(node)
            if k is not None:
                yield k
        stack.extend(ast.iter_child_nodes(node))


def _scalar_terms(expr: ast.AST) -> Iterator[str]:
    """Keys that must hold one element for ``expr.backward()`` to work without a
    gradient: ``expr`` itself, and the terms of ``(a + b - c * k)``."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)
        ):
            stack += (node.left, node.right)
        elif isinstance(node, ast.UnaryOp):
            stack.append(node.operand)
        else:
            k = key(node)
            if k is not None:
                yield k


# ---------------------------------------------------------------------------
# bindings


class Def:
    """One binding of a key inside the function.

    ``kind`` is one of ``assign`` (``value`` is exactly the bound value),
    ``augassign`` (``value`` is the right operand, ``op`` the operator),
    ``unpack`` (one target of ``a, b = value``), ``for`` (a loop target;
    ``value`` is the iterable), ``with`` (``value`` is the context expression),
    ``walrus``, ``param``, ``import``, ``def``, ``del``, ``except``, ``match``,
    ``comp`` (a comprehension variable).  ``index`` orders bindings by the
    walk, which is source order.
    """

    __slots__ = ("key", "kind", "node", "value", "op", "index")

    def __init__(self, key_: str, kind: str, node: ast.AST,
                 value: Optional[ast.AST] = None, op: Optional[ast.operator] = None,
                 index: int = -1) -> None:
        self.key = key_
        self.kind = kind
        self.node = node
        self.value = value
        self.op = op
        self.index = index

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        line = getattr(self.node, "lineno", "?")
        return f"Def({self.key!r}, {self.kind}, line {line})"


#: more definitions than this reaching one read are given up as unknown
CAP = 8

#: what reaches a read: bindings, and loop nodes standing for "every binding of
#: the key inside that loop" (the back edge); ``None`` when unknown
_Reach = Optional[FrozenSet[Union[Def, ast.AST]]]
_EMPTY: FrozenSet = frozenset()


def _union(a: _Reach, b: _Reach) -> _Reach:
    if a is None or b is None:
        return None
    merged = a | b
    return merged if len(merged) <= CAP else None


class _Frame:
    """The bindings made on one path: a block, a branch, or a loop body."""

    __slots__ = ("parent", "vars", "loop", "dead")

    def __init__(self, parent: Optional["_Frame"], loop: Optional[ast.AST] = None) -> None:
        self.parent = parent
        self.vars: Dict[str, _Reach] = {}
        self.loop = loop
        self.dead = False  # the end of the path is unreachable (return, break, ...)

    def lookup(self, k: str) -> _Reach:
        frame: Optional[_Frame] = self
        loops: List[ast.AST] = []
        found: _Reach = _EMPTY
        while frame is not None:
            if k in frame.vars:
                found = frame.vars[k]
                break
            if frame.loop is not None:
                loops.append(frame.loop)
            frame = frame.parent
        if loops:
            found = _union(found, frozenset(loops))
        return found


class _ReachingDefinitions:
    """One walk over a function body recording what reaches every read of a key."""

    def __init__(self, scope_node: ast.AST) -> None:
        self.frame = _Frame(None)
        #: id(read node) -> what reaches it
        self.reads: Dict[int, _Reach] = {}
        #: key -> its bindings in walk order
        self.defs: Dict[str, List[Def]] = {}
        self.count = 0
        #: loop node -> (first, last + 1) index of the bindings made inside it
        self.loop_range: Dict[ast.AST, Tuple[int, int]] = {}
        if isinstance(scope_node, _FUNCTIONS):
            self.params(scope_node)
        if isinstance(scope_node, ast.Lambda):
            self.expr(scope_node.body)
        else:
            self.block(getattr(scope_node, "body", []))

    # -- bindings and reads ---------------------------------------------
    def bind(self, k: str, kind: str, node: ast.AST, value: Optional[ast.AST] = None,
             op: Optional[ast.operator] = None) -> None:
        if kind == "comp":
            self.frame.vars[k] = frozenset((Def(k, kind, node, value),))
            return
        d = Def(k, kind, node, value, op, self.count)
        self.count += 1
        self.defs.setdefault(k, []).append(d)
        self.frame.vars[k] = frozenset((d,))

    def read(self, node: ast.AST) -> None:
        k = key(node)
        if k is not None:
            self.reads[id(node)] = self.frame.lookup(k)

    def params(self, func: ast.AST) -> None:
        args = func.args
        every = [*getattr(args, "posonlyargs", []), *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for arg in every:
            self.bind(arg.arg, "param", arg)

    def target(self, target: ast.AST, stmt: ast.AST, value: Optional[ast.AST],
               kind: str = "assign") -> None:
        """Bind an assignment target to ``value`` (``None`` when not known exactly)."""
        if isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            pairs: Sequence[Optional[ast.AST]]
            if (
                isinstance(value, (ast.Tuple, ast.List))
                and len(value.elts) == len(elts)
                and not any(isinstance(e, ast.Starred) for e in (*elts, *value.elts))
            ):
                pairs = value.elts
                sub_kind = kind
            else:
                pairs = [value] * len(elts)
                sub_kind = "unpack" if kind == "assign" else kind
            for elt, sub in zip(elts, pairs):
                self.target(elt, stmt, sub, sub_kind)
            return
        if isinstance(target, ast.Starred):
            self.target(target.value, stmt, value, "unpack" if kind == "assign" else kind)
            return
        if isinstance(target, ast.Attribute):
            self.expr(target.value)
        elif isinstance(target, ast.Subscript):
            self.expr(target.value)
            self.expr(target.slice)
            return
        k = key(target)
        if k is not None:
            self.bind(k, kind, stmt, value)

    # -- statements -------------------------------------------------------
    def block(self, stmts: Iterable[ast.stmt]) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node: ast.stmt) -> None:
        handler = _STATEMENTS.get(type(node).__name__)
        if handler is not None:
            handler(self, node)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.stmt(child)
            elif isinstance(child, ast.expr):
                self.expr(child)

    def s_assign(self, node: ast.Assign) -> None:
        self.expr(node.value)
        for target in node.targets:
            self.target(target, node, node.value)

    def s_annassign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.expr(node.value)
            self.target(node.target, node, node.value)

    def s_augassign(self, node: ast.AugAssign) -> None:
        target = node.target
        if isinstance(target, (ast.Name, ast.Attribute)):
            self.read(target)
            if isinstance(target, ast.Attribute):
                self.expr(target.value)
        else:
            self.expr(target)
        self.expr(node.value)
        k = key(target)
        if k is not None:
            self.bind(k, "augassign", node, node.value, node.op)

    def s_end(self, node: ast.stmt) -> None:
        for child in ast.iter_child_nodes(node):
            self.expr(child)
        self.frame.dead = True

    def s_if(self, node: ast.If) -> None:
        self.expr(node.test)
        self.branches([lambda: self.block(node.body), lambda: self.block(node.orelse)])

    def s_for(self, node: ast.For) -> None:
        self.expr(node.iter)
        self.loop(node, lambda: self.target(node.target, node, node.iter, "for"))

    def s_while(self, node: ast.While) -> None:
        self.loop(node, lambda: self.expr(node.test))

    def s_with(self, node: ast.With) -> None:
        for item in node.items:
            self.expr(item.context_expr)
            if item.optional_vars is not None:
                self.target(item.optional_vars, node, item.context_expr, "with")
        self.block(node.body)

    def s_try(self, node: ast.Try) -> None:
        parent = self.frame
        body = self.frame = _Frame(parent)
        self.block(node.body)
        self.frame = entry = _Frame(parent)  # a handler may start anywhere in the body
        for k in body.vars:
            entry.vars[k] = _union(parent.lookup(k), body.lookup(k))
        self.frame = body
        self.block(node.orelse)
        paths = [body]
        for handler in node.handlers:
            self.frame = _Frame(entry)
            if handler.type is not None:
                self.expr(handler.type)
            if handler.name:
                self.bind(handler.name, "except", handler)
            self.block(handler.body)
            paths.append(self.frame)
        self.frame = parent
        self.merge(paths, extra=entry)
        self.block(node.finalbody)

    def s_def(self, node: ast.AST) -> None:
        for deco in getattr(node, "decorator_list", ()):
            self.expr(deco)
        args = getattr(node, "args", None)
        if args is not None:
            for default in [*args.defaults, *args.kw_defaults]:
                if default is not None:
                    self.expr(default)
        for base in getattr(node, "bases", ()):
            self.expr(base)
        self.bind(node.name, "def", node)

    def s_import(self, node: ast.AST) -> None:
        for alias in node.names:
            if alias.name != "*":
                name = alias.asname or alias.name.split(".", 1)[0]
                self.bind(name, "import", node)

    def s_delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            k = key(target)
            if isinstance(target, (ast.Name, ast.Attribute)) and k is not None:
                if isinstance(target, ast.Attribute):
                    self.expr(target.value)
                self.bind(k, "del", node)
            else:
                self.expr(target)

    def s_match(self, node: ast.AST) -> None:
        self.expr(node.subject)
        paths = []
        for case in node.cases:
            paths.append(lambda case=case: self.case(case))
        paths.append(lambda: None)  # no case matched
        self.branches(paths)

    def case(self, case: ast.AST) -> None:
        for sub in ast.walk(case.pattern):
            name = getattr(sub, "name", None) or getattr(sub, "rest", None)
            if isinstance(name, str):
                self.bind(name, "match", sub)
            elif isinstance(sub, ast.expr):
                self.expr(sub)
        if case.guard is not None:
            self.expr(case.guard)
        self.block(case.body)

    # -- control flow -------------------------------------------------------
    def branches(self, paths: Sequence[Callable[[], None]]) -> None:
        parent = self.frame
        frames = []
        for path in paths:
            self.frame = _Frame(parent)
            path()
            frames.append(self.frame)
        self.frame = parent
        self.merge(frames)

    def merge(self, frames: List[_Frame], extra: Optional[_Frame] = None) -> None:
        """Join the ends of ``frames`` (children of the current frame) into it."""
        parent = self.frame
        live = [f for f in frames if not f.dead]
        if not live:
            parent.dead = True
            live = frames
        keys: Set[str] = set()
        for frame in (*frames, *((extra,) if extra else ())):
            keys.update(frame.vars)
        for k in keys:
            merged: _Reach = _EMPTY
            for frame in live:
                merged = _union(merged, frame.lookup(k))
            parent.vars[k] = merged

    def loop(self, node: ast.AST, start: Callable[[], None]) -> None:
        parent = self.frame
        first = self.count
        body = self.frame = _Frame(parent, loop=node)
        start()
        self.block(node.body)
        self.loop_range[node] = (first, self.count)
        self.frame = parent
        # the loop may run any number of times: what reaches its exit is what
        # reaches its entry, the loop's own bindings included
        for k in body.vars:
            parent.vars[k] = _union(parent.lookup(k), frozenset((node,)))
        self.block(node.orelse)

    # -- expressions ------------------------------------------------------
    def expr(self, node: Optional[ast.AST]) -> None:
        if node is None:
            return
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                self.read(node)
            return
        if isinstance(node, ast.Attribute):
            if isinstance(node.ctx, ast.Load):
                self.read(node)
            self.expr(node.value)
            return
        if isinstance(node, ast.NamedExpr):
            self.expr(node.value)
            self.target(node.target, node, node.value, "walrus")
            return
        if isinstance(node, ast.Lambda):
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                self.expr(default)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            self.comprehension(node)
            return
        for child in ast.iter_child_nodes(node):
            self.expr(child)

    def comprehension(self, node: ast.AST) -> None:
        parent = self.frame
        self.expr(node.generators[0].iter)
        self.frame = _Frame(parent)
        for i, gen in enumerate(node.generators):
            if i:
                self.expr(gen.iter)
            for sub in ast.walk(gen.target):
                if isinstance(sub, ast.Name):
                    self.bind(sub.id, "comp", gen)
            for cond in gen.ifs:
                self.expr(cond)
        if isinstance(node, ast.DictComp):
            self.expr(node.key)
            self.expr(node.value)
        else:
            self.expr(node.elt)
        self.frame = parent

    # -- answers ------------------------------------------------------------
    def expand(self, reach: _Reach, k: str) -> Optional[Tuple[Def, ...]]:
        if reach is None:
            return None
        found: Dict[int, Def] = {}
        defs = self.defs.get(k, [])
        indexes = [d.index for d in defs]
        for item in reach:
            if isinstance(item, Def):
                found[item.index] = item
                continue
            lo, hi = self.loop_range.get(item, (0, 0))
            for d in defs[bisect_left(indexes, lo):bisect_left(indexes, hi)]:
                found[d.index] = d
        if len(found) > 2 * CAP:
            return None
        return tuple(found[i] for i in sorted(found))


_STATEMENTS: Dict[str, Callable] = {
    "Assign": _ReachingDefinitions.s_assign,
    "AnnAssign": _ReachingDefinitions.s_annassign,
    "AugAssign": _ReachingDefinitions.s_augassign,
    "Return": _ReachingDefinitions.s_end,
    "Raise": _ReachingDefinitions.s_end,
    "Break": _ReachingDefinitions.s_end,
    "Continue": _ReachingDefinitions.s_end,
    "If": _ReachingDefinitions.s_if,
    "For": _ReachingDefinitions.s_for,
    "AsyncFor": _ReachingDefinitions.s_for,
    "While": _ReachingDefinitions.s_while,
    "With": _ReachingDefinitions.s_with,
    "AsyncWith": _ReachingDefinitions.s_with,
    "Try": _ReachingDefinitions.s_try,
    "TryStar": _ReachingDefinitions.s_try,
    "FunctionDef": _ReachingDefinitions.s_def,
    "AsyncFunctionDef": _ReachingDefinitions.s_def,
    "ClassDef": _ReachingDefinitions.s_def,
    "Import": _ReachingDefinitions.s_import,
    "ImportFrom": _ReachingDefinitions.s_import,
    "Delete": _ReachingDefinitions.s_delete,
    "Match": _ReachingDefinitions.s_match,
}


def _self_reads(d: Def) -> Iterator[ast.AST]:
    """The reads of ``d.key`` that ``d`` builds on: the target of ``acc += x``,
    ``acc`` in ``acc = acc + x``."""
    if d.kind == "augassign":
        yield d.node.target
    elif d.kind == "assign" and d.value is not None:
        for sub in ast.walk(d.value):
            if isinstance(sub, (ast.Name, ast.Attribute)) and key(sub) == d.key:
                yield sub


def _encloses(outer: ast.AST, inner: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and (
        outer.end_lineno, outer.end_col_offset) >= (inner.end_lineno, inner.end_col_offset)


# ---------------------------------------------------------------------------
# the facts of one function


class Flow:
    """Facts about the keys of one function body.

    Made in one walk:

    - ``assigned[k]``: the value nodes assigned to ``k`` (``=``, ``+=``, ``:=``),
      in source order;
    - ``backward``: keys on which ``.backward(...)`` is called;
      ``backward_plain``: keys that must hold one element because ``.backward()``
      is called without a gradient on them or on a sum of them
      (``(value_loss + action_loss - entropy * coef).backward()``);
    - ``requires_grad``: keys that were ``.requires_grad_()``-ed or had
      ``.requires_grad = True`` set;
    - ``subscripts[k]``: the constant integer indexes used on ``k``, and ``"."``
      when an attribute of ``k[<constant>]`` is read (``out[0].backward()``): a
      key indexed like a tuple.

    Made when first asked: :meth:`reaching`, :meth:`carried`, :attr:`sinks`.
    """

    def __init__(self, scope_node: ast.AST, ctx=None) -> None:
        self.node = scope_node
        self.assigned: Dict[str, List[ast.AST]] = {}
        self.backward: Set[str] = set()
        self.backward_plain: Set[str] = set()
        self.requires_grad: Set[str] = set()
        self.subscripts: Dict[str, Set[object]] = {}
        self._roots: Set[str] = set()  # keys read by backward receivers and returns
        self._reaching: Optional[_ReachingDefinitions] = None
        self._sinks: Optional[Set[str]] = None
        for node in body_nodes(scope_node):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._assign(target, node.value)
                    self._requires_grad_store(target, node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
                if node.value is not None:
                    self._assign(node.target, node.value)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Subscript):
                self._subscript(node)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Subscript):
                k = key(node.value.value)
                if k is not None and isinstance(node.value.slice, ast.Constant):
                    self.subscripts.setdefault(k, set()).add(".")
            elif isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
                if node.value is not None:
                    self._roots.update(read_keys(node.value, through_detach=False))
        if isinstance(scope_node, ast.Lambda):
            self._roots.update(read_keys(scope_node.body, through_detach=False))

    def _assign(self, target: ast.AST, value: ast.AST) -> None:
        k = key(target)
        if k is not None:
            self.assigned.setdefault(k, []).append(value)

    def _requires_grad_store(self, target: ast.AST, value: ast.AST) -> None:
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "requires_grad"
            and isinstance(value, ast.Constant)
            and value.value is True
        ):
            k = key(target.value)
            if k:
                self.requires_grad.add(k)

    def _call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            k = key(func.value)
            if func.attr == "backward":
                self._roots.update(read_keys(func.value))
                if k:
                    self.backward.add(k)
                if not node.args and not any(kw.arg == "gradient" for kw in node.keywords):
                    self.backward_plain.update(_scalar_terms(func.value))
            elif func.attr == "requires_grad_" and k:
                self.requires_grad.add(k)
        callee = key(func)
        if callee and callee.rsplit(".", 1)[-1] in ("backward", "grad") and node.args:
            if "autograd" in callee or callee in ("backward", "grad"):
                self._roots.update(read_keys(node.args[0]))

    def _subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        k = key(node.value)
        if k is not None and isinstance(index, ast.Constant) and type(index.value) is int:
            self.subscripts.setdefault(k, set()).add(index.value)

    def values(self, node: ast.AST) -> List[ast.AST]:
        k = key(node)
        return self.assigned.get(k, []) if k else []

    # -- reaching definitions -------------------------------------------
    def _reach(self) -> _ReachingDefinitions:
        if self._reaching is None:
            self._reaching = _ReachingDefinitions(self.node)
        return self._reaching

    def reaching(self, node: ast.AST) -> Optional[Tuple[Def, ...]]:
        """The bindings of ``node``'s key that may reach this read of it.

        ``node`` is a ``Name``/``Attribute`` read in this body (or the target of
        an augmented assignment, which reads it first).  ``()`` means no binding
        in this function reaches it (a global, a closure variable, an
        attribute set elsewhere); ``None`` means not known.
        """
        k = key(node)
        if k is None:
            return None
        reach = self._reach()
        return reach.expand(reach.reads.get(id(node)), k)

    def carried(self, node: ast.AST, loop: ast.AST, _seen: Optional[Set[int]] = None) -> bool:
        """Whether the value read at ``node`` inside ``loop`` may come from before
        the current iteration (an earlier iteration, or before the loop), directly
        or through bindings in this iteration that add to it (``acc += x``)."""
        reach = self._reach()
        raw = reach.reads.get(id(node))
        k = key(node)
        if raw is None or k is None:
            return False
        seen = _seen if _seen is not None else set()
        lo, hi = reach.loop_range.get(loop, (0, 0))
        for item in raw:
            if not isinstance(item, Def):
                if item is loop or _encloses(item, loop):
                    return True
            elif not lo <= item.index < hi:
                return True
            elif item.index not in seen:
                seen.add(item.index)
                if any(self.carried(read, loop, seen) for read in _self_reads(item)):
                    return True
        return False

    def defs(self, k: str) -> List[Def]:
        """Every binding of ``k`` in this body, in source order."""
        return list(self._reach().defs.get(k, ()))

    @property
    def sinks(self) -> Set[str]:
        """Keys whose value may flow into a ``.backward()`` receiver,
        ``torch.autograd.backward/grad`` or a ``return``/``yield`` (not through
        ``.item()``, ``.data``, ``float()``...)."""
        if self._sinks is None:
            sinks = set(self._roots)
            todo = list(sinks)
            while todo:
                k = todo.pop()
                for value in self.assigned.get(k, ()):
                    for read in read_keys(value, through_detach=False):
                        if read not in sinks:
                            sinks.add(read)
                            todo.append(read)
            self._sinks = sinks
        return self._sinks


# ---------------------------------------------------------------------------
# regions where autograd records nothing

GRAD_OFF = frozenset((
    "torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad",
    "torch.inference_mode", "torch.autograd.inference_mode",
    "torch.autograd.grad_mode.inference_mode",
))
GRAD_SET = frozenset(("torch.set_grad_enabled", "torch.autograd.set_grad_enabled",
                      "torch.autograd.grad_mode.set_grad_enabled"))


def _turns_grad_off(expr: ast.AST, resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    call = expr if isinstance(expr, ast.Call) else None
    name = resolve(call.func if call else expr)
    if name in GRAD_OFF:
        return True
    if call is not None and name in GRAD_SET and call.args:
        arg = call.args[0]
        return isinstance(arg, ast.Constant) and arg.value is False
    return False


def grad_disabled(parents: Sequence[ast.AST],
                  resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    """Whether the node below ``parents`` runs under ``with torch.no_grad():``
    (or ``inference_mode``, ``set_grad_enabled(False)``) within its function, or
    in a function decorated with one of them."""
    for node in reversed(parents):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            if any(_turns_grad_off(item.context_expr, resolve) for item in node.items):
                return True
        elif isinstance(node, _FUNCTIONS):
            return any(_turns_grad_off(d, resolve) for d in getattr(node, "decorator_list", ()))
        elif isinstance(node, ast.ClassDef):
            return False
    return False


def enclosing_loop(parents: Sequence[ast.AST], node: ast.AST) -> Optional[ast.AST]:
    """The innermost ``for``/``while`` of the same function whose body holds ``node``."""
    child = node
    for parent in reversed(parents):
        if isinstance(parent, _NESTED):
            return None
        if isinstance(parent, _LOOPS) and child in parent.body:
            return parent
        if isinstance(parent, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return None
        child = parent
    return None
