"""Findings, fixes, the rule registry and the single pass over a file's tree.

A rule is a function ``(ctx, node) -> iterable of Report``, registered with
:func:`rule`; its docstring is its documentation.  ``rules.TABLE`` says which
node types it wants and which markers announce its findings, so that a file's
text decides which rule modules are loaded at all (see :class:`Gate`).  The
walker visits every node once, keeps scopes and bindings up to date for name
resolution, skips the branches of compatibility code, and dispatches each node
to the rules registered for its type.
"""
from __future__ import annotations

import ast
import gc
import re
from bisect import bisect_left, bisect_right
from collections import deque
from itertools import accumulate, chain, repeat
from typing import (
    Any, Callable, Deque, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple,
)

from . import _project, _resolve
from ._nodes import HOLDS_STATEMENTS, node_fields
from ._record import record
from ._resolve import Binding, Scope
from ._source import Source, lines_of

SAFE = "safe"
UNSAFE = "unsafe"


class Fix(record("edits safety imports", defaults=((),))):
    """Edits that resolve a finding, with a safety class.

    ``edits`` is a tuple of :class:`Edit`; ``safety`` is ``SAFE`` or ``UNSAFE``;
    ``imports`` names modules the replacement text refers to (``"torch"``,
    ``"torch.nn.init"``): the fixer adds ``import torch`` when it is missing.
    flake8 never applies fixes; the ``torch04`` command does.
    """

    __slots__ = ()


class Report(record("node message fix", defaults=(None,))):
    """What a rule yields: the node the finding is placed at, what to say, and
    an optional :class:`Fix`."""

    __slots__ = ()


class Finding(record("code line col message fix end_line end_col", defaults=(None, 0, 0))):
    """A finding: ``col`` is the 0-based character column, ``message`` has no code."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{self.line}:{self.col + 1}: {self.code} {self.message}"


class Rule(record("code name check node_types markers")):
    """A loaded rule: ``check(ctx, node)`` yields :class:`Report` for nodes of
    ``node_types``; ``markers`` holds ``(regular expression, the node types whose
    findings it may announce)`` pairs (see :class:`Gate`)."""

    __slots__ = ()

    @property
    def doc(self) -> str:
        """The documentation: the docstring of ``check``."""
        import inspect

        return inspect.getdoc(self.check) or ""


class Gate(record("code module node_types markers requires", defaults=((),))):
    """What the walker knows of a rule before it loads the rule's module.

    From ``rules.TABLE``: the ``module`` that defines the rule, the
    ``node_types`` it visits, and its ``markers``, ``(regular expression, the
    node types whose findings it may announce)`` pairs.  One of them must
    match a line of the statement that holds a finding (for a compound
    statement: of its header or body).  Names bound by ``import ... as NAME``
    count as markers of every rule.  A file in which no marker of a rule
    matches is not walked for it (and its module is not loaded), and the
    walker enters only the statements whose lines match a marker of an active
    rule: the others only have their bindings recorded.  Inside a statement,
    a rule sees only the nodes its matching markers announce: a marker written
    ``(regex, *types)`` announces findings at nodes of those types only
    (TV003's ``+`` matters only at an assignment statement, so a statement
    whose only marker is ``+`` is dispatched whole and its expressions are not
    walked); a plain regex announces every type the rule visits.  Markers must
    therefore be complete: a test checks each rule's fixtures with and
    without them.

    ``requires``, when not empty, holds patterns one of which a file must
    match for the rule to run at all: the precondition the rule itself tests
    first (TV107 looks only at files that import torch; TV129 only at files
    that make byte tensors), told to the gate so that the markers of a rule
    that cannot find anything in the file lead the walker nowhere.
    """

    __slots__ = ()


_GATES: Optional[Dict[str, Gate]] = None
#: the rules loaded so far, by code
RULES: Dict[str, Rule] = {}


def gates() -> Dict[str, Gate]:
    """Every rule's :class:`Gate`, by code, read from ``rules.TABLE`` (checked once)."""
    global _GATES
    if _GATES is None:
        from .rules import TABLE

        table = {}  # (built whole before it is shared: a linter may run in threads)
        for code, (module, node_types, markers, *requires) in sorted(TABLE.items()):
            if not (len(code) == 5 and code.startswith("TV") and code[2:].isdigit()):
                raise ValueError(f"bad rule code {code!r}")
            announced = tuple(
                (m, node_types) if isinstance(m, str) else (m[0], tuple(m[1:])) for m in markers
            )
            for _, types in announced:
                if not set(types) <= set(node_types):
                    raise ValueError(f"{code}: a marker announces a type the rule does not visit")
            table[code] = Gate(code, module, tuple(node_types), announced,
                               tuple(requires[0]) if requires else ())
        _GATES = table
    return _GATES


