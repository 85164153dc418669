"""TV006: dotted or empty names for submodules, parameters and buffers."""
from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, List, Optional, Set, Tuple

from .._core import UNSAFE, Context, Fix, Report, rule
from .._source import Edit, has_comment, one_line, shorten
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
    automatic fix.
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
        fix = Fix(tuple(edits), UNSAFE)
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
