"""TV006: dotted or empty names for submodules, parameters and buffers."""
from __future__ import annotations

import ast
import bisect
import re
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.nodes import children
from ..analysis.registry import rule
from ..source.text import Edit, has_comment, one_line, shorten
from .type_comparison import assigned_literal, binding_count

#: registration methods, by the name of the argument that follows the name
_REGISTER = {
    "add_module": "module",
    "register_module": "module",
    "register_buffer": "tensor",
    "register_parameter": "param",
}
#: containers taking a mapping of names, by the keyword that may pass it
_CONTAINERS = {
    "torch.nn.Sequential": None,
    "torch.nn.ModuleDict": "modules",
    "torch.nn.ParameterDict": "parameters",
}
_ORDERED_DICTS = ("collections.OrderedDict", "typing.OrderedDict")
_UNBOUND_RECEIVERS = ("torch.nn.Module",)

#: a %-format conversion specifier, whose ``.`` is a precision, not a character
_PERCENT_SPEC = (
    r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+)?)?[hlL]?[diouxXeEfFgGcrsa%]"
)
_MAX_DEPTH = 4


@rule("TV006")
def module_names(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags dotted or empty names given to ``add_module`` and its relatives.

    ## What it does
    Flags the name (positional or ``name=``) given to ``.add_module``,
    ``.register_module``, ``.register_buffer`` and ``.register_parameter`` when
    it is empty or contains ``.``: a string literal, an f-string, a
    ``%``-format or ``.format()`` template or a ``+`` concatenation whose
    literal parts contain ``.``, or a name assigned only such values in the
    same function.  Also flags such keys in the ``OrderedDict`` (or dict, or
    list of pairs) literal given to ``nn.Sequential``, ``nn.ModuleDict`` and
    ``nn.ParameterDict``, resolved through imports.  The methods are checked
    in every file (a model helper need not import torch); a call must pass the
    module, tensor or parameter too, so ``ModuleFinder.add_module('os.path')``
    is left alone.  ``'%s.weight' % name`` used for anything else,
    ``'denselayer%d' % i``, ``'{0.name}'.format(m)`` and ``'%.1f' % x`` (dots
    inside replacement fields) are not flagged.

    ## Why is this bad?
    A ``.`` in a name would make ``state_dict`` keys ambiguous, so since
    PyTorch 0.4 ``add_module('norm.1', m)``, ``register_buffer('a.b', t)``,
    ``register_parameter``, ``register_module`` and the containers raise
    ``KeyError`` when the model is built, as do empty names.  Models written
    for 0.3 (old copies of torchvision's DenseNet, DCGAN variants naming layers
    ``'pyramid.{0}.relu'``) no longer construct.

    ## Example
    ```python
    self.add_module('norm.1', nn.BatchNorm2d(num_features))
    main.add_module('pyramid.{0}.relu'.format(out_feat), nn.LeakyReLU(0.2))
    ```

    Use instead:
    ```python
    self.add_module('norm_1', nn.BatchNorm2d(num_features))
    main.add_module('pyramid_{0}_relu'.format(out_feat), nn.LeakyReLU(0.2))
    ```

    ## Fix safety
    Replacing the dots by ``_`` is *unsafe*: it changes the model's
    ``state_dict`` keys, so checkpoints saved under 0.3 need their keys
    remapped when loaded (``norm.1.weight`` -> ``norm_1.weight``), and a new
    name may collide with an existing one.  The fix edits string literals and
    the literal parts of f-strings and templates only, and only when the
    result re-parses to exactly that change; a name held in a variable, a
    dotted value substituted into a template, and empty names get no
    automatic fix.  The same fix renames the name where the file uses it:
    the same literal or template given to ``getattr``, ``hasattr``,
    ``setattr``, ``delattr`` or used as a key of ``_modules``, ``_buffers``,
    ``_parameters``, and string literals that spell the name or a key under
    it (``'norm.1.weight'``) as a subscript, a dict key or in a comparison.
    When such a use cannot be rewritten -- a dotted name spelled another way
    (``getattr(self, 'conv.' + str(i))`` for ``'conv.%d' % i``) or held in a
    variable, or a literal whose text the fix cannot edit -- there is no
    automatic fix, and the message says which use stops it.
    """
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _REGISTER:
        name = _registered_name(ctx, node, func)
        if name is not None:
            report = _name_report(ctx, name, f"{func.attr}()")
            if report is not None:
                yield report
        return
    qualname = ctx.resolve(func)
    if qualname in _CONTAINERS:
        owner = shorten(ctx.source.text(func), 25)
        keys, in_comprehension = _container_keys(ctx, node, _CONTAINERS[qualname])
        taken = _colliding(keys)
        for key_node in keys:
            report = _name_report(ctx, key_node, owner, key=True, names=not in_comprehension,
                                  taken=taken)
            if report is not None:
                yield report


def _registered_name(ctx: Context, node: ast.Call, func: ast.Attribute) -> Optional[ast.AST]:
    """The name argument, when the call has the shape of torch's ``(name, value)``."""
    args = list(node.args)
    if ctx.resolve(func.value) in _UNBOUND_RECEIVERS:
        args = args[1:]  # nn.Module.add_module(self, name, module)
    if any(isinstance(a, ast.Starred) for a in args[:2]):
        return None
    keywords = {kw.arg: kw.value for kw in node.keywords}
    if None in keywords:
        return None  # **kwargs: cannot tell the arguments apart
    name = args[0] if args else keywords.get("name")
    has_value = len(args) >= 2 or _REGISTER[func.attr] in keywords
    return name if has_value else None


def _container_keys(
    ctx: Context, node: ast.Call, keyword: Optional[str]
) -> Tuple[List[ast.AST], bool]:
    """The name keys of the mapping a container is built from, and whether they
    are a comprehension's (whose names are not the function's)."""
    if len(node.args) == 1 and not node.keywords:
        arg = node.args[0]
    elif keyword and not node.args and [kw.arg for kw in node.keywords] == [keyword]:
        arg = node.keywords[0].value
    else:
        return [], False
    literal = assigned_literal(ctx, arg)
    if isinstance(literal, ast.Call) and ctx.resolve(literal.func) in _ORDERED_DICTS:
        if len(literal.args) != 1 or literal.keywords:
            return [], False
        literal = literal.args[0]
    elif keyword is None:
        return [], False  # nn.Sequential takes names only from an OrderedDict
    if isinstance(literal, ast.Dict):
        return [k for k in literal.keys if k is not None], False
    if isinstance(literal, ast.DictComp):
        return [literal.key], True
    if isinstance(literal, (ast.ListComp, ast.GeneratorExp)):
        return _pair_keys([literal.elt]), True
    if isinstance(literal, (ast.List, ast.Tuple)):
        return _pair_keys(literal.elts), False
    return [], False


def _pair_keys(elts: List[ast.AST]) -> List[ast.AST]:
    """The first items of the ``(name, value)`` pairs among ``elts``."""
    return [
        elt.elts[0] for elt in elts
        if isinstance(elt, (ast.Tuple, ast.List)) and len(elt.elts) == 2
        and not isinstance(elt.elts[0], ast.Starred)
    ]


# ---------------------------------------------------------------------------
# what a name expression spells


def is_dotted(ctx: Context, expr: ast.AST, seen: Optional[Set[str]] = None) -> bool:
    """Whether the string ``expr`` builds surely contains a ``.`` from its literal parts.

    Names are followed to their assignments in the function unless ``seen`` is
    ``None`` (a comprehension's names are its own).
    """
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str) and "." in expr.value
    if isinstance(expr, ast.JoinedStr):
        return any(is_dotted(ctx, v) for v in expr.values if isinstance(v, ast.Constant))
    template = _template(expr)
    if template is not None:
        style, literal = template
        return "." in _literal_text(literal.value, style)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return is_dotted(ctx, expr.left, seen) or is_dotted(ctx, expr.right, seen)
    if isinstance(expr, ast.Name) and seen is not None:
        return _dotted_name(ctx, expr, seen)
    return False


