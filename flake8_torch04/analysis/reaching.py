"""Reaching definitions inside one function: which assignments reach a read."""
from __future__ import annotations

import ast
from bisect import bisect_left
from typing import (
    Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union
)

from .nodes import COMPREHENSIONS, FUNCTIONS, NODE_FIELDS, children, push_children
from .resolve import key  # noqa: F401  (re-exported: the rules take it from here)

# ---------------------------------------------------------------------------
# bindings


def params_of(func: ast.AST) -> List[ast.arg]:
    args = func.args
    every = [*getattr(args, "posonlyargs", []), *args.args, *args.kwonlyargs]
    return every + [a for a in (args.vararg, args.kwarg) if a is not None]


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


class BackEdge:
    """What a loop's back edge brings to the top of its body: the bindings that
    reach the end of the body (see :meth:`ReachingDefinitions.expand`).  The loop
    node itself, after the loop, stands for what reaches its exits: the end of
    the body and every ``break`` (every binding inside it where the body holds
    a ``continue``)."""

    __slots__ = ("loop",)

    def __init__(self, loop: ast.AST) -> None:
        self.loop = loop


class _Frame:
    """The bindings made on one path: a block, a branch, or a loop body."""

    __slots__ = ("parent", "vars", "loop", "back", "dead")

    def __init__(self, parent: Optional["_Frame"], loop: Optional[ast.AST] = None) -> None:
        self.parent = parent
        self.vars: Dict[str, _Reach] = {}
        self.loop = loop
        self.back = BackEdge(loop) if loop is not None else None
        self.dead = False  # the end of the path is unreachable (return, break, ...)

    def lookup(self, k: str) -> _Reach:
        frame: Optional[_Frame] = self
        loops: List[ast.AST] = []
        found: _Reach = _EMPTY
        while frame is not None:
            if k in frame.vars:
                found = frame.vars[k]
                break
            if frame.back is not None:
                loops.append(frame.back)
            frame = frame.parent
        if loops:
            found = _union(found, frozenset(loops))
        return found


def target_elements(target: ast.AST, value: Optional[ast.AST]) -> Tuple[Sequence, bool]:
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


class ReachingDefinitions:
    """One walk over a function body recording what reaches every read of a key."""

    def __init__(self, scope_node: ast.AST, decided: Optional[Dict[int, bool]] = None) -> None:
        #: ``id(if statement) -> the branch that runs`` (``True``: its body), for a
        #: reading of the function with some arguments known (:mod:`.decided`)
        self.decided = decided if decided is not None else {}
        self.reached_returns = decided is not None
        #: with ``decided`` (even empty): the ``return`` statements a path reaches
        self.returns: List[ast.Return] = []
        self.frame = _Frame(None)
        #: id(read node) -> what reaches it
        self.reads: Dict[int, _Reach] = {}
        #: key -> its bindings in walk order
        self.defs: Dict[str, List[Def]] = {}
        self.count = 0
        #: loop node -> (first, last + 1) index of the bindings made inside it
        self.loop_range: Dict[ast.AST, Tuple[int, int]] = {}
        #: loop node -> key -> what reaches the end of its body, which the back
        #: edge takes to the top (not followed where a ``continue`` is in it)
        self.loop_exit: Dict[ast.AST, Dict[str, _Reach]] = {}
        #: loop node -> what reaches each of its ``break`` statements, by key
        self.breaks: Dict[ast.AST, List[Dict[str, _Reach]]] = {}
        self.continues: Dict[ast.AST, bool] = {}
        self._loops: List[Tuple[ast.AST, _Frame]] = []
        #: key -> the indexes of its bindings (made when first needed)
        self.indexes: Dict[str, List[int]] = {}
        if isinstance(scope_node, FUNCTIONS):
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
        for arg in params_of(func):
            self.bind(arg.arg, "param", arg)

    def target(self, target: ast.AST, stmt: ast.AST, value: Optional[ast.AST],
               kind: str = "assign") -> None:
        """Bind an assignment target to ``value`` (``None`` when not known exactly)."""
        if isinstance(target, (ast.Tuple, ast.List)):
            pairs, exact = target_elements(target, value)
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
        if self.reached_returns and node.__class__ is ast.Return and self.live():
            self.returns.append(node)  # type: ignore[arg-type]
        if node.__class__ is ast.Break and self._loops and self.live():
            loop, body = self._loops[-1]
            keys: Set[str] = set()
            frame: Optional[_Frame] = self.frame
            while frame is not None and frame is not body.parent:
                keys.update(frame.vars)
                frame = frame.parent
            self.breaks.setdefault(loop, []).append({k: self.frame.lookup(k) for k in keys})
        self.frame.dead = True

    def live(self) -> bool:
        """Whether a path reaches where the walk is (no return, break... before)."""
        frame: Optional[_Frame] = self.frame
        while frame is not None:
            if frame.dead:
                return False
            frame = frame.parent
        return True

    def s_if(self, node: ast.If) -> None:
        self.expr(node.test)
        taken = self.decided.get(id(node))
        if taken is not None:
            self.block(node.body if taken else node.orelse)
            return
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
        self._loops.append((node, body))
        start()
        self.block(node.body)
        self._loops.pop()
        self.loop_range[node] = (first, self.count)
        self.loop_exit[node] = {} if body.dead else {k: body.lookup(k) for k in body.vars}
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
            elif cls in COMPREHENSIONS:
                self.comprehension(node)
            else:
                push_children(stack, node, NODE_FIELDS)

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
    def _continues(self, loop: ast.AST) -> bool:
        found = self.continues.get(loop)
        if found is None:
            found = self.continues[loop] = continues(loop)
        return found

    def expand(self, reach: _Reach, k: str) -> Optional[Tuple[Def, ...]]:
        if reach is None:
            return None
        found: Dict[int, Def] = {}
        stack = []
        for item in reach:
            if item.__class__ is Def:
                found[item.index] = item  # type: ignore[union-attr]
            else:
                stack.append(item)
        if stack and not self._expand_loops(stack, k, found):
            return None
        if len(found) > 2 * CAP:
            return None
        return tuple(found[i] for i in sorted(found))

    def _expand_loops(self, stack: list, k: str, found: Dict[int, Def]) -> bool:
        """Add to ``found`` the bindings of ``k`` the loop items of ``stack`` stand
        for; ``False`` where they are not known."""
        defs = self.defs.get(k, [])
        indexes = self.indexes.get(k)
        if indexes is None:
            indexes = self.indexes[k] = [d.index for d in defs]
        seen: Set = set()
        while stack:
            item = stack.pop()
            if item.__class__ is Def:
                found[item.index] = item
                continue
            if item in seen:
                continue
            seen.add(item)
            if item.__class__ is BackEdge:
                exits = self.loop_exit.get(item.loop)
                if exits is not None and not self._continues(item.loop):
                    # (what the end of the body takes to the top)
                    back = exits.get(k, _EMPTY)
                    if back is None:
                        return False
                    stack.extend(back)
                    continue
                item = item.loop  # (a ``continue`` in it: every binding in the loop)
            elif item in self.loop_exit and not self._continues(item):
                # (after the loop: what reaches the end of its body and its ``break``s)
                for reached in (self.loop_exit[item], *self.breaks.get(item, ())):
                    back = reached.get(k, _EMPTY)
                    if back is None:
                        return False
                    stack.extend(back)
                continue
            lo, hi = self.loop_range.get(item, (0, 0))
            start, stop = bisect_left(indexes, lo), bisect_left(indexes, hi)
            if stop - start > 2 * CAP:
                return False
            for d in defs[start:stop]:
                found[d.index] = d
        return True


