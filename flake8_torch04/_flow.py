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
import re
from bisect import bisect_left
from typing import (
    Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set,
    Tuple, Union,
)

from ._nodes import HOLDS_STATEMENTS, node_fields
from ._resolve import key  # noqa: F401  (re-exported: the rules take it from here)

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: parts of compound statements that hold statements
_CLAUSES: Tuple[type, ...] = (ast.ExceptHandler, *(
    [ast.match_case] if hasattr(ast, "match_case") else []))
#: statements that hold statements
_COMPOUND = HOLDS_STATEMENTS - frozenset(_NESTED)


#: class -> its node fields, last first (a walk pushes them on a stack)
_NODE_FIELDS: Dict[type, Tuple[str, ...]] = {}
#: the same, with none for nested scopes (not entered by :func:`body_nodes`)
_BODY_FIELDS: Dict[type, Tuple[str, ...]] = {cls: () for cls in _NESTED}


def _node_fields(cls: type) -> Tuple[str, ...]:
    fields = _NODE_FIELDS.get(cls)
    if fields is None:
        fields = _NODE_FIELDS[cls] = tuple(reversed(node_fields(cls)))
        _BODY_FIELDS.setdefault(cls, fields)
    return fields


def children(node: ast.AST) -> List[ast.AST]:
    """The child nodes of ``node`` in field order, like :func:`ast.iter_child_nodes`
    without the expression contexts and operators (shared singletons, never
    anything a rule looks at)."""
    found: List[ast.AST] = []
    for name in reversed(_node_fields(node.__class__)):
        value = getattr(node, name, None)
        if value.__class__ is list:
            found += [item for item in value if item is not None]
        elif value is not None:
            found.append(value)
    return found


def body_nodes(scope_node: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function's (or module's) own body, in source order, nested
    scopes excluded (their ``def``/``class``/``lambda`` node is included);
    expression contexts and operators are left out."""
    if isinstance(scope_node, ast.Lambda):
        return _walk([scope_node.body])
    return _walk(getattr(scope_node, "body", []))


def body_parents(scope_node: ast.AST, hits: Optional[List[int]] = None
                 ) -> Tuple[List[ast.AST], Dict[int, ast.AST]]:
    """The nodes of :func:`body_nodes`, in the same order, and ``id(node) ->
    parent`` for each of them (the parent of a top statement is ``scope_node``).
    ``hits``: sorted line numbers; a statement whose lines hold none of them is
    left out with what it holds (see :func:`spans_hit`)."""
    roots = [scope_node.body] if isinstance(scope_node, ast.Lambda) else list(
        getattr(scope_node, "body", []))
    parents: Dict[int, ast.AST] = {id(root): scope_node for root in roots}
    nodes: List[ast.AST] = []
    stack: List[Optional[ast.AST]] = list(reversed(roots))
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if hits is not None and isinstance(node, ast.stmt) and not spans_hit(node, hits):
            continue
        nodes.append(node)
        size = len(stack)
        _push_children(stack, node, _BODY_FIELDS)
        for child in stack[size:]:
            if child is not None:
                parents[id(child)] = node
    return nodes, parents


def lines_matching(text: str, pattern: Union[str, "re.Pattern[str]"]) -> Optional[List[int]]:
    """The numbers of the lines of ``text`` where ``pattern`` (a regex, or a plain
    word: see :func:`lines_saying`) matches, in order; ``None`` when a name may be
    spelled otherwise in the source (not ASCII: identifiers are NFKC-normalized)
    or a line ends in more than ``\\n`` (the parser's line numbers would not be
    the count of ``\\n``)."""
    if not text.isascii() or "\r" in text:
        return None
    if isinstance(pattern, str):
        return lines_saying(text, pattern)
    hits: List[int] = []
    line, last = 1, 0
    for match in pattern.finditer(text):
        at = match.start()
        line += text.count("\n", last, at)
        last = at
        if not hits or hits[-1] != line:
            hits.append(line)
    return hits


#: statements whose decorators come before their first line
_DECORATED = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


def spans_hit(node: ast.AST, hits: Optional[List[int]]) -> bool:
    """Whether the lines of ``node``, a definition's decorators included, hold one
    of ``hits`` (see :func:`lines_matching`; always, for ``None`` or a node without
    a position)."""
    first = getattr(node, "lineno", None)
    if hits is None or first is None:
        return True
    if node.__class__ in _DECORATED and node.decorator_list:  # type: ignore[attr-defined]
        first = min(first, *(d.lineno for d in node.decorator_list))  # type: ignore[attr-defined]
    i = bisect_left(hits, first)
    return i < len(hits) and hits[i] <= (getattr(node, "end_lineno", None) or first)


def walk_hits(root: ast.AST, hits: Optional[List[int]]) -> Iterator[ast.AST]:
    """The nodes of ``ast.walk(root)`` (in another order) whose lines hold one
    of ``hits`` (see :func:`spans_hit`), with the nodes without a position
    among them: what a search for a node that spells the pattern must look at.
    The expression contexts and operators (shared singletons no rule looks at)
    are left out."""
    stack: List[Optional[ast.AST]] = [root]
    while stack:
        node = stack.pop()
        if node is not None and spans_hit(node, hits):  # (``None``: a hole in a list)
            yield node
            _push_children(stack, node, _NODE_FIELDS)  # (no expression contexts)


def every_node(root: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``ast.walk(root)``, nested scopes entered, in another order,
    without the expression contexts and operators (shared singletons that no
    rule looks at); faster than ``ast.walk``."""
    stack: List[Optional[ast.AST]] = [root]
    while stack:
        node = stack.pop()
        if node is None:  # from a list with holes: ``Dict.keys``, ``kw_defaults``
            continue
        yield node
        _push_children(stack, node, _NODE_FIELDS)