def rule(code: str) -> Callable:
    """Register the function that checks rule ``code``; its node types and
    markers are in ``rules.TABLE``."""
    gate = gates().get(code)
    if gate is None:
        raise ValueError(f"rule code {code!r} is not in rules.TABLE")

    def register(func: Callable) -> Callable:
        if code in RULES:
            raise ValueError(f"rule code {code} registered twice")
        RULES[code] = Rule(code, func.__name__.replace("_", "-"), func, gate.node_types,
                           gate.markers)
        return func

    return register


def load(code: str) -> Rule:
    """The rule ``code``, its module imported on first use."""
    rule_ = RULES.get(code)
    if rule_ is None:
        from importlib import import_module

        import_module(f"{__package__}.rules.{gates()[code].module}")
        rule_ = RULES[code]
    return rule_


def all_rules() -> Dict[str, Rule]:
    """Every rule, by code (loads them all)."""
    return {code: load(code) for code in gates()}


# ---------------------------------------------------------------------------
# compatibility code

#: (regular expressions used only now and then are left to ``re``'s cache:
#: compiling them all at import would cost every editor save)
_MODERN_IN_TRY = (
    r"\.item\(|no_grad|set_grad_enabled|\.detach\(|\.requires_grad_\(|"
    r"torch\.tensor\(|reduction\s*=|isinstance\([^)]*Tensor|\.to\("
)
_EXC_IMPORT = {"ImportError", "ModuleNotFoundError"}


def _mentions_version(node: ast.AST, ctx: "Context") -> bool:
    if not ctx.version_flags and not ctx.has_version:
        return False
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == "__version__":
            if ctx.resolve(sub.value) == "torch":
                return True
        elif isinstance(sub, ast.Name) and sub.id in ctx.version_flags:
            return True
    return False


_OLD_IF_LEFT = {ast.Lt: -1, ast.LtE: -1, ast.Gt: 1, ast.GtE: 1, ast.Eq: -1, ast.NotEq: 1}


def version_polarity(test: ast.AST, ctx: "Context") -> Optional[int]:
    """``1`` if ``test`` is true on modern PyTorch, ``-1`` if true on old PyTorch,
    ``0`` if it tests the version in a way this cannot tell, ``None`` if it does not."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = version_polarity(test.operand, ctx)
        return -inner if inner else inner
    if isinstance(test, ast.Name) and test.id in ctx.version_flags:
        return ctx.version_flags[test.id]
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        if test.func.id == "hasattr" and len(test.args) == 2:
            attr = test.args[1]
            if isinstance(attr, ast.Constant) and attr.value in (
                "item", "no_grad", "set_grad_enabled", "detach", "requires_grad_",
            ):
                return 1
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left_v = _mentions_version(test.left, ctx)
        right_v = _mentions_version(test.comparators[0], ctx)
        sign = _OLD_IF_LEFT.get(type(test.ops[0]))
        if left_v and not right_v and sign:
            return sign
        if right_v and not left_v and sign:
            return sign if type(test.ops[0]) in (ast.Eq, ast.NotEq) else -sign
    if _mentions_version(test, ctx):
        return 0
    return None


# ---------------------------------------------------------------------------
# the per-file context handed to rules


class Context:
    """What a rule may ask about the file and the node it is looking at."""

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str = "",
                 text: Optional[str] = None) -> None:
        self.tree = tree
        self.filename = filename
        self.source = Source(lines)
        #: the lines joined (``check`` has joined them already for the gate)
        self.text = "".join(lines) if text is None else text
        self.scope = Scope("module", tree, None)
        self.parents: List[ast.AST] = []
        #: names assigned a torch-version test, with its polarity
        self.version_flags: Dict[str, int] = {}
        self._flows: Dict[ast.AST, object] = {}
        #: per-file caches a rule may keep, under a key of its own
        self.memo: Dict[str, object] = {}
        #: the file mentions ``__version__`` (else no test can read torch's version)
        self.has_version = "__version__" in self.text
        self.imports_torch = _imports_torch(self.text)
        #: imports may resolve through the project's modules beside the file
        self.project = _project.applies(filename)
        #: the file works with torch tensors: imports torch, or uses
        #: ``Variable``/``.backward(`` (helper modules often import nothing)
        self.uses_torch = (
            self.imports_torch
            or ".backward(" in self.text
            or bool(match_offsets(self.text, r"\bVariable\b"))
        )

    def release(self) -> None:
        """Drop what the rules kept of the file: data-flow facts point back at
        the context, and so would keep the file's tree alive until the cyclic
        garbage collector finds them (see :func:`collector_off`)."""
        self._flows.clear()
        self.memo.clear()

    def project_import(self, node: ast.AST) -> Optional[tuple]:
        """What an import of the project's own modules binds (see ``_project``), or ``None``."""
        if self.project and _project.candidate(node):
            return _project.import_bindings(self.filename, node)
        return None

    @property
    def parent(self) -> Optional[ast.AST]:
        return self.parents[-1] if self.parents else None

    def resolve(self, node: ast.AST) -> Optional[str]:
        """Canonical qualified name of a name or attribute chain, through imports."""
        return _resolve.resolve(node, self.scope)

    def file_parents(self) -> Dict[int, ast.AST]:
        """``id(node) -> parent`` for every node of the file (the walker's
        :attr:`parents` hold only the current node's), made once, when a rule
        first asks; expression contexts and operators are left out."""
        parents = self.memo.get("file parents")
        if parents is None:
            from ._flow import children

            parents = {}
            stack = [self.tree]  # (``children`` alone: ``ast.walk`` would list them twice)
            while stack:
                node = stack.pop()
                below = children(node)
                for child in below:
                    parents[id(child)] = node
                stack += below
            self.memo["file parents"] = parents
        return parents  # type: ignore[return-value]

    def flow(self):
        """Data-flow facts of the innermost function (or module) around the node."""
        from ._flow import Flow

        scope = self.scope.function() or self.scope.module()
        facts = self._flows.get(scope.node)
        if facts is None:
            facts = self._flows[scope.node] = Flow(scope.node, self)
        return facts


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


