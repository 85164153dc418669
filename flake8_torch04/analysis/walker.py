"""The single pass over a file's tree: scopes and bindings kept up to date, nodes
dispatched to the rules registered for their type."""
from __future__ import annotations

import ast
import re
from bisect import bisect_left
from collections import deque
from typing import Callable, Deque, Dict, Iterable, List, Optional, Tuple

from .compat import EXC_IMPORT, MODERN_IN_TRY, version_polarity
from .context import Context
from .findings import Finding
from .markers import cache_get
from .nodes import FIELDS_OF, HOLDS_STATEMENTS, node_fields
from .registry import Rule
from .resolve import Binding, Scope

# ---------------------------------------------------------------------------
# the walker

_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


#: the binding of a name that is not an import (bindings are never changed)
_LOCAL = Binding(None)
_FALLBACK_LOCAL = Binding(None, fallback=True)

#: the fields of statements (and ``match`` cases) that hold statements
_STATEMENT_LISTS = frozenset(("body", "orelse", "finalbody"))
#: nodes whose parts the walker may skip (see ``visit_node``), and those of
#: them that may be assignment targets
_EXPRESSIONS = frozenset(
    cls for cls in vars(ast).values() if isinstance(cls, type) and issubclass(cls, ast.expr)
)
_TARGETS = frozenset((ast.Tuple, ast.List, ast.Starred))