def _dotted_name(ctx: Context, name: ast.Name, seen: Set[str]) -> bool:
    """A local name every assignment of which gives it a dotted value."""
    if name.id in seen or len(seen) >= _MAX_DEPTH or not _function_local(ctx, name.id):
        return False
    values = ctx.flow().assigned.get(name.id, [])
    if not values or binding_count(ctx.flow().node, name.id, ctx) != len(values):
        return False
    seen = seen | {name.id}
    return all(is_dotted(ctx, v, seen) for v in values)


def _function_local(ctx: Context, name: str) -> bool:
    """No comprehension or class scope between the node and its function binds ``name``."""
    scope = ctx.scope
    while scope is not None and scope.kind in ("comprehension", "class"):
        if scope.kind == "class" or name in scope.bindings:
            return False
        scope = scope.parent
    return True


def _template(expr: ast.AST) -> Optional[Tuple[str, ast.Constant]]:
    """``("percent", literal)`` for ``'...' % args``, ``("format", literal)`` for
    ``'...'.format(...)``."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
        literal = expr.left
        style = "percent"
    elif (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "format"
    ):
        literal = expr.func.value
        style = "format"
    else:
        return None
    if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
        return style, literal
    return None


def _literal_text(template: str, style: str) -> str:
    """The characters of a template outside its replacement fields."""
    if style == "percent":
        return re.sub(_PERCENT_SPEC, "", template)
    import string  # (these two imports: rarely needed, not made with the plugin)

    try:
        return "".join(lit for lit, *_ in string.Formatter().parse(template))
    except ValueError:
        return ""


def undot(text: str, style: str) -> str:
    """``text`` with each ``.`` outside replacement fields made ``_``.

    ``style`` is ``"plain"``, ``"percent"`` or ``"format"`` (also used for the
    source text of f-strings, whose ``{...}`` fields are kept as they are).
    """
    if style == "plain":
        return text.replace(".", "_")
    if style == "percent":
        parts = re.split(_PERCENT_SPEC, text)
        specs = re.findall(_PERCENT_SPEC, text)
        out = [parts[0].replace(".", "_")]
        for spec, part in zip(specs, parts[1:]):
            out.append(spec + part.replace(".", "_"))
        return "".join(out)
    out = []
    depth = 0
    i = 0
    while i < len(text):
        pair = text[i:i + 2]
        if depth == 0 and pair in ("{{", "}}"):
            out.append(pair)
            i += 2
            continue
        char = text[i]
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        out.append("_" if char == "." and depth == 0 else char)
        i += 1
    return "".join(out)


# ---------------------------------------------------------------------------
# reports and fixes


def _colliding(keys: List[ast.AST]) -> Set[str]:
    """The names two literal keys of one container would share once their dots
    become ``_`` (``'l.1'`` and ``'l_1'``)."""
    after: Dict[str, int] = {}
    for k in keys:
        if isinstance(k, ast.Constant) and isinstance(k.value, str):
            new = undot(k.value, "plain")
            after[new] = after.get(new, 0) + 1
    return {name for name, count in after.items() if count > 1}


def _name_report(
    ctx: Context, expr: ast.AST, owner: str, key: bool = False, names: bool = True,
    taken: Set[str] = frozenset(),
) -> Optional[Report]:
    src = ctx.source
    quoted = src.quote(expr, 32)
    what = f"key `{quoted}`" if key else f"`{quoted}`"
    if isinstance(expr, ast.Constant) and expr.value == "":
        return Report(
            expr,
            f"{what} is empty: {owner} raises KeyError since PyTorch 0.4; use a non-empty name",
        )
    seen = set() if names else None
    if not is_dotted(ctx, expr, seen):
        return None
    if isinstance(expr, ast.Name):
        value = ctx.flow().assigned[expr.id][-1]
        what = f"{what} (= `{src.quote(value, 30)}`)"
    edits = undot_edits(ctx, expr, seen)
    if (edits is not None and isinstance(expr, ast.Constant)
            and undot(expr.value, "plain") in taken):
        # two keys would be equal: the container would keep one module of two
        advice = f"use a name without '.' (`{undot(expr.value, 'plain')}` is another key)"
        fix = None
    elif edits is None:
        advice = "use a name without '.'"
        fix = None
    else:
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            new = _apply(src.text(expr), src.start(expr), edits)
        else:
            new = edits[0].text  # the literal or template
        advice = f"use `{one_line(new)}`"
        uses, blocker = _use_edits(ctx, expr)
        if blocker is not None:
            advice += f" and rename its uses by hand (no automatic fix: {blocker})"
            fix = None
        else:
            count = len({(e.start, e.end) for e in uses})
            if count:
                what = "its use" if count == 1 else f"its {count} uses"
                advice += f" (the fix renames {what} in the file too)"
            fix = Fix(tuple(edits) + tuple(uses), UNSAFE)
    return Report(
        expr,
        f"{what} contains '.': {owner} raises KeyError since PyTorch 0.4; "
        f"{advice} and remap old checkpoints' keys",
        fix,
    )


def undot_edits(
    ctx: Context, expr: ast.AST, seen: Optional[Set[str]]
) -> Optional[List[Edit]]:
    """Edits replacing the dots of ``expr``'s literal parts, or ``None`` if not clean
    (``seen`` as for :func:`is_dotted`: a dotted name makes it unclean)."""
    src = ctx.source
    text = src.text(expr)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        edits: List[Edit] = []
        for side in (expr.left, expr.right):
            if is_dotted(ctx, side, seen):
                side_edits = undot_edits(ctx, side, seen)
                if side_edits is None:
                    return None
                edits.extend(side_edits)
        return edits
    if has_comment(text):
        return None
    if isinstance(expr, ast.Constant):
        new = text.replace(".", "_")
        return [src.replace(expr, new)] if _evaluates(new, undot(expr.value, "plain")) else None
    if isinstance(expr, ast.JoinedStr):
        new = undot(text, "format")
        return [src.replace(expr, new)] if _same_fstring(new, expr) else None
    template = _template(expr)
    if template is not None:
        style, literal = template
        new = undot(src.text(literal), style)
        if _evaluates(new, undot(literal.value, style)):
            return [src.replace(literal, new)]
    return None


def _evaluates(source: str, value: str) -> bool:
    """Whether ``source`` is a string literal whose value is exactly ``value``."""
    try:
        return ast.literal_eval(source) == value
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return False


def _same_fstring(source: str, original: ast.JoinedStr) -> bool:
    """Whether ``source`` parses to ``original`` with only its literal dots made ``_``."""
    try:
        new = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    import copy

    expected = copy.deepcopy(original)
    for value in expected.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            value.value = value.value.replace(".", "_")
    return ast.dump(new) == ast.dump(expected)


def _apply(text: str, start: Tuple[int, int], edits: List[Edit]) -> str:
    """``text`` (starting at ``start``) with ``edits`` applied, for the message."""
    lines = text.splitlines(keepends=True) or [""]
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def index(pos: Tuple[int, int]) -> int:
        row = pos[0] - start[0]
        return offsets[row] + pos[1] - (start[1] if row == 0 else 0)

    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: index(edit.start)] + edit.text + text[index(edit.end):]
    return text


# ---------------------------------------------------------------------------
# uses of a registered name: ``getattr(self, 'conv.%d' % i)``, ``self._buffers['a.b']``

_ATTR_FUNCTIONS = frozenset(("getattr", "hasattr", "setattr", "delattr"))
#: the dictionaries of ``nn.Module`` that hold registered names
_NAME_DICTS = frozenset(("_modules", "_buffers", "_parameters"))
_SAME_NAME_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def _signature(expr: ast.AST) -> Optional[tuple]:
    """What a name expression spells, with the values substituted into it left
    out: equal for ``'conv.%d' % i`` and ``'conv.%d' % j``."""
    if isinstance(expr, ast.Constant):
        return ("plain", expr.value) if isinstance(expr.value, str) else None
    if isinstance(expr, ast.JoinedStr):
        return ("f",) + tuple(v.value if isinstance(v, ast.Constant) else None
                              for v in expr.values)
    template = _template(expr)
    if template is not None:
        return (template[0], template[1].value)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return ("+", _signature(expr.left), _signature(expr.right))
    return None


def _parts(expr: ast.AST) -> Optional[List[Optional[str]]]:
    """The literal parts of a name expression, ``None`` for each value
    substituted into it: ``['conv.', None]`` for ``'conv.%d' % i``."""
    if isinstance(expr, ast.Constant):
        return [expr.value] if isinstance(expr.value, str) else None
    if isinstance(expr, ast.JoinedStr):
        return [v.value if isinstance(v, ast.Constant) else None for v in expr.values]
    template = _template(expr)
    if template is not None:
        style, literal = template
        if style == "percent":
            pieces = re.split(_PERCENT_SPEC, literal.value)
            out: List[Optional[str]] = [pieces[0]]
            for piece in pieces[1:]:
                out += [None, piece]
            return out
        import string

        try:
            fields = list(string.Formatter().parse(literal.value))
        except ValueError:
            return None
        out = []
        for text, field, _, _ in fields:
            out.append(text)
            if field is not None:
                out.append(None)
        return out
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _parts(expr.left), _parts(expr.right)
        return (left or [None]) + (right or [None])
    return None


def _renamed(parts: List[Optional[str]], value: str, under: bool = False) -> Optional[str]:
    """``value`` with the name ``parts`` spell renamed, when ``value`` is that
    name (or, with ``under``, a key under it: ``'conv.0.weight'`` for
    ``'conv.%d'``), else ``None``."""
    pattern = "".join(re.escape(p) if p is not None else "(.+?)" for p in parts)
    match = re.fullmatch(pattern + (r"(\..*)?" if under else "()"), value, re.DOTALL)
    if match is None:
        return None
    groups = iter(match.groups())
    out = [undot(p, "plain") if p is not None else next(groups) for p in parts]
    return "".join(out) + (next(groups) or "")


class _Uses:
    """Where the file reads a module's names: the name expressions given to
    ``getattr``/``hasattr``/``setattr``/``delattr`` or used as a key of
    ``_modules``/``_buffers``/``_parameters`` (``names``), the strings used as
    other keys or compared (``keys``), the names assigned dotted values in a
    function and read as such a name (``held``), and what the file registers."""

    def __init__(self, ctx: Context) -> None:
        self.names: List[ast.AST] = []
        self.keys: List[ast.Constant] = []
        self.held: List[ast.Name] = []
        self.registered: Set[tuple] = set()
        self.registered_parts: List[List[Optional[str]]] = []
        self._renames: Dict[tuple, list] = {}
        self._sorted_keys: Optional[List[Tuple[str, int]]] = None
        self._sorted_values: List[str] = []
        self._walk(ctx, ctx.tree, None)

    def _walk(self, ctx: Context, root: ast.AST, function: Optional[ast.AST]) -> None:
        """Note the nodes below ``root`` in the order of a recursive walk (each
        before its children, children in field order), a function's own nodes
        with the function; expression contexts and operators are left out."""
        stack = [(child, function) for child in reversed(children(root))]
        while stack:
            node, function = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                function = node
            else:
                self._note(ctx, node, function)
            stack += [(child, function) for child in reversed(children(node))]

    def _note(self, ctx: Context, node: ast.AST, function: Optional[ast.AST]) -> None:
        name: Optional[ast.AST] = None
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in _ATTR_FUNCTIONS and len(node.args) >= 2:
                name = node.args[1]
            elif isinstance(func, ast.Attribute) and func.attr in _REGISTER:
                first = node.args[0] if node.args else next(
                    (kw.value for kw in node.keywords if kw.arg == "name"), None)
                if first is not None:
                    self._register(first)
        elif isinstance(node, ast.Subscript):
            index = node.slice
            value = node.value
            if isinstance(value, ast.Attribute) and value.attr in _NAME_DICTS:
                name = index
            elif isinstance(index, ast.Constant) and isinstance(index.value, str):
                self.keys.append(index)
        elif isinstance(node, ast.Dict):
            for k in node.keys:
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    self.keys.append(k)
                if k is not None:
                    self._register(k)
        elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
            self._register(node.elts[0])
        elif isinstance(node, ast.Compare) and all(
                isinstance(op, _SAME_NAME_OPS) for op in node.ops):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and isinstance(side.value, str):
                    self.keys.append(side)
        if name is None:
            return
        if isinstance(name, ast.Name):
            if function is not None and _assigned_dotted(ctx, function, name.id):
                self.held.append(name)
        elif is_dotted(ctx, name):
            self.names.append(name)

    def _register(self, expr: ast.AST) -> None:
        signature = _signature(expr)
        if signature is not None:
            self.registered.add(signature)
            parts = _parts(expr)
            if parts is not None and any(p and "." in p for p in parts):
                self.registered_parts.append(parts)

    def renames(
        self, ctx: Context, signature: Optional[tuple], parts: List[Optional[str]]
    ) -> List[Tuple[ast.AST, Optional[List[Edit]], bool]]:
        """The uses of the name ``parts`` spell that the fix renames or that
        block it, in the file's order, names first: ``(use, edits or None if it
        cannot be renamed, whether it is a key)``.  Computed once per name
        spelling, and the keys looked up by their literal prefix, so that a
        file's findings cost time linear in its size."""
        memo_key = (signature, tuple(parts))
        found = self._renames.get(memo_key)
        if found is not None:
            return found
        src = ctx.source
        found = []
        for name in self.names:
            edit: Optional[List[Edit]]
            if isinstance(name, ast.Constant):
                edit = _rename_constant(src, name, parts, under=False)
                if edit == []:
                    if self.known(name):
                        continue  # another registered name
                    edit = None
            elif _signature(name) == signature:
                edit = undot_edits(ctx, name, None)
            elif _signature(name) in self.registered:
                continue
            else:
                edit = None
            found.append((name, edit, False))
        for k in self._candidate_keys(parts[0]):
            edit = _rename_constant(src, k, parts, under=True)
            if edit != []:
                found.append((k, edit, True))
        self._renames[memo_key] = found
        return found

    def _candidate_keys(self, prefix: Optional[str]) -> List[ast.Constant]:
        """The keys, in order, that start with ``prefix`` (all keys for ``None``)."""
        if not prefix:
            return self.keys
        if self._sorted_keys is None:
            self._sorted_keys = sorted((k.value, i) for i, k in enumerate(self.keys))
            self._sorted_values = [v for v, _ in self._sorted_keys]
        values = self._sorted_values
        hits = []
        at = bisect.bisect_left(values, prefix)
        while at < len(values) and values[at].startswith(prefix):
            hits.append(self._sorted_keys[at][1])
            at += 1
        return [self.keys[i] for i in sorted(hits)]

    def known(self, constant: ast.Constant) -> bool:
        """Whether a dotted string spells a name the file registers."""
        return any(_renamed(parts, constant.value, under=True) is not None
                   for parts in self.registered_parts)