class _Walker:
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
            prune = self.prune and cls in _EXPRESSIONS and (
                cls not in _TARGETS or node.ctx.__class__ is ast.Load
            )
            for name in node_fields(cls):
                value = getattr(node, name, None)
                if value.__class__ is list:
                    if name in _STATEMENT_LISTS:
                        self.visit_body(value, old_paths=False)
                    else:
                        for item in value:
                            if item is not None and (not prune or self.holds_hit(item)):
                                self.visit_node(item)  # (``Dict.keys`` has holes)
                elif value is not None and (not prune or self.holds_hit(value)):
                    self.visit_node(value)
        parents.pop()

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
        wants a node below the statement level (else the walk can stop there)."""
        dispatch: Dict[type, List[Rule]] = {}
        descend = bool(mask & 1)  # a core marker: walk it all
        for bit, (rule_, types) in enumerate(self.licences):
            if rule_ is None or not mask >> bit & 1:
                continue
            for node_type in types:
                rules = dispatch.setdefault(node_type, [])
                if rule_ not in rules:
                    rules.append(rule_)
                descend = descend or not issubclass(node_type, ast.stmt)
        return dispatch, descend

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
        project = self.ctx.project_import(node)
        if project is not None:  # names that come from the project's own modules
            pairs, stars = project
            for name, qualname in pairs:
                self.bind(name, qualname)
            self.ctx.scope.module().stars.extend(stars)
            return
        for name, qualname in _resolve.import_bindings(node):
            self.bind(name, qualname)
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if any(alias.name == "*" for alias in node.names):
                self.ctx.scope.module().stars.append(node.module)

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
            imports = _catches(handler, _EXC_IMPORT)
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
        return bool(re.search(_MODERN_IN_TRY, text))


def _catches(handler: ast.ExceptHandler, names: set) -> bool:
    types = handler.type
    if types is None:
        return False
    elts = types.elts if isinstance(types, ast.Tuple) else [types]
    return any(isinstance(t, ast.Name) and t.id in names for t in elts)


_SPECIAL: Dict[type, Callable[[_Walker, ast.AST], None]] = {
    ast.Name: _Walker.visit_Name,
    ast.Import: _Walker.visit_Import,
    ast.ImportFrom: _Walker.visit_Import,
    ast.Global: _Walker.visit_Global,
    ast.Nonlocal: lambda walker, node: None,
    ast.Assign: _Walker.visit_Assign,
    ast.AugAssign: _Walker.visit_Assign,
    ast.AnnAssign: _Walker.visit_AnnAssign,
    ast.For: _Walker.visit_For,
    ast.AsyncFor: _Walker.visit_For,
    ast.NamedExpr: _Walker.visit_NamedExpr,
    ast.FunctionDef: _Walker.visit_FunctionDef,
    ast.AsyncFunctionDef: _Walker.visit_FunctionDef,
    ast.Lambda: _Walker.visit_FunctionDef,
    ast.ClassDef: _Walker.visit_ClassDef,
    ast.ListComp: _Walker.visit_comprehension_scope,
    ast.SetComp: _Walker.visit_comprehension_scope,
    ast.DictComp: _Walker.visit_comprehension_scope,
    ast.GeneratorExp: _Walker.visit_comprehension_scope,
    ast.arg: _Walker.visit_arg,
    ast.ExceptHandler: _Walker.visit_ExceptHandler,
    ast.If: _Walker.visit_If,
    ast.IfExp: _Walker.visit_If,
    ast.Try: _Walker.visit_Try,
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    _SPECIAL[ast.TryStar] = _Walker.visit_Try

#: what a statement outside the gate binds, by its class (see ``bind_statement``)
_BINDERS: Dict[type, Callable[[_Walker, ast.AST], None]] = {
    ast.Assign: _Walker.bind_targets,
    ast.AugAssign: lambda walker, node: walker.bind_target(node.target),
    ast.AnnAssign: lambda walker, node: walker.bind_target(node.target),
    ast.For: lambda walker, node: walker.bind_target(node.target),
    ast.AsyncFor: lambda walker, node: walker.bind_target(node.target),
    ast.Import: _Walker.visit_Import,
    ast.ImportFrom: _Walker.visit_Import,
    ast.Global: _Walker.visit_Global,
    ast.FunctionDef: lambda walker, node: walker.bind(node.name),
    ast.AsyncFunctionDef: lambda walker, node: walker.bind(node.name),
    ast.ClassDef: lambda walker, node: walker.bind(node.name),
    ast.With: _Walker.bind_with,
    ast.AsyncWith: _Walker.bind_with,
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


def _kept(cache: dict, key: object, most: int, make: Callable[[], Any]) -> Any:
    """``cache[key]``, made by ``make()`` when it is missing; a cache of more than
    ``most`` entries is emptied first (its keys come from the files checked)."""
    found = cache.get(key)
    if found is None:
        if len(cache) > most:
            cache.clear()
        found = cache[key] = make()
    return found


def _dispatches(licences: List[tuple]) -> Dict[int, Tuple[Dict[type, List[Rule]], bool]]:
    """The walker's dispatch tables by mask (see :meth:`_Walker.dispatch_for`),
    shared by the files whose markers announce the same licences."""
    return _kept(_DISPATCHES, tuple(licences), 16, dict)


#: what the walker itself must see wherever it is, in full: tests of the torch
#: version (``torch.__version__``, ``hasattr(torch, 'no_grad')``, also when
#: assigned to a flag) and ``:=`` (it binds in the enclosing scope)
_CORE_MARKERS = ("__version__", r"\bhasattr\b", ":=")
_FROM_IMPORT = re.compile(r"from[ \t]+([\w.]+)[ \t]+import\b(\([^)]*\)|.*)")
_ALIAS = re.compile(r"(\w+)\s+as\s+([A-Za-z_]\w*)")


def at_line_start(text: str, start: int) -> bool:
    """Whether only blanks and tabs come before ``start`` on its line."""
    return not text[text.rfind("\n", 0, start) + 1:start].strip(" \t")


def _aliases(text: str) -> Dict[str, Set[str]]:
    """Names bound by ``from M import NAME as ALIAS``, each with what it stands
    for (``M.NAME``; a name may be bound more than once).

    A rule's markers name what it matches (``Variable``, ``Sequential``), and
    every other spelling keeps that name in view (``ag.Variable``,
    ``nn.Sequential``) except such an alias, which may then be used anywhere.
    """
    aliases: Dict[str, Set[str]] = {}
    start = text.find("from")
    while start != -1:
        match = _FROM_IMPORT.match(text, start) if at_line_start(text, start) else None
        if match is not None:
            names = match.group(2)
            if "as" in names:
                module = match.group(1)
                for name, alias in _ALIAS.findall(names):
                    aliases.setdefault(alias, set()).add(f"{module}.{name}")
            start = text.find("from", match.end())
        else:
            start = text.find("from", start + 1)
    return aliases


def _imports_torch(text: str) -> bool:
    """Whether a line starts with ``import torch`` or ``from torch``."""
    for match in re.finditer(r"torch\b", text):
        start = match.start()
        before = text[text.rfind("\n", 0, start) + 1:start]  # ``import ``, `` from ``
        if before[-1:].isspace() and before.split() in (["import"], ["from"]):
            return True
    return False


#: A leading zero-width test defeats the regex engine's literal-prefix scan
#: (about 30x slower on real files): for a pattern that starts with one of
#: these and then a word character, the search tests the character before
#: each match itself.
_LEADING_TESTS = ((r"\b", ""), (r"(?<![\w.])", "."))
#: an attribute access before a word: ``.data``, ``. data``, ``.\<newline>data``
_MEMBER = r"\.[\s\\]*"


class _Search:
    """How to find one regular expression fast.

    ``str.find`` scans about three times faster than the regex engine, so a
    pattern that is a plain string (``Variable``, ``\\+``, ``:=``), or starts
    with a word (``append\\b``, ``type[\\s\\\\]*\\(``), or with an attribute access
    and a word (``\\.[\\s\\\\]*data\\b``) is found by searching for that string or
    word; the characters around it are tested by hand (a leading ``\\b`` or
    ``(?<![\\w.])``, the ``.`` before, a trailing ``\\b``) and a regex checks
    only what else must follow.  A pattern that starts with a group of words
    (``\\b(?:get|pop|dumps?)\\b``, ``(?i:loss|crit)``) is found by searching
    for each word's leading letters and matching the regex only there
    (:func:`_alternatives`).  Any other pattern is searched with the regex.
    """

    __slots__ = ("literal", "not_after", "member", "word_ends", "after", "regex", "words",
                 "fold", "keys", "exact")

    def __init__(self, pattern: str) -> None:
        #: the whole words one of which every match is, when they can be told
        self.exact: Optional[FrozenSet[bytes]] = _whole_words(pattern)
        self.not_after: Optional[str] = None  # characters that may not come before
        self.member = False  # the literal must follow ``.`` (and blanks); report the ``.``
        for test, also in _LEADING_TESTS:
            if pattern.startswith(test) and pattern[len(test):][:1].isidentifier():
                pattern, self.not_after = pattern[len(test):], also
        if pattern.startswith(_MEMBER) and pattern[len(_MEMBER):][:1].isidentifier():
            pattern, self.member = pattern[len(_MEMBER):], True
        plain = re.sub(r"\\(.)", r"\1", pattern)
        if re.escape(plain) == pattern:  # a plain string
            self.literal, rest = plain, ""
        else:
            length = 0
            while length < len(pattern) and (pattern[length].isalnum() or pattern[length] == "_"):
                length += 1
            if length and pattern[length:length + 1] in ("*", "+", "?", "{"):
                length -= 1  # the word's last letter repeats
            self.literal = pattern[:length] if "|" not in pattern else ""
            rest = pattern[len(self.literal):]
        self.word_ends = bool(self.literal) and rest == r"\b"  # tested by hand
        if self.word_ends:
            rest = ""
        #: the regex for what must follow the literal, or for the whole pattern
        self.after = re.compile(rest).match if self.literal and rest else None
        self.regex = None if self.literal else re.compile(pattern)
        #: the literal prefixes every match starts with, for a group of words
        self.words: Optional[Tuple[str, ...]] = None
        self.fold = False  # (the group ignores case: search the text lowered)
        if self.regex is not None:
            alternatives = _alternatives(pattern)
            if alternatives is not None:
                self.fold, self.words = alternatives
        #: words of which every match holds one (see :class:`Words`), or ``None``
        self.keys: Optional[Tuple[bytes, ...]] = None
        leads = self.words if self.regex is not None else (self.literal,)
        if leads and all(_WORDLIKE.fullmatch(lead) for lead in leads):
            self.keys = tuple(lead.encode("ascii") for lead in leads)

    def absent(self, words: "Words") -> bool:
        """Whether the file whose :class:`Words` these are cannot match."""
        if self.exact is not None and words.ascii:
            return words.distinct.isdisjoint(self.exact)
        keys = self.keys
        if keys is None:
            return False
        found = words.lowered() if self.fold else words.joined
        for key in keys:
            if key in found:
                return False
        return True

    def offsets(self, text: str) -> List[int]:
        if self.regex is not None:
            if self.words is None or (self.fold and not text.isascii()):
                return [m.start() for m in self.regex.finditer(text)]
            # every match starts where one of the words does: match only there
            # (and, as ``finditer``, take the leftmost match after the last one)
            haystack = text.lower() if self.fold else text
            starts = set()
            for word in self.words:
                start = haystack.find(word)
                while start != -1:
                    starts.add(start)
                    start = haystack.find(word, start + 1)
            match = self.regex.match
            found = []
            last = 0
            for start in sorted(starts):
                if start >= last:
                    m = match(text, start)
                    if m is not None:
                        found.append(start)
                        last = max(m.end(), start + 1)
            return found
        literal, not_after, after = self.literal, self.not_after, self.after
        found = []
        start = text.find(literal)
        while start != -1:
            end = start + len(literal)
            at = start
            if not_after is not None and start:
                before = text[start - 1]
                if before.isalnum() or before == "_" or before in not_after:
                    at = -1
            if self.member and at != -1:
                while at and (text[at - 1].isspace() or text[at - 1] == "\\"):
                    at -= 1
                at = at - 1 if at and text[at - 1] == "." else -1
            if self.word_ends and at != -1 and end < len(text):
                if text[end].isalnum() or text[end] == "_":
                    at = -1
            if after is not None and at != -1:
                rest = after(text, end)
                if rest is None:
                    at = -1
                else:
                    end = max(rest.end(), end)
            if at != -1:
                found.append(at)
                start = text.find(literal, end)
            else:
                start = text.find(literal, start + 1)
        return found


_SEARCHES: Dict[str, _Search] = {}
_WORDLIKE = re.compile(r"[A-Za-z0-9_]+")
#: bytes that make up words (as ``\\w``, and every byte of a non-ASCII
#: character, so that a word is never split): the others become blanks
_WORD_BYTES = bytes(
    c if c >= 128 or chr(c).isalnum() or c == 95 else 32 for c in range(256)
)


#: the most bytes :class:`Words` splits at once
_WORDS_AT_ONCE = 1 << 15


class Words:
    """The distinct words of a text, joined by blanks: one pass over the text
    (about the cost of one ``str.find``) and a split, after which asking
    whether a word occurs costs next to nothing.

    Most markers are words (``Variable``, ``retain_variables``), or start with
    one (``append\\b``, ``.data``), and most files hold none of most of them:
    a marker whose words are not among the file's (in any word: ``Variable``
    in ``Variables``) cannot match, and its search of the text is skipped.
    """

    __slots__ = ("distinct", "joined", "ascii", "_lowered")

    def __init__(self, text: str) -> None:
        data = text.encode("utf-8", "surrogatepass").translate(_WORD_BYTES)
        if len(data) <= _WORDS_AT_ONCE:
            self.distinct = frozenset(data.split())
        else:  # (a list of every word of a 300 kB generated module is 2 MB: in pieces)
            distinct: Set[bytes] = set()
            start = 0
            while start < len(data):
                end = data.find(b" ", start + _WORDS_AT_ONCE)  # (no word crosses a blank)
                if end == -1:
                    end = len(data)
                distinct.update(data[start:end].split())
                start = end
            self.distinct = frozenset(distinct)
        self.joined = b" ".join(self.distinct)
        #: (a word of a pattern bounded by ``\\b`` is one of :attr:`distinct`
        #: only in ASCII text: elsewhere a blank may not be an ASCII one)
        self.ascii = text.isascii()
        self._lowered: Optional[bytes] = None

    def lowered(self) -> bytes:
        if self._lowered is None:
            self._lowered = self.joined.lower()
        return self._lowered


_GROUP = re.compile(r"(\\b)?\(\?(i)?:([\w|?]+)\)")


def _alternatives(pattern: str) -> Optional[Tuple[bool, Tuple[str, ...]]]:
    """For a pattern that starts with a group of words, ``\\b(?:a|bc?)...`` or
    ``(?i:a|b)...``: whether it ignores case, and the letters each match starts
    with (``a``, ``b``); ``None`` for any other pattern."""
    group = _GROUP.match(pattern)
    if group is None or group.group(2) and re.search(r"\(\?[a-zA-Z]", pattern[group.end():]):
        return None
    words = []
    for word in group.group(3).split("|"):
        lead = re.match(r"\w*", word).group()
        if len(lead) < len(word):  # ``dumps?``: the letter before ``?`` may be absent
            if word[len(lead):] != "?":
                return None
            lead = lead[:-1]
        if not lead:
            return None
        words.append(lead.lower() if group.group(2) else lead)
    # (``add`` finds where ``addcmul`` starts too)
    words = [w for w in set(words) if not any(w != v and w.startswith(v) for v in words)]
    return bool(group.group(2)), tuple(sorted(words))


#: how a pattern may start so that its first word is a whole word
_WORD_STARTS = (r"\b", r"(?<![\w.])", _MEMBER)
#: how it may end after its last word: ``\b``, or blanks and a call
_WORD_ENDS = (r"\b", r"[\s\\]*\(")


def _whole_words(pattern: str) -> Optional[FrozenSet[bytes]]:
    """The words one of which every match of ``pattern`` is, whole (``\\bload\\b``:
    ``load``; ``\\b(?:train|test)_(?:data|labels)\\b``: four words); ``None``
    when the pattern is not so made."""
    start = next((s for s in _WORD_STARTS if pattern.startswith(s)), None)
    end = next((e for e in _WORD_ENDS if pattern.endswith(e)), None)
    if start is None or end is None:
        return None
    words = _expand(pattern[len(start):len(pattern) - len(end)])
    if not words or "" in words:
        return None
    return frozenset(w.encode("ascii") for w in words)


def _expand(core: str) -> Optional[List[str]]:
    """Every string a pattern made of word characters, ``(?:a|b)`` groups and
    ``?`` can match, or ``None`` (another construct, or too many)."""
    out = [""]
    i = 0
    while i < len(core):
        if core.startswith("(?:", i):
            close = core.find(")", i)
            inner = core[i + 3:close]
            if close == -1 or "(" in inner:
                return None
            alternatives: List[str] = []
            for alternative in inner.split("|"):
                expanded = _expand(alternative)
                if expanded is None:
                    return None
                alternatives.extend(expanded)
            i = close + 1
        elif core[i].isascii() and (core[i].isalnum() or core[i] == "_"):
            alternatives = [core[i]]
            i += 1
        else:
            return None
        if core[i:i + 1] == "?":
            alternatives.append("")
            i += 1
        out = [a + b for a in out for b in alternatives]
        if len(out) > 256:
            return None
    return out


def _search(pattern: str) -> _Search:
    # (aliases are names from the code: the cache is bounded)
    return _kept(_SEARCHES, pattern, 2000, lambda: _Search(pattern))


def match_offsets(text: str, pattern: str, words: Optional[Words] = None) -> List[int]:
    """Offsets where ``pattern`` matches ``text`` (patterns that cannot overlap
    themselves); ``words``, the text's :class:`Words`, may rule a search out."""
    search = _search(pattern)
    if words is not None and search.absent(words):
        return []
    return search.offsets(text)