def continues(loop: ast.AST, until: Optional[int] = None) -> bool:
    """Whether a ``continue`` of ``loop`` itself is in its body (not one of a
    loop or function inside it); with ``until``, one on that line or before."""
    stack = list(loop.body)  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if node.__class__ is ast.Continue and (until is None or node.lineno <= until):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, *FUNCTIONS, ast.ClassDef)):
            stack.extend(getattr(node, "orelse", ()))  # (a loop's ``else`` is the outer's)
            continue
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, name, ()))
    return False


_STATEMENTS: Dict[type, Callable] = {
    ast.Assign: ReachingDefinitions.s_assign,
    ast.AnnAssign: ReachingDefinitions.s_annassign,
    ast.AugAssign: ReachingDefinitions.s_augassign,
    ast.Return: ReachingDefinitions.s_end,
    ast.Raise: ReachingDefinitions.s_end,
    ast.Break: ReachingDefinitions.s_end,
    ast.Continue: ReachingDefinitions.s_end,
    ast.If: ReachingDefinitions.s_if,
    ast.For: ReachingDefinitions.s_for,
    ast.AsyncFor: ReachingDefinitions.s_for,
    ast.While: ReachingDefinitions.s_while,
    ast.With: ReachingDefinitions.s_with,
    ast.AsyncWith: ReachingDefinitions.s_with,
    ast.Try: ReachingDefinitions.s_try,
    ast.FunctionDef: ReachingDefinitions.s_def,
    ast.AsyncFunctionDef: ReachingDefinitions.s_def,
    ast.ClassDef: ReachingDefinitions.s_def,
    ast.Import: ReachingDefinitions.s_import,
    ast.ImportFrom: ReachingDefinitions.s_import,
    ast.Delete: ReachingDefinitions.s_delete,
}
for _name, _handler in (
    ("TryStar", ReachingDefinitions.s_try),  # Python 3.11+
    ("Match", ReachingDefinitions.s_match),  # Python 3.10+
):
    if hasattr(ast, _name):
        _STATEMENTS[getattr(ast, _name)] = _handler


def self_reads(d: Def) -> Iterator[ast.AST]:
    """The reads of ``d.key`` that ``d`` builds on: the target of ``acc += x``,
    ``acc`` in ``acc = acc + x``."""
    if d.kind == "augassign":
        yield d.node.target
    elif d.kind == "assign" and d.value is not None:
        for sub in ast.walk(d.value):
            if isinstance(sub, (ast.Name, ast.Attribute)) and key(sub) == d.key:
                yield sub


def encloses(outer: ast.AST, inner: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and (
        outer.end_lineno, outer.end_col_offset) >= (inner.end_lineno, inner.end_col_offset)


def unpack_index(d) -> Optional[int]:
    """The position of ``d``'s name in the tuple it is unpacked into (``None``
    where it is deeper: see :func:`unpack_path`)."""
    path = unpack_path(d)
    return path[0] if path is not None and len(path) == 1 else None


def unpack_path(d) -> Optional[Tuple[int, ...]]:
    """The positions that lead to ``d``'s name in the tuples it is unpacked
    into: ``(1, 0)`` for ``h`` in ``out, (h, c) = lstm(x)``."""
    stmt = d.node
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    for target in targets:
        path = target_path(target, d.key)
        if path is not None:
            return path
    return None


def target_path(target: ast.AST, name: str) -> Optional[Tuple[int, ...]]:
    """The positions that lead to ``name`` in the tuple target ``target``."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return None
    if any(isinstance(e, ast.Starred) for e in target.elts):
        return None
    for i, e in enumerate(target.elts):
        if isinstance(e, (ast.Tuple, ast.List)):
            inner = target_path(e, name)
            if inner is not None:
                return (i, *inner)
        elif key(e) == name:
            return (i,)
    return None