class Walker:
    def __init__(
        self,
        ctx: Context,
        licences: List[tuple],
        masks: Optional[Dict[int, int]],
        hits: Optional[List[int]] = None,
    ) -> None:
        self.ctx = ctx
        #: what the markers announce: bit ``i`` of a mask stands for ``licences[i]``
        self.licences = licences
        #: sorted numbers of the lines that match a marker, and what each announces
        #: (``masks=None``: every line announces everything)
        if masks is None:
            self.marker_lines, self.masks = [], []
            self.every: Optional[int] = (1 << len(licences)) - 1
        else:
            self.marker_lines = sorted(masks)
            self.masks = [masks[line] for line in self.marker_lines]
            self.every = None
        self.marker_count = len(self.marker_lines)
        #: where the markers match (see :meth:`holds_hit`): their sorted offsets
        #: in the text and the offset each line starts at (in bytes, as a
        #: node's columns are)
        self.hits = hits
        #: the rules to call by node type, in the statement being walked
        self.dispatch: Dict[type, List[Rule]] = {}
        #: skip the parts of expressions that hold no marker (see :meth:`visit_node`)
        self.prune = False
        self._dispatch_by_mask = _dispatches(licences)
        self.findings: List[Finding] = []
        self.compat = 0  # depth of old-PyTorch-only branches around the node
        self.fallback = 0  # depth of ``except ImportError`` handlers
        self.deferred: Deque[tuple] = deque()
        #: lines of the statements not checked to the end (nested too deeply)
        self.unchecked: List[int] = []

    # -- entry ------------------------------------------------------------
    def run(self) -> List[Finding]:
        ctx = self.ctx
        self.visit_body(getattr(ctx.tree, "body", ()))
        while self.deferred:
            func, scope, parents, compat, dispatch, prune = self.deferred.popleft()
            ctx.scope, ctx.parents, self.compat, self.fallback = scope, parents, compat, 0
            self.dispatch, self.prune = dispatch, prune
            self.visit_function_body(func)
        return self.findings

    # -- generic ----------------------------------------------------------
    def visit_body(self, statements: List[ast.stmt], old_paths: bool = True) -> None:
        """Gate each statement on the markers of its lines and walk it with what
        they announce; a statement without a marker only has its bindings
        recorded.  ``old_paths``: note an ``if`` that leaves the old-PyTorch
        path (see :meth:`leaves_old_path`)."""
        old_rest = 0
        every = self.every
        lines, masks, count = self.marker_lines, self.masks, self.marker_count
        i = 0  # the first marker line not before the statement (they come in order)
        for node in statements:
            cls = node.__class__
            if every is None:
                i = bisect_left(lines, node.lineno, i)
                mask = 0
                if i < count:
                    end = node.end_lineno or node.lineno
                    j = i
                    while j < count and lines[j] <= end:
                        mask |= masks[j]
                        j += 1
            else:
                mask = every
            if mask:
                self.visit_statement(node, mask)
            elif cls in _BINDS:
                self.bind_unwalked(node)
            if old_paths and not old_rest and cls is ast.If and self.leaves_old_path(node):
                old_rest = 1
                self.compat += 1
        self.compat -= old_rest

    def visit_exprs(self, nodes: Iterable[Optional[ast.AST]]) -> None:
        for node in nodes:
            if node is not None:
                self.visit_node(node)

    def leaves_old_path(self, node: ast.If) -> bool:
        """``if hasattr(loss, 'item'): return loss.item()`` with no ``else``:
        the statements after it run only on old PyTorch (or, when the test's
        direction is unclear, may)."""
        if node.orelse or not node.body or not isinstance(node.body[-1], _EXITS):
            return False
        polarity = version_polarity(node.test, self.ctx)
        return polarity is not None and polarity >= 0

    def visit_statement(self, node: ast.stmt, mask: int) -> None:
        """Walk a statement with what the markers on its lines announce (``mask``).

        An expression nested too deeply for the recursion limit (``a[0][0]...``
        a thousand times) stops the walk of its statement only: the statement
        is noted in :attr:`unchecked` and the walk goes on with the next one.
        """
        entry = self._dispatch_by_mask.get(mask)
        if entry is None:
            entry = self._dispatch_by_mask[mask] = self.dispatch_for(mask)
        outer, outer_prune = self.dispatch, self.prune
        state = len(self.ctx.parents), self.compat, self.fallback
        self.dispatch, descend = entry
        self.prune = self.hits is not None and not mask & 1  # a core marker: walk it all
        cls = node.__class__
        try:
            if descend or cls in HOLDS_STATEMENTS:
                self.visit_node(node)
            else:  # only statement-level nodes are announced: no need to walk the expressions
                rules = self.dispatch.get(cls)
                if rules and not self.compat:
                    self.report(node, rules)
                self.bind_unwalked(node)
        except RecursionError:
            depth, self.compat, self.fallback = state
            del self.ctx.parents[depth:]
            self.unchecked.append(node.lineno)
        self.dispatch, self.prune = outer, outer_prune

    def visit_node(self, node: ast.AST) -> None:
        cls = node.__class__
        if not self.compat:
            rules = self.dispatch.get(cls)
            if rules:
                self.report(node, rules)
        special = _SPECIAL.get(cls)
        parents = self.ctx.parents
        parents.append(node)
        if special is not None:
            special(self, node)
        else:
            # Inside an expression, a finding's node holds a marker match (a
            # call of ``Variable`` holds ``Variable``): a part that holds none
            # is not walked.  Not below a target such as ``x, y``: it binds.
            fields = FIELDS_OF.get(cls) or node_fields(cls)
            if self.prune and cls in _EXPRESSIONS and (
                cls not in _TARGETS or node.ctx.__class__ is ast.Load
            ):
                self.visit_holding_hits(node, fields)
            else:
                for name in fields:
                    value = getattr(node, name, None)
                    if value.__class__ is list:
                        if name in _STATEMENT_LISTS:
                            self.visit_body(value, old_paths=False)
                        else:
                            for item in value:
                                if item is not None:  # (``Dict.keys`` has holes)
                                    self.visit_node(item)
                    elif value is not None:
                        self.visit_node(value)
        parents.pop()

    def visit_holding_hits(self, node: ast.expr, fields: Tuple[str, ...]) -> None:
        """Visit the parts of an expression that hold a marker match (see
        :meth:`holds_hit`, inlined: the walk's most frequent test)."""
        hits, starts = self.hits
        count = len(hits)
        for name in fields:
            value = getattr(node, name, None)
            for item in value if value.__class__ is list else (value,):
                if item is None:
                    continue
                end = getattr(item, "end_col_offset", None)
                if end is not None:
                    i = bisect_left(hits, starts[item.lineno - 1] + item.col_offset)
                    if i >= count or hits[i] >= starts[item.end_lineno - 1] + end:
                        continue
                self.visit_node(item)

    def holds_hit(self, node: ast.AST) -> bool:
        """Whether a marker matches inside the source of ``node``."""
        end = getattr(node, "end_col_offset", None)
        if end is None:  # a node without a position
            return True
        hits, starts = self.hits
        i = bisect_left(hits, starts[node.lineno - 1] + node.col_offset)
        return i < len(hits) and hits[i] < starts[node.end_lineno - 1] + end

    def dispatch_for(self, mask: int) -> Tuple[Dict[type, List[Rule]], bool]:
        """The rules to call by node type under ``mask``, and whether any of them
        wants a node below the statement level (else the walk can stop there);
        shared by every file whose mask announces the same licences."""
        licences = self.licences
        chosen = []
        rest = mask >> 1 << 1
        while rest:  # (the set bits alone: a statement announces few licences)
            low = rest & -rest
            chosen.append(licences[low.bit_length() - 1])
            rest ^= low
        chosen = tuple(chosen)
        return cache_get(_BY_LICENCES, (mask & 1, chosen), 4096,
                         lambda: _dispatch_for(mask & 1, chosen))

    def visit_field(self, node: ast.AST, name: str) -> None:
        """An expression field of a statement (``value``, ``targets``...)."""
        value = getattr(node, name, None)
        if value.__class__ is list:
            self.visit_exprs(value)
        elif value is not None:
            self.visit_node(value)

    def report(self, node: ast.AST, rules: List[Rule]) -> None:
        ctx = self.ctx
        source = ctx.source
        for rule_ in rules:
            for rep in rule_.check(ctx, node):
                line, col = source.start(rep.node)
                end_line, end_col = source.end(rep.node)
                self.findings.append(
                    Finding(rule_.code, line, col, rep.message, rep.fix, end_line, end_col)
                )

    def bind_unwalked(self, node: ast.stmt) -> None:
        """What a statement whose expressions are not walked binds; an assignment
        may still set a version flag (``OLD = not NEW`` holds no marker)."""
        self.bind_statement(node)
        if node.__class__ is ast.Assign and self.ctx.version_flags:
            self.note_version_flag(node)

    def bind_statement(self, node: ast.stmt) -> None:
        """The bindings of a statement that cannot hold a finding, without its expressions.

        Its expressions hold no marker, so no rule looks at them; but the names
        it binds may shadow an import that a later statement resolves.
        """
        cls = node.__class__
        binder = _BINDERS.get(cls)
        if binder is not None:
            binder(self, node)
        for name in _BODIES.get(cls, ()):
            for child in getattr(node, name):
                if isinstance(child, ast.stmt):
                    self.bind_statement(child)
                else:  # an except handler or a match case
                    if getattr(child, "name", None) and isinstance(child.name, str):
                        self.bind(child.name)
                    for stmt in child.body:
                        self.bind_statement(stmt)

    def bind_targets(self, node: ast.Assign) -> None:
        for target in node.targets:
            if target.__class__ is ast.Name:
                self.bind(target.id)
            else:
                self.bind_target(target)

    def bind_with(self, node: ast.With) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self.bind_target(item.optional_vars)

    def bind_target(self, target: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind_target(elt)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value)

    # -- bindings ---------------------------------------------------------
    def bind(self, name: str, qualname: Optional[str] = None) -> None:
        scope = self.ctx.scope
        if name in scope.globals:
            scope = scope.module()
        if qualname is None:
            binding = _FALLBACK_LOCAL if self.fallback else _LOCAL
        else:
            binding = Binding(qualname, fallback=self.fallback > 0)
        scope.bind(name, binding)

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            self.bind(node.id)

    def visit_Import(self, node: ast.AST) -> None:
        pairs, stars = self.ctx.import_bindings(node)
        for name, qualname in pairs:
            self.bind(name, qualname)
        self.ctx.scope.module().stars.extend(stars)

    def visit_Global(self, node: ast.AST) -> None:
        self.ctx.scope.globals.update(node.names)

    # -- statements with evaluation order that differs from field order ---
    def visit_Assign(self, node: ast.AST) -> None:
        self.visit_field(node, "value")
        self.visit_field(node, "targets")
        self.visit_field(node, "target")
        if node.__class__ is ast.Assign:
            self.note_version_flag(node)

    def note_version_flag(self, node: ast.Assign) -> None:
        """``OLD = torch.__version__ < '0.4'`` at module level: a flag for later tests."""
        if len(node.targets) == 1 and self.ctx.scope.kind == "module":
            target = node.targets[0]
            if target.__class__ is ast.Name:
                polarity = version_polarity(node.value, self.ctx)
                if polarity is not None:
                    self.ctx.version_flags[target.id] = polarity

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit_field(node, "value")
        self.visit_field(node, "target")  # the annotation is never a use

    def visit_For(self, node: ast.AST) -> None:
        self.visit_field(node, "iter")
        self.visit_field(node, "target")
        self.visit_body(node.body)
        self.visit_body(node.orelse)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit_node(node.value)
        self.visit_node(node.target)

    # -- scopes -----------------------------------------------------------
    def visit_arguments_defaults(self, args: ast.arguments) -> None:
        self.visit_exprs(args.defaults)
        self.visit_exprs(args.kw_defaults)

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self.visit_exprs(getattr(node, "decorator_list", ()))
        self.visit_arguments_defaults(node.args)
        if not isinstance(node, ast.Lambda):
            self.bind(node.name)
        ctx = self.ctx
        self.deferred.append(
            (node, ctx.scope, list(ctx.parents), self.compat, self.dispatch, self.prune)
        )

    def visit_function_body(self, node: ast.AST) -> None:
        ctx = self.ctx
        ctx.scope = Scope("function", node, ctx.scope)
        args = node.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            self.bind(arg.arg)
        if args.vararg:
            self.bind(args.vararg.arg)
        if args.kwarg:
            self.bind(args.kwarg.arg)
        ctx.parents.append(node)
        if isinstance(node, ast.Lambda):
            self.visit_node(node.body)
        else:
            self.visit_body(node.body)
        ctx.parents.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.visit_exprs(node.decorator_list)
        self.visit_exprs(node.bases)
        self.visit_exprs(node.keywords)
        ctx = self.ctx
        outer = ctx.scope
        ctx.scope = Scope("class", node, outer)
        try:
            self.visit_body(node.body)
        finally:
            ctx.scope = outer
        self.bind(node.name)

    def visit_comprehension_scope(self, node: ast.AST) -> None:
        ctx = self.ctx
        outer = ctx.scope
        generators = node.generators
        self.visit_node(generators[0].iter)
        ctx.scope = Scope("comprehension", node, outer)
        try:
            for i, gen in enumerate(generators):
                ctx.parents.append(gen)
                if i:
                    self.visit_node(gen.iter)
                self.visit_node(gen.target)
                self.visit_exprs(gen.ifs)
                ctx.parents.pop()
            if isinstance(node, ast.DictComp):
                self.visit_node(node.key)
                self.visit_node(node.value)
            else:
                self.visit_node(node.elt)
        finally:
            ctx.scope = outer

    def visit_arg(self, node: ast.arg) -> None:
        pass  # annotations are never uses; parameters are bound with the body

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.visit_field(node, "type")
        if node.name:
            self.bind(node.name)
        self.visit_body(node.body)

    # -- compatibility code -----------------------------------------------
    def visit_If(self, node: ast.AST) -> None:
        self.visit_node(node.test)
        polarity = version_polarity(node.test, self.ctx)
        for branch, old in ((node.body, polarity is not None and polarity <= 0),
                            (node.orelse, polarity is not None and polarity >= 0)):
            self.compat += old
            if branch.__class__ is list:
                self.visit_body(branch)
            else:  # ``a if test else b``
                self.visit_node(branch)
            self.compat -= old

    def visit_Try(self, node: ast.AST) -> None:
        self.visit_body(node.body)
        modern = self.body_is_modern(node.body)
        for handler in node.handlers:
            imports = _catches(handler, EXC_IMPORT)
            self.fallback += imports
            self.compat += modern
            self.visit_node(handler)
            self.fallback -= imports
            self.compat -= modern
        self.visit_body(node.orelse)
        self.visit_body(node.finalbody)

    def body_is_modern(self, body: List[ast.AST]) -> bool:
        if not body:
            return False
        first, last = body[0].lineno, body[-1].end_lineno or body[-1].lineno
        text = "".join(self.ctx.source.lines[first - 1:last])
        return bool(re.search(MODERN_IN_TRY, text))