#: the licence of the core markers: walk the statement whole, dispatch nothing more
_WALK = (None, ())


class _Plan:
    """The markers of a selection of rules, arranged to search a file for them fast.

    Each distinct pattern is searched once per file (``Variable`` is a marker
    of two rules), and only when the file's :class:`Words` allow a match: a
    pattern of whole words (``\\bload\\b``) by their presence among the
    file's words (one set intersection for all such patterns), a pattern that
    starts with a word (``Variable``, ``append\\b``) by that word's presence in
    any of them; the others (``\\[``, ``\\+``) are always searched.
    """

    __slots__ = ("searches", "by_word", "worded", "always", "markers", "requires")

    def __init__(self, selected: Sequence[Gate]) -> None:
        index: Dict[str, int] = {}
        #: the distinct patterns' searches, by index
        self.searches: List[_Search] = []
        #: per rule (in the order selected): ``(pattern index, node types)`` pairs
        self.markers: List[List[Tuple[int, tuple]]] = []
        #: per rule: the indices of the patterns one of which the file must match
        self.requires: List[Tuple[int, ...]] = []

        def number(pattern: str) -> int:
            if pattern not in index:
                index[pattern] = len(self.searches)
                self.searches.append(_search(pattern))
            return index[pattern]

        for gate in selected:
            self.markers.append([(number(pattern), types) for pattern, types in gate.markers])
            self.requires.append(tuple(number(pattern) for pattern in gate.requires))
        #: the patterns of whole words, by word; the patterns whose words rule
        #: them in or out (see :meth:`_Search.absent`); the others
        self.by_word: Dict[bytes, List[int]] = {}
        self.worded: List[Tuple[int, _Search]] = []
        self.always: List[int] = []
        for i, search in enumerate(self.searches):
            if search.exact is not None:
                for word in search.exact:
                    self.by_word.setdefault(word, []).append(i)
            if search.keys is not None or search.exact is not None:
                self.worded.append((i, search))
            else:
                self.always.append(i)

    def search(self, text: str, words: "Words") -> Dict[int, List[int]]:
        """The offsets of every pattern that matches ``text``, by index."""
        candidates = set(self.always)
        if words.ascii:  # whole words: one intersection for them all
            for word in words.distinct.intersection(self.by_word):
                candidates.update(self.by_word[word])
            candidates.update(
                i for i, search in self.worded
                if search.exact is None and not search.absent(words)
            )
        else:  # (whole words cannot be told apart in it: see ``Words.ascii``)
            candidates.update(i for i, search in self.worded if not search.absent(words))
        found = {}
        searches = self.searches
        for i in candidates:
            offsets = searches[i].offsets(text)
            if offsets:
                found[i] = offsets
        return found


