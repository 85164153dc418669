"""Which fields of an AST class hold child nodes, and walking them (the walker and the
data flow share this)."""
from __future__ import annotations

import ast
import re
from bisect import bisect_left
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

#: fields that hold identifiers, numbers or constants, never child nodes
#: (``ctx``, ``op`` and ``ops`` hold nodes, but shared singletons nobody looks at)
SCALAR_FIELDS = frozenset((
    "ctx", "op", "ops", "id", "attr", "arg", "asname", "module", "level", "rest",
    "kwd_attrs", "type_comment", "kind", "simple", "is_async", "conversion", "tag", "lineno",
))
_SCALAR_FIELDS_OF = {
    "Global": ("names",), "Nonlocal": ("names",), "MatchSingleton": ("value",),
    "Constant": ("value",),
}

#: statements that hold statements (``def`` and ``class`` included)
HOLDS_STATEMENTS = frozenset(
    cls for cls in vars(ast).values()
    if isinstance(cls, type) and issubclass(cls, ast.stmt) and "body" in cls._fields
)

#: class -> the fields that may hold nodes (made by :func:`node_fields`)
FIELDS_OF: Dict[type, Tuple[str, ...]] = {}


def node_fields(cls: type) -> Tuple[str, ...]:
    """The fields of ``cls`` that may hold nodes (or lists of nodes and ``None``), in order."""
    fields = FIELDS_OF.get(cls)
    if fields is None:
        skip = _SCALAR_FIELDS_OF.get(cls.__name__, ())
        fields = FIELDS_OF[cls] = tuple(
            f for f in cls._fields
            if f not in SCALAR_FIELDS and f not in skip
            and (f != "name" or cls.__name__ == "TypeAlias")  # elsewhere an identifier
        )
    return fields


NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: parts of compound statements that hold statements
CLAUSES: Tuple[type, ...] = (ast.ExceptHandler, *(
    [ast.match_case] if hasattr(ast, "match_case") else []))
#: statements that hold statements
COMPOUND = HOLDS_STATEMENTS - frozenset(NESTED)


#: class -> its node fields, last first (a walk pushes them on a stack)
NODE_FIELDS: Dict[type, Tuple[str, ...]] = {}
#: the same, with none for nested scopes (not entered by :func:`body_nodes`)
_BODY_FIELDS: Dict[type, Tuple[str, ...]] = {cls: () for cls in NESTED}


def _node_fields(cls: type) -> Tuple[str, ...]:
    fields = NODE_FIELDS.get(cls)
    if fields is None:
        fields = NODE_FIELDS[cls] = tuple(reversed(node_fields(cls)))
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
        return walk_roots([scope_node.body])
    return walk_roots(getattr(scope_node, "body", []))


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
        push_children(stack, node, _BODY_FIELDS)
        for child in stack[size:]:
            if child is not None:
                parents[id(child)] = node
    return nodes, parents


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
            push_children(stack, node, NODE_FIELDS)  # (no expression contexts)


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
        push_children(stack, node, NODE_FIELDS)