#: dispatch tables by the licences a mask announces (see :meth:`Walker.dispatch_for`)
_BY_LICENCES: Dict[tuple, Tuple[Dict[type, List[Rule]], bool]] = {}


def _dispatch_for(core: int, chosen: tuple) -> Tuple[Dict[type, List[Rule]], bool]:
    """:meth:`Walker.dispatch_for` of the licences ``chosen`` (``core``: a core marker)."""
    dispatch: Dict[type, List[Rule]] = {}
    descend = bool(core)  # a core marker: walk it all
    for rule_, types in chosen:
        if rule_ is None:
            continue
        for node_type in types:
            rules = dispatch.setdefault(node_type, [])
            if rule_ not in rules:
                rules.append(rule_)
            descend = descend or not issubclass(node_type, ast.stmt)
    return dispatch, descend


def _catches(handler: ast.ExceptHandler, names: set) -> bool:
    types = handler.type
    if types is None:
        return False
    elts = types.elts if isinstance(types, ast.Tuple) else [types]
    return any(isinstance(t, ast.Name) and t.id in names for t in elts)


_SPECIAL: Dict[type, Callable[[Walker, ast.AST], None]] = {
    ast.Name: Walker.visit_Name,
    ast.Import: Walker.visit_Import,
    ast.ImportFrom: Walker.visit_Import,
    ast.Global: Walker.visit_Global,
    ast.Nonlocal: lambda walker, node: None,
    ast.Assign: Walker.visit_Assign,
    ast.AugAssign: Walker.visit_Assign,
    ast.AnnAssign: Walker.visit_AnnAssign,
    ast.For: Walker.visit_For,
    ast.AsyncFor: Walker.visit_For,
    ast.NamedExpr: Walker.visit_NamedExpr,
    ast.FunctionDef: Walker.visit_FunctionDef,
    ast.AsyncFunctionDef: Walker.visit_FunctionDef,
    ast.Lambda: Walker.visit_FunctionDef,
    ast.ClassDef: Walker.visit_ClassDef,
    ast.ListComp: Walker.visit_comprehension_scope,
    ast.SetComp: Walker.visit_comprehension_scope,
    ast.DictComp: Walker.visit_comprehension_scope,
    ast.GeneratorExp: Walker.visit_comprehension_scope,
    ast.arg: Walker.visit_arg,
    ast.ExceptHandler: Walker.visit_ExceptHandler,
    ast.If: Walker.visit_If,
    ast.IfExp: Walker.visit_If,
    ast.Try: Walker.visit_Try,
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    _SPECIAL[ast.TryStar] = Walker.visit_Try

#: what a statement outside the gate binds, by its class (see ``bind_statement``)
_BINDERS: Dict[type, Callable[[Walker, ast.AST], None]] = {
    ast.Assign: Walker.bind_targets,
    ast.AugAssign: lambda walker, node: walker.bind_target(node.target),
    ast.AnnAssign: lambda walker, node: walker.bind_target(node.target),
    ast.For: lambda walker, node: walker.bind_target(node.target),
    ast.AsyncFor: lambda walker, node: walker.bind_target(node.target),
    ast.Import: Walker.visit_Import,
    ast.ImportFrom: Walker.visit_Import,
    ast.Global: Walker.visit_Global,
    ast.FunctionDef: lambda walker, node: walker.bind(node.name),
    ast.AsyncFunctionDef: lambda walker, node: walker.bind(node.name),
    ast.ClassDef: lambda walker, node: walker.bind(node.name),
    ast.With: Walker.bind_with,
    ast.AsyncWith: Walker.bind_with,
}
#: the statement lists of a compound statement whose bindings count outside it
_BODIES: Dict[type, Tuple[str, ...]] = {
    cls: tuple(f for f in ("body", "orelse", "finalbody", "handlers", "cases") if f in cls._fields)
    for cls in HOLDS_STATEMENTS
    if cls not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
}
#: the statements that bind something outside the gate (the others are skipped)
_BINDS = frozenset(_BINDERS) | frozenset(cls for cls, fields in _BODIES.items() if fields)


_DISPATCHES: Dict[tuple, Dict[int, Tuple[Dict[type, List[Rule]], bool]]] = {}


def _dispatches(licences: List[tuple]) -> Dict[int, Tuple[Dict[type, List[Rule]], bool]]:
    """The walker's dispatch tables by mask (see :meth:`Walker.dispatch_for`),
    shared by the files whose markers announce the same licences."""
    return cache_get(_DISPATCHES, tuple(licences), 16, dict)