_PLANS: Dict[Tuple[str, ...], _Plan] = {}


def _plan(selected: Sequence[Gate]) -> _Plan:
    return _kept(_PLANS, tuple(gate.code for gate in selected), 64, lambda: _Plan(selected))


def _gate(selected: List[Gate], lines: Sequence[str], text: str):
    """What the markers announce, line by line.

    Returns the licences -- ``(gate, node types)`` pairs, bit ``i`` of a mask
    standing for ``licences[i]`` --, a map from each line that matches a
    marker to the mask of what it announces, and where the matches are: their
    sorted offsets in the text and the offset each line starts at, counted in
    UTF-8 bytes (as a node's columns are); ``None`` when no rule's marker
    matches at all.
    """
    plan = _plan(selected)
    words = Words(text)
    found = plan.search(text, words)
    if not found:
        return None
    licences: List[tuple] = [_WALK]
    announced: List[Tuple[int, List[int]]] = []
    full = 0  # every active rule, all its node types
    rules: List[Tuple[int, List[Tuple[int, tuple]]]] = []  # their bits and markers
    for gate, markers, requires in zip(selected, plan.markers, plan.requires):
        if not any(i in found for i, _ in markers):
            continue
        if requires and not any(i in found for i in requires):
            continue
        rule_bit = 1 << len(licences)
        full |= rule_bit
        rules.append((rule_bit, markers))
        licences.append((gate, gate.node_types))
        for i, types in markers:
            offsets = found.get(i)
            if offsets:
                bit = rule_bit
                if types != gate.node_types:
                    bit = 1 << len(licences)
                    licences.append((gate, types))
                announced.append((bit, offsets))
    if not full:
        return None
    for marker in _CORE_MARKERS:
        announced.append((1, match_offsets(text, marker, words)))
    aliases = _aliases(text)
    if aliases:
        # an alias is a spelling of what it stands for: its uses are announced
        # for the rules whose markers match that (``Seq`` for ``Sequential``
        # of ``from torch.nn import Sequential as Seq``, ``ce`` for ``ffi``
        # of ``from torch.utils.ffi import create_extension as ce``)
        searches = plan.searches
        for alias, sources in aliases.items():
            bits = 0
            for rule_bit, markers in rules:
                if any(searches[i].offsets(source) for i, _ in markers for source in sources):
                    bits |= rule_bit
            if bits:
                announced.append((bits, match_offsets(text, rf"\b{alias}\b", words)))
    ends = [0, *accumulate(map(len, lines))]  # the offset each line starts at
    masks: Dict[int, int] = {}
    for bit, offsets in announced:
        if offsets:
            for line in set(map(bisect_right, repeat(ends, len(offsets)), offsets)):
                masks[line] = masks.get(line, 0) | bit
    hits = sorted(chain.from_iterable(offsets for _, offsets in announced))
    if not text.isascii():  # a node's columns count bytes: so must the positions
        ends, hits = _byte_positions(lines, ends, hits)
    return licences, masks, (hits, ends)