def walk_roots(roots: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of ``roots`` and below, in source order, nested scopes not entered."""
    stack: List[Optional[ast.AST]] = list(reversed(roots))
    while stack:
        node = stack.pop()
        if node is None:  # from a list with holes: ``Dict.keys``, ``kw_defaults``
            continue
        yield node
        push_children(stack, node, _BODY_FIELDS)


def push_children(
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


#: the fields that hold statements or clauses (``except``, ``case``)
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _blocks(root: ast.AST) -> Iterator[Tuple[ast.AST, list]]:
    """``(node, block)``: every list of statements or clauses inside ``root``
    (nested definitions' too), with the node that holds it."""
    stack = [root]
    while stack:
        node = stack.pop()
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if block.__class__ is list:
                yield node, block
                stack += block


def statement_parents(tree: ast.AST) -> Dict[int, ast.AST]:
    """``id(node) -> parent`` for every statement and clause (``except``, ``case``)
    of the file: what :meth:`Context.file_parents` says of them, made in a walk
    of the statements alone (a tenth of the nodes)."""
    return {id(child): node for node, block in _blocks(tree) for child in block}


def statements(root: ast.AST) -> Iterator[ast.AST]:
    """Every statement and clause inside ``root`` (nested definitions' too), not
    ``root`` itself."""
    for _, block in _blocks(root):
        yield from block


def function_around(parents: Dict[int, ast.AST], node: ast.AST, module: ast.AST) -> ast.AST:
    """The innermost ``def`` around ``node``, or ``module`` at its top."""
    return enclosing(parents, node, (ast.FunctionDef, ast.AsyncFunctionDef)) or module


def enclosing(parents: Dict[int, ast.AST], node: ast.AST, kinds) -> Optional[ast.AST]:
    """The nearest ancestor of ``node`` that is one of ``kinds``, in ``parents``."""
    node = parents.get(id(node))
    while node is not None and not isinstance(node, kinds):
        node = parents.get(id(node))
    return node


def innermost(parents: Sequence[ast.AST], kinds, barriers=()) -> Optional[ast.AST]:
    """The innermost of ``parents`` (the walker's chain of ancestors, outermost
    first) that is one of ``kinds``, or ``None`` where one of ``barriers`` (a
    ``def``, a ``class``...) comes before it."""
    for parent in reversed(parents):
        if isinstance(parent, kinds):
            return parent
        if isinstance(parent, barriers):
            return None
    return None


def if_tests(chain: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """The tests of the ``if`` statements whose body (not ``else``) holds the last of
    ``chain`` (the walker's ancestors, outermost first), innermost first, up to the
    function, lambda or class around it."""
    for i in range(len(chain) - 1, 0, -1):
        parent, child = chain[i - 1], chain[i]
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                               ast.ClassDef)):
            return
        if isinstance(parent, ast.If) and any(s is child for s in parent.body):
            yield parent.test


def defined_once(tree: ast.AST) -> Dict[str, ast.AST]:
    """The functions and classes defined at the top of a module, by name: those
    that one ``def`` or ``class`` statement there defines (a name two of them
    define is left out)."""
    counts: Dict[str, int] = {}
    found: Dict[str, ast.AST] = {}
    for stmt in getattr(tree, "body", ()):
        if stmt.__class__ in _DECORATED:
            counts[stmt.name] = counts.get(stmt.name, 0) + 1  # type: ignore[attr-defined]
            found[stmt.name] = stmt  # type: ignore[attr-defined]
    return {name: d for name, d in found.items() if counts[name] == 1}


def is_test(node: ast.AST) -> bool:
    """A test, whose truth only chooses: a comparison, ``not``, ``isinstance``,
    ``hasattr`` or ``callable`` (``c`` of ``c and a or b``)."""
    return isinstance(node, ast.Compare) or isinstance(node, ast.UnaryOp) and isinstance(
        node.op, ast.Not) or isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id in ("isinstance", "hasattr", "callable")


#: the expressions that bind names of their own
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def comprehension_targets(node: ast.AST) -> frozenset:
    """The names the ``for`` targets of the comprehension ``node`` bind."""
    return frozenset(n.id for g in node.generators  # type: ignore[attr-defined]
                     for n in ast.walk(g.target) if isinstance(n, ast.Name))


def reads_any(node: ast.AST, names) -> bool:
    """Whether ``node`` reads one of ``names`` (a nested comprehension's own names
    are its own: ``[make(pairs[i] for i in ids) for _ in range(n)]``)."""
    if not names:
        return False
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, COMPREHENSIONS):
        first = node.generators[0].iter  # (evaluated around it)
        inner = names - comprehension_targets(node)
        rest = [*(p for g in node.generators for p in g.ifs),
                *(g.iter for g in node.generators[1:]),
                *((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,))]
        return reads_any(first, names) or any(reads_any(p, inner) for p in rest)
    return any(reads_any(child, names) for child in ast.iter_child_nodes(node))
