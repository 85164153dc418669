"""TV005: ``type()`` comparisons with legacy tensor types, always false since PyTorch 0.4."""
from __future__ import annotations

import ast
from collections import Counter
from typing import Iterator, List, Optional, Tuple

from ..analysis.canonical import LEGACY_TENSOR_TYPES, VARIABLE
from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.flow import Flow
from ..analysis.nodes import body_nodes
from ..analysis.registry import rule
from ..analysis.resolve import Scope, resolvable_names
from ..source.record import record
from ..source.text import Edit, has_comment, needs_parens, one_line, shorten

#: what ``type(t).__name__`` was for the legacy classes under PyTorch 0.3
LEGACY_NAMES = frozenset(q.rsplit(".", 1)[1] for q in LEGACY_TENSOR_TYPES) | {"Variable"}

_NEGATED = (ast.NotEq, ast.IsNot, ast.NotIn)
_EQUALITY = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
_MEMBERSHIP = (ast.In, ast.NotIn)
_CONTAINERS = (ast.Tuple, ast.List, ast.Set, ast.Dict)

#: unittest assertions on their first two arguments: True when they assert
#: equality or membership (-> ``assertIsInstance``), False for the negations
_ASSERTIONS = {
    "assertEqual": True, "assertEquals": True, "failUnlessEqual": True, "assertIs": True,
    "assertIn": True, "assertNotEqual": False, "assertNotEquals": False,
    "failIfEqual": False, "assertIsNot": False, "assertNotIn": False,
}
_MEMBERSHIP_ASSERTIONS = ("assertIn", "assertNotIn")

#: parents in which ``not ...`` can replace a comparison without parentheses
_LOOSE_FOR_NOT = (
    ast.BoolOp, ast.IfExp, ast.If, ast.While, ast.Assert, ast.Return, ast.Assign,
    ast.AnnAssign, ast.AugAssign, ast.Expr, ast.keyword, ast.Call, ast.comprehension,
    ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Lambda, ast.NamedExpr, ast.Yield,
    ast.FormattedValue,
)

_WHY = "since PyTorch 0.4 (type(t) is Tensor)"