def _byte_positions(lines: Sequence[str], ends: List[int], hits: List[int]):
    """The offsets each line starts at and ``hits`` (sorted offsets), counted in
    UTF-8 bytes rather than characters."""
    byte_ends = [0, *accumulate(len(line.encode("utf-8", "surrogatepass")) for line in lines)]
    converted = []
    for offset in hits:
        line = bisect_right(ends, offset)
        col = offset - ends[line - 1]
        if line <= len(lines) and not lines[line - 1].isascii():
            col = len(lines[line - 1][:col].encode("utf-8", "surrogatepass"))
        converted.append(byte_ends[line - 1] + col)
    return byte_ends, converted


def collector_off():
    """A context in which Python's cyclic garbage collector does not run.

    A tree is hundreds of thousands of objects, none in a cycle, alive while
    its file is checked: each collection meanwhile scans them again (about
    10% of the check, and of the parse).  Collected after the file instead, a
    file's tree has already been freed and costs nothing.  The collector's
    state is restored, also for the host process (flake8, an editor).
    """
    return _CollectorOff()


class _CollectorOff:
    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        if self.enabled:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            gc.enable()


def _without_collector(func: Callable) -> Callable:
    """``func``, run with the collector off (see :func:`collector_off`)."""
    from functools import wraps

    @wraps(func)
    def run(*args, **kwargs):
        with collector_off():
            return func(*args, **kwargs)

    return run