def _assigned_dotted(ctx: Context, function: ast.AST, name: str) -> bool:
    """Whether ``function`` assigns ``name`` a dotted string."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if is_dotted(ctx, node.value):
                return True
    return False


def _uses(ctx: Context) -> _Uses:
    found = ctx.memo.get("TV006.uses")
    if found is None:
        found = ctx.memo["TV006.uses"] = _Uses(ctx)
    return found  # type: ignore[return-value]


def _use_edits(ctx: Context, expr: ast.AST) -> Tuple[List[Edit], Optional[str]]:
    """The edits renaming the uses of the name ``expr`` spells, or why they
    cannot all be renamed.  A dotted name read in a way that spells no
    registered name (``getattr(self, 'conv.' + str(i))`` for ``'conv.%d' % i``),
    or held in a variable, blocks the fix: renaming the registration alone
    would break it (``AttributeError``, ``KeyError``)."""
    uses = _uses(ctx)
    src = ctx.source
    signature = _signature(expr)
    parts = _parts(expr)
    if parts is None:
        return [], None
    for held in uses.held:
        return [], f"`{held.id}` holds a dotted name read as an attribute"
    edits: List[Edit] = []
    for node, edit, is_key in uses.renames(ctx, signature, parts):
        if node is expr:
            continue
        if edit is None:
            if is_key:
                return [], f"`{src.quote(node, 30)}` cannot be rewritten"
            return [], f"`{src.quote(node, 30)}` reads a dotted name the fix cannot rename"
        edits.extend(edit)
    return edits, None


def _rename_constant(src, constant: ast.Constant, parts: List[Optional[str]],
                     under: bool) -> Optional[List[Edit]]:
    """The edit renaming the name in a string literal (``under``: or a key
    under it); ``[]`` when the literal holds neither, ``None`` when it does but
    its text cannot be rewritten."""
    value = constant.value
    new = _renamed(parts, value, under)
    if new is None:
        return []
    text = src.text(constant)
    if value in text and not has_comment(text):
        rewritten = text.replace(value, new, 1)
        if _evaluates(rewritten, new):
            return [Edit(src.start(constant), src.end(constant), rewritten)]
    return None