def _walk(roots: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of ``roots`` and below, in source order, nested scopes not entered."""
    stack: List[Optional[ast.AST]] = list(reversed(roots))
    while stack:
        node = stack.pop()
        if node is None:  # from a list with holes: ``Dict.keys``, ``kw_defaults``
            continue
        yield node
        _push_children(stack, node, _BODY_FIELDS)


def _push_children(
    stack: List[Optional[ast.AST]], node: ast.AST, table: Dict[type, Tuple[str, ...]]
) -> None:
    """Push the child nodes of ``node`` so that they pop in source order; ``table``
    gives the fields to take, last first (:data:`_BODY_FIELDS` leaves nested
    scopes closed).  ``None`` holes of lists are pushed too."""
    fields = table.get(node.__class__)
    if fields is None:
        fields = _node_fields(node.__class__)
    for name in fields:
        value = getattr(node, name, None)
        if value.__class__ is list:
            stack.extend(reversed(value))
        elif value is not None:
            stack.append(value)


#: the words of a name: runs of capitals, capitalised or lower-case words, digits
_WORD = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+"


def words(name: str) -> List[str]:
    """``rpn_loss_cls`` -> rpn, loss, cls; ``errD_real`` -> err, d, real (lowercased)."""
    return [w.lower() for w in re.findall(_WORD, name)]


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
        stack += children(node)


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
#: more assigned values than this are not looked through for every question
MANY = 4 * CAP

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


def _elements(target: ast.AST, value: Optional[ast.AST]) -> Tuple[Sequence, bool]:
    """What the elements of the tuple target ``target`` are bound to: the
    elements of a tuple ``value`` of the same length (exactly: ``True``), else
    ``value`` itself, unpacked (``False``)."""
    elts = target.elts
    if (
        isinstance(value, (ast.Tuple, ast.List))
        and len(value.elts) == len(elts)
        and not any(isinstance(e, ast.Starred) for e in (*elts, *value.elts))
    ):
        return value.elts, True
    return [value] * len(elts), False


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
        #: key -> the indexes of its bindings (made when first needed)
        self.indexes: Dict[str, List[int]] = {}
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
        for arg in _params(func):
            self.bind(arg.arg, "param", arg)

    def target(self, target: ast.AST, stmt: ast.AST, value: Optional[ast.AST],
               kind: str = "assign") -> None:
        """Bind an assignment target to ``value`` (``None`` when not known exactly)."""
        if isinstance(target, (ast.Tuple, ast.List)):
            pairs, exact = _elements(target, value)
            sub_kind = "unpack" if kind == "assign" and not exact else kind
            for elt, sub in zip(target.elts, pairs):
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
        handler = _STATEMENTS.get(node.__class__)
        if handler is not None:
            handler(self, node)
            return
        for child in children(node):
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
        for child in children(node):
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
        """Record the reads in ``node``, in evaluation order (a ``:=`` binds
        between them)."""
        stack = [node]
        pop, push = stack.pop, stack.append
        while stack:
            node = pop()
            cls = node.__class__
            if cls is ast.Name:
                if node.ctx.__class__ is ast.Load:
                    self.reads[id(node)] = self.frame.lookup(node.id)
            elif cls is ast.Attribute:
                base = self.chain(node)
                if base is not None:
                    push(base)
            elif node is None or cls is ast.Constant:  # ``None``: a hole in ``Dict.keys``
                continue
            elif cls is ast.NamedExpr:
                self.expr(node.value)
                self.target(node.target, node, node.value, "walrus")
            elif cls is ast.Lambda:
                for default in [*node.args.defaults, *node.args.kw_defaults]:
                    self.expr(default)
            elif cls in _COMPREHENSIONS:
                self.comprehension(node)
            else:
                _push_children(stack, node, _NODE_FIELDS)

    def chain(self, node: ast.Attribute) -> Optional[ast.AST]:
        """Record the reads of ``a.b.c``, ``a.b`` and ``a`` (only the prefixes when
        ``node`` is stored to); the base of the chain when it is not a name."""
        links = []
        while node.__class__ is ast.Attribute:
            links.append(node)
            node = node.value
        if node.__class__ is not ast.Name:
            return node
        k = node.id
        lookup = self.frame.lookup
        self.reads[id(node)] = lookup(k)
        for link in reversed(links):
            k = f"{k}.{link.attr}"
            if link.ctx.__class__ is ast.Load:
                self.reads[id(link)] = lookup(k)
        return None

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
        indexes = self.indexes.get(k)
        if indexes is None:
            indexes = self.indexes[k] = [d.index for d in defs]
        for item in reach:
            if isinstance(item, Def):
                found[item.index] = item
                continue
            lo, hi = self.loop_range.get(item, (0, 0))
            start, stop = bisect_left(indexes, lo), bisect_left(indexes, hi)
            if stop - start > 2 * CAP:
                return None
            for d in defs[start:stop]:
                found[d.index] = d
        if len(found) > 2 * CAP:
            return None
        return tuple(found[i] for i in sorted(found))


_STATEMENTS: Dict[type, Callable] = {
    ast.Assign: _ReachingDefinitions.s_assign,
    ast.AnnAssign: _ReachingDefinitions.s_annassign,
    ast.AugAssign: _ReachingDefinitions.s_augassign,
    ast.Return: _ReachingDefinitions.s_end,
    ast.Raise: _ReachingDefinitions.s_end,
    ast.Break: _ReachingDefinitions.s_end,
    ast.Continue: _ReachingDefinitions.s_end,
    ast.If: _ReachingDefinitions.s_if,
    ast.For: _ReachingDefinitions.s_for,
    ast.AsyncFor: _ReachingDefinitions.s_for,
    ast.While: _ReachingDefinitions.s_while,
    ast.With: _ReachingDefinitions.s_with,
    ast.AsyncWith: _ReachingDefinitions.s_with,
    ast.Try: _ReachingDefinitions.s_try,
    ast.FunctionDef: _ReachingDefinitions.s_def,
    ast.AsyncFunctionDef: _ReachingDefinitions.s_def,
    ast.ClassDef: _ReachingDefinitions.s_def,
    ast.Import: _ReachingDefinitions.s_import,
    ast.ImportFrom: _ReachingDefinitions.s_import,
    ast.Delete: _ReachingDefinitions.s_delete,
}
for _name, _handler in (
    ("TryStar", _ReachingDefinitions.s_try),  # Python 3.11+
    ("Match", _ReachingDefinitions.s_match),  # Python 3.10+
):
    if hasattr(ast, _name):
        _STATEMENTS[getattr(ast, _name)] = _handler


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


def _params(func: ast.AST) -> List[ast.arg]:
    args = func.args
    every = [*getattr(args, "posonlyargs", []), *args.args, *args.kwonlyargs]
    return every + [a for a in (args.vararg, args.kwarg) if a is not None]


def _outer_parts(node: ast.AST) -> List[ast.AST]:
    """What a nested ``def``/``class``/``lambda`` evaluates in the enclosing scope."""
    parts = list(getattr(node, "decorator_list", ()))
    args = getattr(node, "args", None)
    if args is not None:
        parts += [d for d in (*args.defaults, *args.kw_defaults) if d is not None]
    parts += getattr(node, "bases", ())
    parts += [kw.value for kw in getattr(node, "keywords", ())]
    return parts


_ASSIGN, _UPDATE, _LOOP, _WITH, _IMPORT, _DEFINITION, _DELETE = range(7)
#: statement class -> what :class:`_Bindings` records of it
_BINDING_KINDS: Dict[type, int] = {
    ast.Assign: _ASSIGN, ast.AugAssign: _UPDATE, ast.AnnAssign: _UPDATE,
    ast.For: _LOOP, ast.AsyncFor: _LOOP, ast.With: _WITH, ast.AsyncWith: _WITH,
    ast.Import: _IMPORT, ast.ImportFrom: _IMPORT, ast.Delete: _DELETE,
    **{cls: _DEFINITION for cls in _NESTED},
}


class _Bindings:
    """The keys a body binds, from a walk over its statements alone.

    ``bound`` holds every key that :class:`_ReachingDefinitions` may bind
    (comprehension variables aside); ``assignments[k]`` the values of its
    bindings of ``k`` by ``=``, ``+=``, ``:=`` or an annotated assignment (the
    elements of ``a, b = x, y`` paired as there); ``loops[k]`` the iterables of
    the ``for`` loops that bind ``k``; all supersets.
    ``:=`` is the one binding inside expressions: ``walrus=False`` promises that
    the body has none (its source has no ``:=``) and saves walking them.
    """

    def __init__(self, scope_node: ast.AST, walrus: bool = True) -> None:
        self.bound: Set[str] = set()
        self.assignments: Dict[str, List[ast.AST]] = {}
        self.loops: Dict[str, List[ast.AST]] = {}
        if isinstance(scope_node, _FUNCTIONS):
            self.bound.update(arg.arg for arg in _params(scope_node))
        stack = [] if isinstance(scope_node, ast.Lambda) else list(scope_node.body)
        bound, assignments, store = self.bound, self.assignments, self.store
        kinds, compound, name_class = _BINDING_KINDS, _COMPOUND, ast.Name
        while stack:
            node = stack.pop()
            cls = node.__class__
            kind = kinds.get(cls)
            if kind is None:  # (a statement that binds nothing: ``x.f()``, ``return``, ``if``)
                pass
            elif kind == _ASSIGN:
                value = node.value
                for target in node.targets:
                    if target.__class__ is name_class:  # (the common case, inline)
                        bound.add(target.id)
                        assignments.setdefault(target.id, []).append(value)
                    else:
                        store(target, value)
            elif kind == _UPDATE:
                store(node.target, node.value)
            elif kind == _LOOP:
                store(node.target, node.iter, loop=True)
            elif kind == _WITH:
                for item in node.items:
                    if item.optional_vars is not None:
                        store(item.optional_vars)
            elif kind == _IMPORT:
                for alias in node.names:
                    if alias.name != "*":
                        bound.add(alias.asname or alias.name.split(".", 1)[0])
            elif kind == _DEFINITION:
                bound.add(node.name)
                continue
            else:  # ``del``
                for target in node.targets:
                    store(target)
            if cls in compound:
                self.blocks(node, stack)
        if walrus:
            self.walruses(scope_node)

    def blocks(self, node: ast.stmt, stack: List[ast.stmt]) -> None:
        """Put the statements of a compound statement on ``stack``; record the
        names its ``except`` and ``case`` clauses bind."""
        for field in ("body", "orelse", "finalbody"):
            stack += getattr(node, field, ())
        for handler in getattr(node, "handlers", ()):
            if handler.name:
                self.bound.add(handler.name)
            stack += handler.body
        for case in getattr(node, "cases", ()):
            for sub in ast.walk(case.pattern):
                name = getattr(sub, "name", None) or getattr(sub, "rest", None)
                if isinstance(name, str):
                    self.bound.add(name)
            stack += case.body

    def store(self, target: ast.AST, value: Optional[ast.AST] = None,
              loop: bool = False) -> None:
        """Record the keys ``target`` binds and, given the ``value``, what each one
        gets: in an assignment the matching element of the value (unless
        unpacked), in a ``for`` loop the iterable."""
        if target.__class__ is ast.Name:  # (the common case, without the stack)
            k = target.id
            self.bound.add(k)
            if value is not None:
                (self.loops if loop else self.assignments).setdefault(k, []).append(value)
            return
        values = self.loops if loop else self.assignments
        stack = [(target, value)]
        while stack:
            node, value = stack.pop()
            cls = node.__class__
            if cls is ast.Name:
                k: Optional[str] = node.id
            elif cls is ast.Attribute:
                k = key(node)
            elif cls is ast.Tuple or cls is ast.List:
                pairs, exact = _elements(node, value)
                if not (exact or loop):
                    pairs = [None] * len(pairs)
                stack += zip(node.elts, pairs)
                continue
            elif cls is ast.Starred:
                stack.append((node.value, value if loop else None))
                continue
            else:
                continue
            if k is not None:
                self.bound.add(k)
                if value is not None:
                    values.setdefault(k, []).append(value)

    def walruses(self, scope_node: ast.AST) -> None:
        """The targets of ``:=`` in the body's expressions, and in the parts of
        nested scopes evaluated in it (decorators, defaults, bases)."""
        for node in body_nodes(scope_node):
            parts = [node] if node.__class__ is ast.NamedExpr else (
                _outer_parts(node) if isinstance(node, _NESTED) else ())
            for part in parts:
                for sub in ast.walk(part):
                    if sub.__class__ is ast.NamedExpr:
                        self.store(sub.target, sub.value)


class _Facts:
    """The facts :class:`Flow` makes in one walk over the whole body (see there)."""

    def __init__(self, scope_node: ast.AST) -> None:
        self.assigned: Dict[str, List[ast.AST]] = {}
        self.backward: Set[str] = set()
        self.backward_plain: Set[str] = set()
        self.requires_grad: Set[str] = set()
        self.subscripts: Dict[str, Set[object]] = {}
        self.roots: Set[str] = set()  # keys read by backward receivers and returns
        handlers = _FACTS
        for node in body_nodes(scope_node):
            handler = handlers.get(node.__class__)
            if handler is not None:
                handler(self, node)
        if isinstance(scope_node, ast.Lambda):
            self.roots.update(read_keys(scope_node.body, through_detach=False))

    def assign(self, node: ast.Assign) -> None:
        value = node.value
        for target in node.targets:
            k = key(target)
            if k is not None:
                self.assigned.setdefault(k, []).append(value)
            if (
                target.__class__ is ast.Attribute
                and target.attr == "requires_grad"
                and isinstance(value, ast.Constant)
                and value.value is True
            ):
                k = key(target.value)
                if k:
                    self.requires_grad.add(k)

    def update(self, node: ast.AST) -> None:
        """``x += v``, ``x: T = v``, ``(x := v)``."""
        k = key(node.target)
        if k is not None and node.value is not None:
            self.assigned.setdefault(k, []).append(node.value)

    def call(self, node: ast.Call) -> None:
        func = node.func
        if func.__class__ is ast.Attribute:
            attr = func.attr
            if attr == "backward":
                self.roots.update(read_keys(func.value))
                _backward_call(node, self.backward, self.backward_plain)
            elif attr == "requires_grad_":
                k = key(func.value)
                if k:
                    self.requires_grad.add(k)
            elif attr != "grad":
                return
        elif func.__class__ is not ast.Name:
            return
        callee = key(func)
        if callee and callee.rsplit(".", 1)[-1] in ("backward", "grad") and node.args:
            if "autograd" in callee or callee in ("backward", "grad"):
                self.roots.update(read_keys(node.args[0]))

    def subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        if index.__class__ is ast.Constant and type(index.value) is int:
            k = key(node.value)
            if k is not None:
                self.subscripts.setdefault(k, set()).add(index.value)

    def attribute(self, node: ast.Attribute) -> None:
        """``out[0].x``: ``out`` is indexed like a tuple."""
        value = node.value
        if value.__class__ is ast.Subscript and isinstance(value.slice, ast.Constant):
            k = key(value.value)
            if k is not None:
                self.subscripts.setdefault(k, set()).add(".")

    def result(self, node: ast.AST) -> None:
        """``return v``, ``yield v``: ``v`` leaves the function."""
        if node.value is not None:
            self.roots.update(read_keys(node.value, through_detach=False))


def _backward_call(call: ast.Call, backward: Set[str], plain: Set[str]) -> None:
    """Record ``x.backward(...)``: ``x`` in ``backward``; the scalar terms of ``x``
    in ``plain`` when no gradient is given."""
    func = call.func
    k = key(func.value)
    if k:
        backward.add(k)
    if not call.args and not any(kw.arg == "gradient" for kw in call.keywords):
        plain.update(_scalar_terms(func.value))


def _backward_calls(scope_node: ast.AST, lines: Sequence[int]) -> Tuple[Set[str], Set[str]]:
    """``Flow.backward`` and ``Flow.backward_plain`` found in the statements of the
    body that span one of ``lines`` (sorted line numbers: those that say
    ``backward``), rather than in the whole body."""
    backward: Set[str] = set()
    plain: Set[str] = set()

    def spans(node: ast.AST) -> bool:
        i = bisect_left(lines, node.lineno)
        return i < len(lines) and lines[i] <= node.end_lineno

    expressions: List[ast.AST] = []
    if isinstance(scope_node, ast.Lambda):
        expressions.append(scope_node.body)
        stack: List[ast.AST] = []
    else:
        stack = list(scope_node.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED) or (isinstance(node, ast.stmt) and not spans(node)):
            continue
        if node.__class__ in _COMPOUND or isinstance(node, _CLAUSES):
            for child in children(node):
                (stack if isinstance(child, (ast.stmt, *_CLAUSES)) else expressions).append(child)
        else:
            expressions.append(node)
    for node in _walk(expressions):
        func = getattr(node, "func", None)
        if func.__class__ is ast.Attribute and func.attr == "backward":
            _backward_call(node, backward, plain)
    return backward, plain


_FACTS: Dict[type, Callable[[_Facts, ast.AST], None]] = {
    ast.Assign: _Facts.assign,
    ast.AugAssign: _Facts.update,
    ast.AnnAssign: _Facts.update,
    ast.NamedExpr: _Facts.update,
    ast.Call: _Facts.call,
    ast.Subscript: _Facts.subscript,
    ast.Attribute: _Facts.attribute,
    ast.Return: _Facts.result,
    ast.Yield: _Facts.result,
    ast.YieldFrom: _Facts.result,
}
_NONE: FrozenSet[str] = frozenset()


def _nfkc(text: str) -> str:
    """``text`` as Python reads identifiers: ``ｂackward`` is ``backward``."""
    if text.isascii():
        return text
    import unicodedata  # (rarely needed: not imported with the plugin)

    return unicodedata.normalize("NFKC", text)


#: the lines of the last file :func:`tokenizer_lines` checked, and its answer
_checked: Tuple[object, Optional[Sequence[str]]] = (None, None)


#: the text of the last file :func:`_file_says` was asked about, and its answers
_said: Tuple[object, Dict[str, bool]] = (None, {})


def _file_says(text: str, word: str) -> bool:
    """Whether ``text`` may say ``word`` as Python reads identifiers (``False``
    only for ASCII text without it).  The answers for the last file are remembered."""
    global _said
    said = _said
    if said[0] is not text:
        said = _said = (text, {})
    found = said[1].get(word)
    if found is None:
        found = said[1][word] = word in text or not text.isascii()
    return found


def lines_saying(text: str, word: str, first: int = 1) -> List[int]:
    """The numbers of the lines of ``text`` (lines ending in ``\n``, the first
    numbered ``first``) that hold ``word``, in order."""
    numbers: List[int] = []
    line, last = first, 0
    at = text.find(word)
    while at != -1:
        line += text.count("\n", last, at)
        last = at
        if not numbers or numbers[-1] != line:
            numbers.append(line)
        at = text.find(word, at + 1)
    return numbers


def tokenizer_lines(lines: Sequence[str], text: str) -> Optional[Sequence[str]]:
    """``lines`` if they are split where Python's tokenizer splits ``text`` (so
    that the line numbers of its tree index them), else ``None``.  The answer
    for the last file is remembered."""
    global _checked
    checked = _checked
    if checked[0] is not lines:
        ends = text.count("\n") + text.count("\r") - text.count("\r\n")
        whole = len(lines) == ends + (not text.endswith(("\n", "\r")))
        checked = _checked = (lines, lines if whole else None)
    return checked[1]


class Flow:
    """Facts about the keys of one function body.

    Made in one walk over the body, when one of them is first asked for:

    - ``assigned[k]``: the value nodes assigned to ``k`` (``=``, ``+=``, ``:=``),
      in source order;
    - ``backward``: keys on which ``.backward(...)`` is called;
      ``backward_plain``: keys that must hold one element because ``.backward()``
      is called without a gradient on them or on a sum of them
      (``(value_loss + action_loss - entropy * coef).backward()``); both empty
      without a walk when the source never says ``backward``;
    - ``requires_grad``: keys that were ``.requires_grad_()``-ed or had
      ``.requires_grad = True`` set;
    - ``subscripts[k]``: the constant integer indexes used on ``k``, and ``"."``
      when an attribute of ``k[<constant>]`` is read (``out[0].backward()``): a
      key indexed like a tuple.

    Made in a walk over the statements alone: ``bound``, every key the body
    may bind (a superset: a key outside it has no binding here, so
    :meth:`defs` is empty and :meth:`reaching` finds nothing, ``()`` or
    ``None``); ``assignments[k]`` (see :meth:`assignments_to`), the values the
    body may bind to ``k`` by ``=``, ``+=``, ``:=`` or an annotated assignment,
    elements of ``a, b = x, y`` paired, in no particular order (a superset of
    the values of the bindings :meth:`reaching` can find of those kinds);
    ``loops[k]`` (see :meth:`loops_over`), the iterables of the ``for`` loops
    that bind ``k``.  With them a rule can dismiss evidence before asking for
    the reaching definitions.

    Made when first asked: :meth:`reaching`, :meth:`carried`, :meth:`defs`,
    :attr:`sinks`.  ``ctx`` (a :class:`~flake8_torch04._core.Context`) gives
    the source, which lets some answers skip a walk.
    """

    def __init__(self, scope_node: ast.AST, ctx=None) -> None:
        self.node = scope_node
        self._ctx = ctx
        self._lines: Optional[List[str]] = None
        self._text: Optional[str] = None
        self._backward: Optional[Tuple[Set[str], Set[str]]] = None
        self._bindings: Optional[_Bindings] = None
        self._facts: Optional[_Facts] = None
        self._reaching: Optional[_ReachingDefinitions] = None
        #: loop -> binding index -> whether it builds on a value from before
        #: the iteration (see :meth:`carried`)
        self._carried: Dict[ast.AST, Dict[int, bool]] = {}
        self._sinks: Optional[Set[str]] = None

    def _body_lines(self) -> Optional[List[str]]:
        """The source lines of the body, NFKC-normalized like identifiers
        (``ｂackward`` is ``backward``); ``None`` without a source, or when its
        lines are not numbered like the tree's."""
        if self._lines is None and self._ctx is not None:
            lines = tokenizer_lines(self._ctx.source.lines, self._ctx.text)
            if lines is not None:
                node = self.node
                if not isinstance(node, ast.Module):
                    lines = lines[node.lineno - 1:node.end_lineno]
                if self._ctx.text.isascii():  # (the common case: nothing to normalize)
                    self._lines = list(lines)
                else:
                    self._lines = [_nfkc(line) for line in lines]
        return self._lines

    def _says(self, word: str) -> bool:
        """Whether the body's source may say ``word`` (``False`` only when it
        surely does not)."""
        if self._text is None:
            ctx = self._ctx
            if ctx is not None and not _file_says(ctx.text, word):
                return False  # (the file never says it: no need to cut out the body)
            lines = self._body_lines()
            if lines is not None:
                self._text = "".join(lines)
            elif self._ctx is not None:
                self._text = _nfkc(self._ctx.text)  # the whole file
            else:
                return True
        return word in self._text

    def _backward_facts(self) -> Tuple[Set[str], Set[str]]:
        """``backward`` and ``backward_plain``: none when the source never says
        ``backward``, else from the statements on the lines that do (from the
        whole walk if it is made anyway, or the lines are not known)."""
        if self._backward is None:
            if not self._says("backward"):
                self._backward = (_NONE, _NONE)
                return self._backward
            lines = self._body_lines() if self._facts is None else None
            if lines is not None:
                first = getattr(self.node, "lineno", 1)
                text = self._text
                if text is not None and "\r" not in text and text.isascii():
                    numbers = lines_saying(text, "backward", first)
                else:
                    numbers = [i for i, line in enumerate(lines, first) if "backward" in line]
                self._backward = _backward_calls(self.node, numbers)
            else:
                self._backward = (self._scan().backward, self._scan().backward_plain)
        return self._backward

    def _scan(self) -> _Facts:
        if self._facts is None:
            self._facts = _Facts(self.node)
        return self._facts

    def _binds(self) -> _Bindings:
        if self._bindings is None:
            self._bindings = _Bindings(self.node, walrus=self._says(":="))
        return self._bindings

    @property
    def assigned(self) -> Dict[str, List[ast.AST]]:
        return self._scan().assigned

    @property
    def backward(self) -> Set[str]:
        return self._backward_facts()[0]

    @property
    def backward_plain(self) -> Set[str]:
        return self._backward_facts()[1]

    @property
    def requires_grad(self) -> Set[str]:
        return self._scan().requires_grad

    @property
    def subscripts(self) -> Dict[str, Set[object]]:
        return self._scan().subscripts

    @property
    def bound(self) -> Set[str]:
        return self._binds().bound

    def assignments_to(self, k: Optional[str]) -> Optional[List[ast.AST]]:
        """``assignments[k]`` (``[]`` for no key), or ``None`` when there are more
        than :data:`MANY`: too many to look through at every question."""
        values = self._binds().assignments.get(k, []) if k else []
        return values if len(values) <= MANY else None

    def loops_over(self, k: Optional[str]) -> Optional[List[ast.AST]]:
        """``loops[k]``, as :meth:`assignments_to`."""
        values = self._binds().loops.get(k, []) if k else []
        return values if len(values) <= MANY else None

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

    def carried(self, node: ast.AST, loop: ast.AST) -> bool:
        """Whether the value read at ``node`` inside ``loop`` may come from before
        the current iteration (an earlier iteration, or before the loop), directly
        or through bindings in this iteration that add to it (``acc += x``)."""
        if key(node) is None:
            return False
        found, pending = self._carried_into(node, loop)
        if found or not pending:
            return found
        return any(self._carried_by(d, loop) for d in pending)

    def _carried_into(self, read: ast.AST, loop: ast.AST) -> Tuple[bool, List[Def]]:
        """Whether what reaches ``read`` comes from before this iteration of
        ``loop`` by itself; else the bindings in it still to be asked about."""
        reach = self._reach()
        lo, hi = reach.loop_range.get(loop, (0, 0))
        known = self._carried.setdefault(loop, {})
        pending = []
        for item in reach.reads.get(id(read)) or ():
            if not isinstance(item, Def):
                if item is loop or _encloses(item, loop):
                    return True, []
            elif not lo <= item.index < hi or known.get(item.index):
                return True, []
            elif item.index not in known:
                pending.append(item)
        return False, pending

    def _carried_by(self, d: Def, loop: ast.AST) -> bool:
        """Whether binding ``d`` in ``loop`` builds on a value from before the
        iteration, remembered per binding.  The bindings a binding builds on
        come before it (the reads of a statement precede its bindings), so
        they are settled first, without recursion."""
        known = self._carried[loop]
        stack = [d]
        while stack:
            top = stack[-1]
            if top.index in known:
                stack.pop()
                continue
            found, pending = False, []
            for read in _self_reads(top):
                found, more = self._carried_into(read, loop)
                if found:
                    break
                pending += [earlier for earlier in more if earlier.index < top.index]
            if found or not pending:
                known[top.index] = found
                stack.pop()
            else:
                stack += pending
        return known[d.index]

    def defs(self, k: str) -> Sequence[Def]:
        """Every binding of ``k`` in this body, in source order."""
        if k not in self.bound:
            return ()
        return self._reach().defs.get(k, ())

    @property
    def sinks(self) -> Set[str]:
        """Keys whose value may flow into a ``.backward()`` receiver,
        ``torch.autograd.backward/grad`` or a ``return``/``yield`` (not through
        ``.item()``, ``.data``, ``float()``...)."""
        if self._sinks is None:
            sinks = set(self._scan().roots)
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
        if isinstance(parent, _LOOPS) and _in_body(parent, child):
            return parent
        if isinstance(parent, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return None
        child = parent
    return None


def _in_body(loop: ast.AST, child: ast.AST) -> bool:
    """``child in loop.body``, by a binary search on positions (a body can be long)."""
    body = loop.body
    where = (getattr(child, "lineno", 0), getattr(child, "col_offset", 0))
    lo, hi = 0, len(body)
    while lo < hi:
        mid = (lo + hi) // 2
        if (body[mid].lineno, body[mid].col_offset) < where:
            lo = mid + 1
        else:
            hi = mid
    return lo < len(body) and body[lo] is child