@_without_collector
def check(
    tree: ast.AST,
    lines: Sequence[str],
    filename: str = "",
    codes: Optional[Iterable[str]] = None,
    prefilter: bool = True,
    unchecked: Optional[List[int]] = None,
) -> List[Finding]:
    """Findings for one parsed file, sorted by position.

    ``codes`` limits the rules run (all when ``None``); ``prefilter=False``
    runs every selected rule even on files that lack its markers.  The lines
    of statements that could not be checked to the end (an expression nested
    deeper than the recursion limit allows; ``0`` when the line is unknown)
    are appended to ``unchecked``.  The cyclic garbage collector is off
    meanwhile (see :func:`collector_off`).
    """
    known = gates()
    selected = [known[c] for c in (codes if codes is not None else known) if c in known]
    if not selected:
        return []
    text = "".join(lines)
    if prefilter:
        gate = _gate(selected, lines, text)
        if gate is None:
            return []
        licences, masks, hits = gate
    else:
        licences = [_WALK] + [(g, g.node_types) for g in selected]
        masks = hits = None
    # only now are the modules of the rules that may find something loaded
    licences[1:] = [(load(g.code), types) for g, types in licences[1:]]
    ctx = Context(tree, lines, filename, text)
    walker = _Walker(ctx, licences, masks, hits)
    try:
        walker.run()
    except RecursionError:  # deep outside any statement's walk: report what was found
        walker.unchecked.append(0)
    finally:
        ctx.release()
    if unchecked is not None:
        unchecked.extend(sorted(set(walker.unchecked)))
    findings = walker.findings
    findings.sort(key=lambda f: (f.line, f.col, f.code))
    return _dedupe(findings)


def _dedupe(findings: List[Finding]) -> List[Finding]:
    """One finding per site per code."""
    seen = set()
    out = []
    for finding in findings:
        key = (finding.code, finding.line, finding.col)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def check_source(source: str, filename: str = "", codes=None) -> List[Finding]:
    """Parse ``source`` and check it (raises ``SyntaxError`` when it does not parse)."""
    tree = ast.parse(source, filename or "<unknown>")
    return check(tree, lines_of(source), filename, codes)
