"""Intra-function data-flow facts, shared by the rules that need evidence about values."""
from __future__ import annotations

import ast
from bisect import bisect_left
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

from .lines import file_says, lines_saying, nfkc, tokenizer_lines
from .nodes import CLAUSES, COMPOUND, FUNCTIONS, NESTED, body_nodes, children, walk_roots
from .reaching import (
    MANY, Def, ReachingDefinitions, encloses, params_of, self_reads, target_elements
)
from .reads import read_keys, scalar_terms
from .resolve import key  # noqa: F401  (re-exported: the rules take it from here)

# ---------------------------------------------------------------------------
# the facts of one function


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
    **{cls: _DEFINITION for cls in NESTED},
}


class _Bindings:
    """The keys a body binds, from a walk over its statements alone.

    ``bound`` holds every key that :class:`ReachingDefinitions` may bind
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
        if isinstance(scope_node, FUNCTIONS):
            self.bound.update(arg.arg for arg in params_of(scope_node))
        stack = [] if isinstance(scope_node, ast.Lambda) else list(scope_node.body)
        bound, assignments, store = self.bound, self.assignments, self.store
        kinds, compound, name_class = _BINDING_KINDS, COMPOUND, ast.Name
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
                pairs, exact = target_elements(node, value)
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
                _outer_parts(node) if isinstance(node, NESTED) else ())
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
        plain.update(scalar_terms(func.value))


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
        if isinstance(node, NESTED) or (isinstance(node, ast.stmt) and not spans(node)):
            continue
        if node.__class__ in COMPOUND or isinstance(node, CLAUSES):
            for child in children(node):
                (stack if isinstance(child, (ast.stmt, *CLAUSES)) else expressions).append(child)
        else:
            expressions.append(node)
    for node in walk_roots(expressions):
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
    :attr:`sinks`.  ``ctx`` (a :class:`~flake8_torch04.analysis.context.Context`) gives
    the source, which lets some answers skip a walk.
    """

    def __init__(self, scope_node: ast.AST, ctx=None,
                 decided: Optional[Dict[int, bool]] = None) -> None:
        self.node = scope_node
        self._ctx = ctx
        self._decided = decided
        self._lines: Optional[List[str]] = None
        self._text: Optional[str] = None
        self._backward: Optional[Tuple[Set[str], Set[str]]] = None
        self._bindings: Optional[_Bindings] = None
        self._facts: Optional[_Facts] = None
        self._reaching: Optional[ReachingDefinitions] = None
        #: loop -> binding index -> whether it builds on a value from before
        #: the iteration (see :meth:`carried`)
        self._carried: Dict[ast.AST, Dict[int, bool]] = {}
        self._sinks: Optional[Set[str]] = None
        self._terms: Optional[Set[str]] = None

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
                    self._lines = [nfkc(line) for line in lines]
        return self._lines

    def _says(self, word: str) -> bool:
        """Whether the body's source may say ``word`` (``False`` only when it
        surely does not)."""
        if self._text is None:
            ctx = self._ctx
            if ctx is not None and not file_says(ctx.text, word):
                return False  # (the file never says it: no need to cut out the body)
            lines = self._body_lines()
            if lines is not None:
                self._text = "".join(lines)
            elif self._ctx is not None:
                self._text = nfkc(self._ctx.text)  # the whole file
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
    def backward_terms(self) -> Set[str]:
        """Keys that are terms (through ``+ - * /`` and signs, not calls) of what a key
        of :attr:`backward_plain` is assigned, and of their own values: one element
        each, as broadcasting cannot make a one-element result of a larger operand
        (``J = L - alpha * c + U`` then ``J.backward()``: ``L``, ``U``)."""
        if self._terms is None:
            plain = self.backward_plain
            found: Set[str] = set()
            todo = list(plain) if plain else []
            while todo:  # (the bindings of the reaching definitions: no scan of the body)
                for d in self.defs(todo.pop()):
                    if d.kind not in ("assign", "augassign") or d.value is None:
                        continue
                    for term in _terms(d.value):
                        k = key(term)
                        if k is not None and k not in found and k not in plain:
                            found.add(k)
                            todo.append(k)
            self._terms = found
        return self._terms

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
    def _reach(self) -> ReachingDefinitions:
        if self._reaching is None:
            self._reaching = ReachingDefinitions(self.node, self._decided)
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
                item = getattr(item, "loop", item)  # (a back edge: its loop)
                if item is loop or encloses(item, loop):
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
            for read in self_reads(top):
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


def _terms(node: ast.AST) -> Iterator[ast.AST]:
    """The names and attributes ``node`` adds, subtracts, multiplies or divides."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        yield from _terms(node.left)
        yield from _terms(node.right)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        yield from _terms(node.operand)
    elif isinstance(node, (ast.Name, ast.Attribute)):
        yield node