@rule("TV005")
def type_comparison(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``type(x) == torch.FloatTensor`` and other exact-type tests of tensors.

    ## What it does
    Flags ``type(E)`` or ``E.__class__`` compared by ``==``, ``!=``, ``is``,
    ``is not`` (either operand order), ``in`` or ``not in`` with a legacy tensor
    type -- ``torch[.cuda][.sparse].<Dtype>Tensor`` -- or torch's ``Variable``,
    alone or in a tuple, list, set or dict literal (or a name assigned one
    once, in the same function or at module level), resolved through imports
    (``from torch.cuda import FloatTensor`` counts).  Also flags
    ``type(E).__name__`` compared with such a class's name (``'FloatTensor'``;
    ``'Variable'`` only in files that import torch), ``type(E)`` looked up in a
    dict keyed by legacy types (``TYPES[type(x)]``, ``TYPES.get(type(x))``), and
    the unittest spellings ``self.assertEqual(type(x), torch.FloatTensor)``,
    ``assertIs``, ``assertNotEqual``, ``assertIsNot``, ``assertIn``,
    ``assertNotIn``.  Each comparison of an ``or`` chain is its own finding.
    ``type(x) == torch.Tensor``, ``type(p) == nn.Parameter``,
    ``x.type() == 'torch.FloatTensor'``, ``isinstance(...)``, a shadowed
    ``type`` and names that are not torch's are left alone.

    ## Why is this bad?
    Since PyTorch 0.4 every tensor's type is ``torch.Tensor``, whatever its dtype
    or device, and ``Variable`` is no longer a class of its own:
    ``type(t) == torch.FloatTensor`` and ``type(t) == Variable`` are silently
    always false (``!=`` always true), ``type(t).__name__`` is ``'Tensor'``, and
    assertions on them always fail.  Code sends every tensor down the wrong
    branch without a word.  ``isinstance(t, torch.FloatTensor)`` still checks
    dtype and device, and ``t.type()`` still returns ``'torch.FloatTensor'``.

    ## Example
    ```python
    if type(h) == Variable:
        ...
    if type(x) in (torch.FloatTensor, torch.DoubleTensor):
        ...
    self.assertEqual(type(out.data), torch.FloatTensor)
    ```

    Use instead:
    ```python
    if isinstance(h, torch.Tensor):
        ...
    if isinstance(x, (torch.FloatTensor, torch.DoubleTensor)):
        ...
    self.assertIsInstance(out.data, torch.FloatTensor)
    ```

    ## Fix safety
    Every fix is *unsafe*: it changes which branch runs, on purpose.
    ``type(x) == T`` becomes ``isinstance(x, T)``; ``!=``, ``is not`` and
    ``not in`` become ``not isinstance(...)``; a list or set of types becomes a
    tuple; ``Variable`` becomes ``torch.Tensor`` (true for every tensor, as
    ``Variable`` was for every 0.3 Variable); the assertions become
    ``assertIsInstance`` / ``assertNotIsInstance``.  ``isinstance`` also accepts
    subclasses such as ``nn.Parameter``.  ``type(x).__name__ == 'FloatTensor'``
    gets no automatic fix: the suggested ``x.type().endswith('.FloatTensor')``
    raises on objects that are not tensors, which the name test accepted
    (``== 'Variable'`` becomes ``isinstance(x, torch.Tensor)``).  Dict lookups
    (key the dict on ``x.type()``), chains with more than one operator, a list
    or set held in a name, and comparisons whose text holds a comment get no
    automatic fix.
    """
    if isinstance(node, ast.Compare):
        yield from _compare(ctx, node)
    elif isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _ASSERTIONS:
            yield from _assertion(ctx, node)
        elif _is_dict_get(node):
            yield from _lookup(ctx, node, func.value, node.args[0])
    elif isinstance(node.ctx, ast.Load):
        yield from _lookup(ctx, node, node.value, node.slice)


# ---------------------------------------------------------------------------
# the two sides of a comparison


def _type_call_argument(node: ast.AST) -> Optional[ast.AST]:
    """``E`` when ``node`` is shaped ``type(E)`` or ``E.__class__``."""
    if isinstance(node, ast.Attribute) and node.attr == "__class__":
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "type"
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    ):
        return node.args[0]
    return None


def _is_real_type_call(ctx: Context, node: ast.AST) -> bool:
    """``E.__class__``, or ``type(E)`` where ``type`` is the builtin."""
    return isinstance(node, ast.Attribute) or _unbound(ctx, "type", stop_at_module=False)


def _unbound(ctx: Context, name: str, stop_at_module: bool) -> bool:
    """Whether no scope around the node binds ``name`` (the module's too, unless told)."""
    scope: Optional[Scope] = ctx.scope
    innermost = True
    while scope is not None and not (stop_at_module and scope.kind == "module"):
        if (innermost or scope.kind != "class") and name in scope.bindings:
            return False
        innermost = False
        scope = scope.parent
    return binding_count(ctx.flow().node, name, ctx) == 0


def binding_count(scope_node: ast.AST, name: str, ctx: Optional[Context] = None) -> int:
    """How many times the body of ``scope_node`` binds ``name``; 2 for a parameter,
    ``global`` or ``nonlocal`` (bound elsewhere, so never "once").

    With ``ctx``, the counts of every name are taken in one walk of the scope
    and kept for the file: a thousand type tests in one function walk it once.
    """
    if ctx is None:
        return _binding_counts(scope_node)[name]
    cache = ctx.memo.setdefault("binding_counts", {})
    entry = cache.get(id(scope_node))
    if entry is None or entry[0] is not scope_node:
        entry = cache[id(scope_node)] = (scope_node, _binding_counts(scope_node))
    return entry[1][name]


def _binding_counts(scope_node: ast.AST) -> Counter:
    """How many times the body of ``scope_node`` binds each name (see :func:`binding_count`)."""
    count: Counter = Counter()
    comprehension_targets = set()  # bound in the comprehension's own scope
    for node in body_nodes(scope_node):
        if isinstance(node, ast.comprehension):
            comprehension_targets.update(map(id, ast.walk(node.target)))
        elif isinstance(node, ast.Name):
            if id(node) not in comprehension_targets and not isinstance(node.ctx, ast.Load):
                count[node.id] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                count[a.asname or a.name.split(".")[0]] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            count[node.name] += 1
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                count[node.name] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                count[name] += 2
    args = getattr(scope_node, "args", None)
    if args is not None:
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        for name in {a.arg for a in params if a is not None}:
            count[name] += 2
    return count


def legacy_kind(ctx: Context, node: ast.AST) -> Optional[str]:
    """``"tensor"`` for a legacy tensor type, ``"variable"`` for torch's ``Variable``."""
    qualname = ctx.resolve(node)
    if qualname in LEGACY_TENSOR_TYPES:
        return "tensor"
    if qualname == VARIABLE:
        return "variable"
    return None


def assigned_literal(ctx: Context, node: ast.AST) -> Optional[ast.AST]:
    """``node`` itself, or the value a name is bound to exactly once, by a plain
    assignment, in the enclosing function (or at module level when no function
    scope around binds it)."""
    if not isinstance(node, ast.Name):
        return node
    flow = ctx.flow()
    scope_node = flow.node
    if node.id in flow.assigned:
        values = flow.assigned[node.id]
    elif scope_node is not ctx.tree and _unbound(ctx, node.id, stop_at_module=True):
        scope_node = ctx.tree
        module = ctx.memo.get("TV005 module flow")  # (once per file, not per name)
        if module is None:
            module = ctx.memo["TV005 module flow"] = Flow(ctx.tree)
        values = module.assigned.get(node.id, [])  # type: ignore[attr-defined]
    else:
        return None
    if len(values) != 1 or binding_count(scope_node, node.id, ctx) != 1:
        return None
    return values[0]


class Types(record("node elts kinds")):
    """The type side of a comparison: one type (``elts`` is ``None``), or the
    elements of a container; ``kinds`` holds the legacy_kind of each type."""

    __slots__ = ()


def _single_type(ctx: Context, node: ast.AST) -> Optional[Types]:
    kind = legacy_kind(ctx, node)
    return Types(node, None, [kind]) if kind else None


def _container_types(ctx: Context, node: ast.AST) -> Optional[Types]:
    """A tuple, list, set or dict literal (or a name assigned one) holding a legacy type."""
    literal = assigned_literal(ctx, node)
    if not isinstance(literal, _CONTAINERS):
        return None
    elts = literal.keys if isinstance(literal, ast.Dict) else literal.elts
    if any(e is None or isinstance(e, ast.Starred) for e in elts):
        return None
    kinds = [legacy_kind(ctx, e) for e in elts]
    return Types(node, list(elts), kinds) if any(kinds) else None


def _legacy_name(ctx: Context, node: ast.AST) -> Optional[str]:
    """The legacy class name a string spells (``'Variable'`` only where torch is imported)."""
    if isinstance(node, ast.Constant) and node.value in LEGACY_NAMES:
        if node.value != "Variable" or ctx.imports_torch:
            return node.value
    return None


class Match(record("subject types names negated")):
    """A legacy type test: ``subject`` is the ``E`` of ``type(E)``; ``types`` is
    ``None`` for a ``__name__`` comparison, and ``names`` the class names it tests."""

    __slots__ = ()


def _match(ctx: Context, op: ast.cmpop, left: ast.AST, right: ast.AST) -> Optional[Match]:
    """The legacy type test ``left op right`` makes, if it makes one."""
    negated = isinstance(op, _NEGATED)
    if isinstance(op, _EQUALITY):
        pairs = ((left, right), (right, left))
    elif isinstance(op, _MEMBERSHIP):
        pairs = ((left, right),)
    else:
        return None
    for this, other in pairs:
        call = this.value if _is_name_attr(this) else this
        e = _type_call_argument(call)
        if e is None:
            continue
        if call is this:
            types = (_single_type if isinstance(op, _EQUALITY) else _container_types)(ctx, other)
            if types is not None and _is_real_type_call(ctx, call):
                return Match(e, types, (), negated)
        else:
            names = _names(ctx, op, other)
            if names and _is_real_type_call(ctx, call):
                return Match(e, None, names, negated)
    return None


def _is_name_attr(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "__name__"


def _names(ctx: Context, op: ast.cmpop, other: ast.AST) -> Tuple[str, ...]:
    """The legacy class names a ``__name__`` comparison tests.

    ``'Variable'`` among names of other classes is some other library's
    ``Variable``; it counts only beside tensor type names.
    """
    if isinstance(op, _EQUALITY):
        elts = [other]
    elif isinstance(other, (ast.Tuple, ast.List, ast.Set)):
        elts = other.elts
    else:
        return ()
    names = tuple(n for n in (_legacy_name(ctx, e) for e in elts) if n)
    if names and set(names) == {"Variable"} and len(names) < len(elts):
        return ()
    return names


# ---------------------------------------------------------------------------
# replacements


def torch_name(ctx: Context) -> Tuple[str, Tuple[str, ...]]:
    """The name bound to ``torch`` here, with the import needed when there is none."""
    name = name_bound_to(ctx, "torch")
    return (name, ()) if name is not None else ("torch", ("torch",))


def name_bound_to(ctx: Context, module: str) -> Optional[str]:
    """A name bound to the module ``module`` here (its own name first), or ``None``.
    Only the names an import binds are looked up (see ``resolvable_names``):
    every name of the module, once per finding, was a pass over the file."""
    if ctx.resolve(ast.Name(module)) == module:
        return module
    resolvable = resolvable_names(ctx.scope)
    scope: Optional[Scope] = ctx.scope
    while scope is not None:
        names = scope.bindings if resolvable is None else [
            name for name in resolvable if name in scope.bindings]
        for name in sorted(names):
            if ctx.resolve(ast.Name(name)) == module:
                return name
        scope = scope.parent
    return None


def _subject_text(ctx: Context, e: ast.AST) -> str:
    text = ctx.source.text(e)
    return f"({text})" if needs_parens(e, ast.Call, ctx.source) else text


def _types_text(ctx: Context, types: Types) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """The second argument of ``isinstance`` for ``types``, or ``None`` if not clean."""
    src = ctx.source
    torch, imports = torch_name(ctx)
    if types.elts is None:
        if types.kinds[0] == "variable":
            return f"{torch}.Tensor", imports
        return src.text(types.node), ()
    if isinstance(types.node, ast.Name):
        clean = isinstance(assigned_literal(ctx, types.node), ast.Tuple)
        if not clean or "variable" in types.kinds:
            return None
        return types.node.id, ()
    if has_comment(src.text(types.node)):
        return None
    texts: List[str] = []
    for elt, kind in zip(types.elts, types.kinds):
        text = f"{torch}.Tensor" if kind == "variable" else src.text(elt)
        if text not in texts:
            texts.append(text)
    if "variable" not in types.kinds:
        imports = ()
    return (texts[0] if len(texts) == 1 else f"({', '.join(texts)})"), imports


def _negate(ctx: Context, node: ast.AST, text: str, negated: bool) -> str:
    """``not text`` where ``text`` replaces ``node``, parenthesized where needed.

    A comparison that is not in a loose parent is an operand of a tighter
    operator, which Python only allows in parentheses; those stay around the
    replaced text, so the fallback below is a safeguard.
    """
    if not negated:
        return text
    if isinstance(ctx.parent, _LOOSE_FOR_NOT) or _parenthesized(ctx, node):
        return f"not {text}"
    return f"(not {text})"


def _parenthesized(ctx: Context, node: ast.AST) -> bool:
    (line, col), (end_line, end_col) = ctx.source.start(node), ctx.source.end(node)
    before = ctx.source.lines[line - 1][:col].rstrip()
    after = ctx.source.lines[end_line - 1][end_col:].lstrip()
    return before.endswith("(") and after.startswith(")")


def quote(ctx: Context, start: ast.AST, end: ast.AST, limit: int = 40) -> str:
    """The source from ``start`` to ``end``, without comments, shortened."""
    text = ctx.source.between(ctx.source.start(start), ctx.source.end(end))
    if "#" in text and "\n" in text:
        import io
        import tokenize  # (rarely needed: not imported with the plugin)

        lines = text.splitlines()
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.COMMENT:
                    row, col = tok.start
                    lines[row - 1] = lines[row - 1][:col]
        except (tokenize.TokenError, SyntaxError):
            pass
        text = "\n".join(lines)
    return shorten(text, limit)


# ---------------------------------------------------------------------------
# comparisons


def _compare(ctx: Context, node: ast.Compare) -> Iterator[Report]:
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        left, right = operands[i], operands[i + 1]
        match = _match(ctx, op, left, right)
        if match is None:
            continue
        src = ctx.source
        problem = _problem(quote(ctx, left, right), match)
        replacement = _replacement(ctx, match)
        if replacement is None:
            yield Report(node, f"{problem}; {_advice(ctx, match)}")
            return
        text, imports = replacement
        text = _negate(ctx, node, text, match.negated)
        fix = None
        if len(node.ops) == 1 and not has_comment(src.text(node)):
            fix = Fix((src.replace(node, text),), UNSAFE, imports)
        yield Report(node, f"{problem}; use `{one_line(text)}`", fix)
        return


def _problem(quoted: str, match: Match) -> str:
    if match.types is None:
        return f"`{quoted}` is always {match.negated} since PyTorch 0.4 (type name is 'Tensor')"
    return f"`{quoted}` is always {match.negated} {_WHY}"


def _replacement(ctx: Context, match: Match) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """``isinstance(E, T)`` for a match (not negated), with its imports, if clean."""
    if match.types is None:
        if match.names != ("Variable",):
            return None
        torch, imports = torch_name(ctx)
        return f"isinstance({_subject_text(ctx, match.subject)}, {torch}.Tensor)", imports
    types = _types_text(ctx, match.types)
    if types is None:
        return None
    return f"isinstance({_subject_text(ctx, match.subject)}, {types[0]})", types[1]


def _advice(ctx: Context, match: Match) -> str:
    """What to write instead, where there is no clean replacement."""
    e = one_line(_subject_text(ctx, match.subject))
    neg = "not " if match.negated else ""
    if match.types is None:
        if len(match.names) > 1:
            return f"test `{e}.type()` (e.g. `'torch.{match.names[0]}'`)"
        return f"use `{neg}{e}.type().endswith('.{match.names[0]}')`"
    return f"use `{neg}isinstance({e}, ...)`"


# ---------------------------------------------------------------------------
# assertions and dict lookups


def _assertion(ctx: Context, node: ast.Call) -> Iterator[Report]:
    func = node.func
    args = node.args
    if len(args) < 2 or any(isinstance(a, ast.Starred) for a in args[:2]):
        return
    op = ast.In() if func.attr in _MEMBERSHIP_ASSERTIONS else ast.Eq()
    match = _match(ctx, op, args[0], args[1])
    if match is None:
        return
    src = ctx.source
    positive = _ASSERTIONS[func.attr]
    quoted = quote(ctx, node, node)
    problem = f"`{quoted}` always {'fails' if positive else 'passes'} since PyTorch 0.4"
    if match.types is None:
        yield Report(node, f"{problem} (type name is 'Tensor'); {_advice(ctx, match)}")
        return
    problem = f"{problem} (type(t) is Tensor)"
    types = _types_text(ctx, match.types)
    if types is None:
        yield Report(node, f"{problem}; use `assertIsInstance`")
        return
    method = "assertIsInstance" if positive else "assertNotIsInstance"
    e_text, (type_text, imports) = _subject_text(ctx, match.subject), types
    suggestion = one_line(f"{src.text(func.value)}.{method}({e_text}, {type_text})")
    fix = None
    if not has_comment(src.text(node)):
        end = src.end(func)
        fix = Fix(
            (
                Edit((end[0], end[1] - len(func.attr)), end, method),
                src.replace(args[0], e_text),
                src.replace(args[1], type_text),
            ),
            UNSAFE,
            imports,
        )
    yield Report(node, f"{problem}; use `{suggestion}`", fix)


def _is_dict_get(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and 1 <= len(node.args) <= 2
        and not node.keywords
    )


def _lookup(ctx: Context, node: ast.AST, mapping: ast.AST, key: ast.AST) -> Iterator[Report]:
    e = _type_call_argument(key)
    if e is None:
        return
    if not isinstance(assigned_literal(ctx, mapping), ast.Dict):
        return
    if _container_types(ctx, mapping) is None or not _is_real_type_call(ctx, key):
        return
    e_text = one_line(_subject_text(ctx, e))
    yield Report(
        node,
        f"`{quote(ctx, node, node)}` finds no legacy tensor type key {_WHY}; "
        f"key the dict on `{e_text}.type()` strings",
    )
