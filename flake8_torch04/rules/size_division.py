"""TV149: Python 2's ``/`` of two ints given to torch (or ``range``) as a size."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Tuple

from ..analysis.canonical import LEGACY_TENSOR_TYPES
from ..analysis.callers import argument
from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.lines import lines_matching
from ..analysis.nodes import body_parents
from ..analysis.reaching import params_of
from ..analysis.resolve import resolve
from ..analysis.values import NUMBER, TENSOR, values
from ..source.text import Edit, has_comment, shorten
from .shared.calls import keyword, plain_arguments

_CONV = ((0, "in_channels"), (1, "out_channels"), (2, "kernel_size"))
_RNN = ((0, "input_size"), (1, "hidden_size"), (2, "num_layers"))
_CELL = ((0, "input_size"), (1, "hidden_size"))
_POOL = ((0, "kernel_size"), (1, "stride"))
_EMBEDDING = ((0, "num_embeddings"), (1, "embedding_dim"))
#: the size parameters of ``torch.nn`` layers, as torch 2.13's ``__init__`` names
#: them (position, keyword), each of which refuses a float with a ``TypeError``
#: (when the layer is built, or a pooling layer when it is applied)
_LAYERS: Dict[str, Tuple[Tuple[int, str], ...]] = {
    "torch.nn.Linear": ((0, "in_features"), (1, "out_features")),
    "torch.nn.Bilinear": ((0, "in1_features"), (1, "in2_features"), (2, "out_features")),
    **{f"torch.nn.{kind}{n}d": _CONV for kind in ("Conv", "ConvTranspose") for n in (1, 2, 3)},
    **{f"torch.nn.{kind}{n}d": _POOL for kind in ("MaxPool", "AvgPool") for n in (1, 2, 3)},
    **{f"torch.nn.BatchNorm{n}d": ((0, "num_features"),) for n in (1, 2, 3)},
    **{f"torch.nn.InstanceNorm{n}d": ((0, "num_features"),) for n in (1, 2, 3)},
    "torch.nn.GroupNorm": ((0, "num_groups"), (1, "num_channels")),
    "torch.nn.LayerNorm": ((0, "normalized_shape"),),
    "torch.nn.Embedding": _EMBEDDING,
    "torch.nn.EmbeddingBag": _EMBEDDING,
    **{f"torch.nn.{kind}": _RNN for kind in ("RNN", "LSTM", "GRU")},
    **{f"torch.nn.{kind}": _CELL for kind in ("RNNCell", "LSTMCell", "GRUCell")},
}
#: torch functions whose positional arguments are all sizes
_CONSTRUCTORS = frozenset((
    "torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.eye",
    "torch.Tensor", *LEGACY_TENSOR_TYPES,
))
#: tensor methods whose positional arguments are all sizes (``narrow``: its dim,
#: start and length); those numpy arrays also have only for an evident tensor
_METHODS = frozenset(("view", "expand", "narrow"))
_SHARED_METHODS = frozenset(("reshape", "repeat"))
#: the integer operators: of two Python 2 ints, an int
_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)


def _has_division(node: ast.AST) -> bool:
    """A ``/`` in ``node`` (the cheap test made before any question)."""
    while True:
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Div):
                return True
            return _has_division(node.left) or _has_division(node.right)
        if isinstance(node, ast.UnaryOp):
            node = node.operand
            continue
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(_has_division(e) for e in node.elts)
        return False


def _sizes(ctx: Context, node: ast.Call,
           scope: Optional[ast.AST] = None) -> Tuple[Optional[str], List[ast.AST]]:
    """What ``node`` (read in ``scope``: by default, where the walk is) builds or
    calls, and its size arguments (where they are torch's)."""
    func = node.func
    name = _resolved(ctx, func, scope)
    if name in _LAYERS:
        if not _refuses_floats(name, node):
            return name, []
        found = []
        for position, word in _LAYERS[name]:
            if len(node.args) > position:
                found.append(node.args[position])
            else:
                given = keyword(node, word)
                if given is not None:
                    found.append(given.value)
        if name == "torch.nn.GroupNorm" and _false(node, "affine"):
            found = found[:1]  # (its channels make no tensor then)
        return name, found
    if name in _CONSTRUCTORS:
        return name, list(node.args)
    if name is None and isinstance(func, ast.Attribute) and \
            func.attr in _METHODS | _SHARED_METHODS and ctx.uses_torch:
        receiver = values(ctx).of(func.value, scope)
        if receiver.kind == TENSOR or receiver.kind is None and func.attr in _METHODS:
            return f".{func.attr}", list(node.args)
    if name is None and isinstance(func, ast.Name) and func.id == "range" and ctx.uses_torch \
            and not (ctx.scope if scope is None else ctx.scope.module()).binds("range") \
            and (scope is None or not ctx.flow_of(scope).reaching(func)):
        return "range", list(node.args)
    return None, []


def _resolved(ctx: Context, func: ast.AST, scope: Optional[ast.AST]) -> Optional[str]:
    """The qualified name ``func`` resolves to where the walk is, or (``scope``
    given) in the module, where ``scope`` binds no name it starts with."""
    if scope is None:
        return ctx.resolve(func)
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or ctx.flow_of(scope).reaching(root):
        return None
    return resolve(func, ctx.scope.module())


def _sizes_only(ctx: Context, name: str, node: ast.Call,
                scope: Optional[ast.AST] = None) -> bool:
    """Whether every argument ``_sizes`` gave of ``node`` (a call of ``name``)
    takes only an int, so that any ``/`` there raises on Python 3 whatever
    its operands are: not the typed constructors (``torch.FloatTensor(a / b)``
    may be data), nor a method of a receiver not known to be a tensor."""
    if name.startswith("."):
        return values(ctx).of(node.func.value, scope).kind == TENSOR  # type: ignore[attr-defined]
    return name not in ("torch.Tensor", *LEGACY_TENSOR_TYPES)


def _false(node: ast.Call, word: str) -> bool:
    given = keyword(node, word)
    return given is not None and isinstance(given.value, ast.Constant) and \
        given.value.value is False


def _true(node: ast.Call, word: str) -> bool:
    given = keyword(node, word)
    return given is not None and isinstance(given.value, ast.Constant) and \
        given.value.value is True


def _refuses_floats(name: str, node: ast.Call) -> bool:
    """Whether the norm layer ``name`` makes a tensor of its size: a batch norm
    unless it has neither weights nor running statistics, an instance norm only
    with one of them (its defaults have neither)."""
    if name.startswith("torch.nn.BatchNorm"):
        return not (_false(node, "affine") and _false(node, "track_running_stats"))
    if name.startswith("torch.nn.InstanceNorm"):
        return _true(node, "affine") or _true(node, "track_running_stats")
    return True


#: how evidently an expression is a Python 2 int: not at all, an int-operator
#: expression whose operands are ints or not known, evidently
_NO, _OPEN, _EVIDENT = 0, 1, 2
#: how many bindings and calls a size is followed through to its ``/``
_HOPS = 4


def _python2_int(ctx: Context, node: ast.AST, divisions: List[ast.BinOp],
                 scope: Optional[ast.AST] = None) -> int:
    """Whether ``node`` is a Python int on Python 2, where ``/`` of two ints is an
    int: :data:`_EVIDENT` for an int literal, what the value facts know to be
    an int, or ``+ - * / // %`` of such; :data:`_OPEN` where an operand is not
    known (but is no float, tensor or other evident non-int); its divisions go
    to ``divisions``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _INT_OPS) and _has_division(node):
        # (the right operand first: most often a literal, and a float ends it)
        grade = _python2_int(ctx, node.right, divisions, scope)
        grade = grade and min(grade, _python2_int(ctx, node.left, divisions, scope))
        if grade and isinstance(node.op, ast.Div):
            divisions.append(node)
        return grade
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _python2_int(ctx, node.operand, divisions, scope)
    if isinstance(node, ast.Constant):
        return _EVIDENT if type(node.value) is int else _NO
    value = values(ctx).of(node, scope)
    if value.kind == NUMBER and value.dtype == "int":
        return _EVIDENT
    return _OPEN if value.kind is None or value.kind == NUMBER and value.dtype is None else _NO


def _carried(ctx: Context, scope: ast.AST, d, hops: int,
             out: List[Tuple[ast.Name, ast.Call, str, ast.AST]], seen: set) -> None:
    """The size arguments the binding ``d`` of ``scope`` reaches, to ``out`` as
    ``(argument, call, what it calls, scope)``: a name read as a size where ``d``
    is the only binding that reaches it, or passed on to a parameter of a
    function, method (``self.name(...)``) or class of the file, followed there
    (up to :data:`_HOPS` calls)."""
    flow = ctx.flow_of(scope)
    for call in _calls(ctx, scope, d.key):
        for arg in _passed(call, d.key):
            defs = flow.reaching(arg)
            if not defs or any(other is not d for other in defs):
                continue
            name, sizes = _sizes(ctx, call, scope)
            if name is not None and any(
                    arg is o for item in _size_items(sizes) for o in _operands(item)):
                if not any(arg is o[0] or call is o[1] for o in out):
                    out.append((arg, call, name, scope))  # (once per call: one fix)
                continue
            target = _parameter(ctx, call, arg, scope) if hops < _HOPS else None
            if target is not None and id(target[1]) not in seen:
                seen.add(id(target[1]))
                bound = [x for x in ctx.flow_of(target[0]).defs(target[1].arg)
                         if x.node is target[1]]
                if bound:
                    _carried(ctx, target[0], bound[0], hops + 1, out, seen)


def _calls(ctx: Context, scope: ast.AST, name: str) -> List[ast.Call]:
    """The calls of ``scope``'s own body (nested scopes excluded) that pass the
    name ``name``: only the statements on lines that spell it are entered."""
    memo = ctx.memo.setdefault("name-passing calls", {})
    found = memo.get((id(scope), name))
    if found is None:
        lines = ctx.memo.setdefault("lines of names", {})
        hits = lines.get(name, False)
        if hits is False:
            hits = lines[name] = lines_matching(ctx.text, name)
        found = memo[(id(scope), name)] = [
            n for n in body_parents(scope, hits)[0] if n.__class__ is ast.Call and any(
                a.__class__ is ast.Name and a.id == name  # type: ignore[attr-defined]
                or a.__class__ in (ast.Tuple, ast.List, ast.BinOp, ast.Subscript)
                for a in (*n.args, *(k.value for k in n.keywords)))]  # type: ignore
    return found


def _passed(call: ast.Call, name: str) -> Iterator[ast.Name]:
    """The arguments of ``call`` that are the name ``name``, or are computed from it
    by arithmetic (``ch * f * f``; an item of a tuple or list argument too)."""
    for arg in (*call.args, *(k.value for k in call.keywords)):
        for item in arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else (arg,):
            yield from (n for n in _operands(item) if isinstance(n, ast.Name) and n.id == name)


def _size_items(sizes: List[ast.AST]) -> Iterator[ast.AST]:
    """Each size of ``sizes``, the items of a tuple or list given as one in its place
    (``x.view((n, c / 2))``)."""
    for size in sizes:
        yield from size.elts if isinstance(size, (ast.Tuple, ast.List)) else (size,)


def _operands(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and what it is computed from by ``+ - * / // %`` and signs: a float
    among them makes it a float."""
    todo = [node]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.BinOp) and isinstance(node.op, _INT_OPS):
            todo += (node.right, node.left)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            todo.append(node.operand)


def _parameter(ctx: Context, call: ast.Call, arg: ast.AST,
               scope: ast.AST) -> Optional[Tuple[ast.AST, ast.arg]]:
    """The function of the file ``call`` (in ``scope``) calls and its parameter
    that receives ``arg`` (see :func:`~.analysis.callers.argument`): a
    module-level function or class (its ``__init__``) defined once and not
    rebound in ``scope``, or a method of ``scope``'s class called on ``scope``'s
    first parameter."""
    func, bound = call.func, True
    target: Optional[ast.AST] = None
    if isinstance(func, ast.Name) and all(
            d.kind == "def" and d.node is ctx.defined_once().get(func.id)
            for d in ctx.flow_of(scope).reaching(func) or ()):
        target = ctx.defined_once().get(func.id)
        if isinstance(target, ast.ClassDef):
            inits = [s for s in target.body if getattr(s, "name", None) == "__init__"]
            target = inits[0] if len(inits) == 1 else None
        elif ctx.statement_parents().get(id(target)) is not ctx.tree:
            target = None
        else:
            bound = False
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
            getattr(scope, "args", None) is not None and scope.args.args and \
            scope.args.args[0].arg == func.value.id:
        cls = ctx.statement_parents().get(id(scope))
        methods = [s for s in getattr(cls, "body", ()) if getattr(s, "name", None) == func.attr]
        target = methods[0] if isinstance(cls, ast.ClassDef) and len(methods) == 1 else None
    if not isinstance(target, ast.FunctionDef) or target.decorator_list:
        return None
    for param in params_of(target):
        given = argument(call, target, param, method=bound)
        if given is not None and not given[1] and given[0] is arg:
            return target, param
    return None


def _true_division(ctx: Context) -> bool:
    """The file says ``from __future__ import division``."""
    found = ctx.memo.get("future division")
    if found is None:
        found = ctx.memo["future division"] = "division" in ctx.text and any(
            isinstance(s, ast.ImportFrom) and s.module == "__future__"
            and any(a.name == "division" for a in s.names)
            for s in getattr(ctx.tree, "body", ()))
    return found  # type: ignore[return-value]


def _floor_edit(ctx: Context, division: ast.BinOp) -> Optional[Edit]:
    """``//`` for the ``/`` of ``division``; ``None`` next to a comment."""
    src = ctx.source
    start, end = src.end(division.left), src.start(division.right)
    between = src.between(start, end)
    if has_comment(between) or between.count("/") != 1:
        return None
    before = between[:between.index("/")]
    line = start[0] + before.count("\n")
    col = len(before) - before.rfind("\n") - 1 if "\n" in before else start[1] + len(before)
    return Edit((line, col), (line, col + 1), "//")


def _floored(ctx: Context, item: ast.AST, edits: List[Edit]) -> str:
    """The text of ``item`` with ``edits`` (its ``/``, in order) made."""
    src = ctx.source
    at, pieces = src.start(item), []
    for edit in edits:
        pieces += [src.between(at, edit.start), edit.text]
        at = edit.end
    return "".join(pieces) + src.between(at, src.end(item))


@rule("TV149")
def size_division(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags Python 2's ``/`` of two ints given to torch (or ``range``) as a size.

    ## What it does
    Flags a size argument of torch that divides two ints with ``/``: the size
    parameters of ``torch.nn`` layers, as torch's own ``__init__`` names them
    (``Linear``'s ``in_features``/``out_features``, ``Bilinear``'s, ``ConvNd`` and
    ``ConvTransposeNd``'s ``in_channels``, ``out_channels`` and ``kernel_size``,
    ``BatchNormNd``'s ``num_features`` (not with ``affine=False,
    track_running_stats=False``: then it makes no tensor), ``InstanceNormNd``'s
    with ``affine=True`` or ``track_running_stats=True``, ``GroupNorm``'s
    ``num_groups`` and (not with ``affine=False``) ``num_channels``,
    ``LayerNorm``'s ``normalized_shape``, ``Embedding``/``EmbeddingBag``'s sizes,
    ``RNN``/``LSTM``/``GRU``'s ``input_size``, ``hidden_size`` and
    ``num_layers``, the cells' sizes, ``MaxPoolNd``/``AvgPoolNd``'s
    ``kernel_size`` and ``stride``); the arguments of ``torch.zeros``, ``ones``,
    ``empty``, ``rand``, ``randn``, ``eye``, ``torch.Tensor`` and the typed
    constructors (``torch.FloatTensor(n, m)``); and those of ``view``,
    ``expand`` and ``narrow`` (of a tensor or of a value not known) and of
    ``reshape`` and ``repeat`` (of an evident tensor: numpy arrays have them too);
    and, in a file that uses torch, the arguments of Python's ``range``.
    An item of a tuple or list given there counts too (``x.view((n, c / 2))``).
    The operands of the ``/`` are int literals, what the value facts know to be
    an int (see "How values are followed" in docs/how-it-works.md:
    ``len(...)``, ``x.size(0)``, a parameter of a module class's ``__init__``
    where the file builds the class with ints), or ``+ - * / // %`` of such; an
    operand not known counts too where the place takes only ints (the layers,
    the size-only constructors, ``range``, the methods of an evident tensor),
    since a ``/`` there raises whatever it divides.  Such a ``/`` bound to a
    name (``n = (depth - 4) / 6``) or passed to a parameter is followed to the
    sizes it reaches: where the name is read as a size with no other binding
    reaching it (also inside arithmetic: ``nn.Linear(10, ch * f * f)``, once per
    call), or passed on to a parameter of a function, of a class
    (its ``__init__``) or of a method called on ``self``, of the same file,
    through up to four calls (``Stage(n)``, then ``self._stack(blocks)``, then
    ``range(blocks)``); the size is reported there.  So is an item of a tuple
    bound so (``fs = (side / 16, side / 16)`` read as ``fs[0]``, where that binding
    alone reaches the read; ``self.fs = (...)`` read as ``self.fs[0]`` in the
    class's methods, where the class binds ``fs`` only there).
    Layers and functions are torch's, resolved through imports.  Not in a file
    that says ``from __future__ import division``.  Position: the size argument.

    ## Why is this bad?
    Code of PyTorch 0.3's time was often written for Python 2, where ``/`` of two
    ints is floor division: ``800 / 16`` is ``50``.  On Python 3 it is ``50.0``,
    and torch refuses a float size: on 2.13 ``nn.BatchNorm2d(800 / 16)`` raises
    ``TypeError: empty(): argument 'size' (position 1) must be tuple of ints, not
    float``, ``nn.Linear(n, n / 2)`` ``TypeError: empty(): argument 'size'
    (position 1) must be tuple of ints, but found element of type float at pos
    0``, ``nn.LSTM(n, n / 2)`` ``TypeError: hidden_size should be of type int,
    got: float``, ``torch.zeros(n / 2)`` ``TypeError: zeros(): argument 'size'
    (position 1) must be tuple of ints, not float``, ``x.view(-1, c / 2)``
    ``TypeError: view(): argument 'size' failed to unpack the object at pos 2
    with error "type must be tuple of ints,but got float"``, and
    ``nn.MaxPool2d(k / 2)`` when applied ``TypeError: max_pool2d(): argument
    'kernel_size' (position 2) must be tuple of ints, not float``; Python's
    ``range(n / 2)`` raises ``TypeError: 'float' object cannot be interpreted as
    an integer``.

    Not flagged: indices, slices and other plain Python code (this is a torch
    migration tool: Python 2 code has more to migrate than its sizes); an
    operand that is evidently no int (a float); an operand not known given to a
    typed constructor (``torch.FloatTensor(a / b)`` may be data) or to a method
    of a receiver not known to be a tensor; a name one of whose reaching
    bindings is no ``/``, or a parameter of a function whose calls are not all
    in view; ``//``; a division that is no size (``nn.Dropout(p / 2)``,
    ``torch.full((n,), a / b)``); a layer that is not torch's (a project's own
    ``Linear``); ``InstanceNormNd`` without weights or running statistics,
    whose size makes no tensor and so takes a float.

    ## Example
    ```python
    self.bn = nn.BatchNorm2d(channels / size)
    self.fc = nn.Linear(channels, channels / 2)
    ```

    Use instead:
    ```python
    self.bn = nn.BatchNorm2d(channels // size)
    self.fc = nn.Linear(channels, channels // 2)
    ```

    ## Fix safety
    The fix writes ``//`` for each ``/`` of the size: Python 2's floor division
    of ints exactly, negative numbers included (``-7 / 2`` was ``-4`` there, as
    ``-7 // 2`` is).  It is *safe* where the ``/`` is the size itself and both
    operands are evidently ints: the place takes only ints, so on Python 3 the
    code raised there and nothing that ran changes.  It is *unsafe* where an
    operand is not known (``//`` of a float is still a float), and where the
    ``/`` is bound to a name away from the size (its other readers get an int
    too: as on Python 2, but not as in what ran on Python 3).  A ``/`` next to
    a comment is left to a person.
    """
    if node.__class__ is ast.Assign:
        yield from _bound_sizes(ctx, node)  # type: ignore[arg-type]
        return
    if not plain_arguments(node) or not any(  # type: ignore[arg-type]
            _has_division(a) for a in (*node.args, *(k.value for k in node.keywords))):
        return
    if _true_division(ctx):
        return
    name, sizes = _sizes(ctx, node)  # type: ignore[arg-type]
    if name is None:
        yield from _passed_sizes(ctx, node)  # type: ignore[arg-type]
        return
    src = ctx.source
    for item in _size_items(sizes):
        if not _has_division(item):
            continue
        divisions: List[ast.BinOp] = []
        grade = _python2_int(ctx, item, divisions)
        if not grade or not divisions or \
                grade == _OPEN and not _sizes_only(ctx, name, node):  # type: ignore
            continue
        edits = _floor_edits(ctx, divisions)
        floor = f"`{shorten(_floored(ctx, item, edits), 40)}`" if all(edits) else "`//`"
        if grade == _EVIDENT:
            message = (f"`{src.quote(item, 30)}` of ints was floor division on Python 2 "
                       f"and is a float on Python 3, {_refuses(name)}; use {floor}")
        else:
            message = (f"`{src.quote(item, 30)}` is a float on Python 3, {_refuses(name)}; "
                       f"Python 2's `/` of ints floored: use {floor}")
        fix = Fix(tuple(edits), SAFE if grade == _EVIDENT else UNSAFE) \
            if all(edits) else None  # type: ignore[arg-type]
        yield Report(item, message, fix)


def _bound_sizes(ctx: Context, node: ast.Assign) -> Iterator[Report]:
    """``n = (depth - 4) / 6``: the sizes ``n`` reaches (see :func:`_carried`);
    ``fs = (side / 4, side / 4)`` or ``self.fs = ...``: the sizes its items reach
    (see :func:`_item_reads`)."""
    target = node.targets[0]
    if len(node.targets) != 1 or not ctx.uses_torch:
        return
    if isinstance(node.value, (ast.Tuple, ast.List)) and isinstance(
            target, (ast.Name, ast.Attribute)) and any(
            _has_division(e) for e in node.value.elts) and not _true_division(ctx):
        for i, item in enumerate(node.value.elts):
            if _has_division(item):
                yield from _reached(ctx, item, lambda found, i=i: _item_reads(
                    ctx, node, target, i, found))
        return
    if target.__class__ is not ast.Name or \
            not _has_division(node.value) or _true_division(ctx):
        return
    flow = ctx.flow()
    bound = [d for d in flow.defs(target.id) if d.node is node]  # type: ignore[attr-defined]
    if bound:
        yield from _reached(ctx, node.value, lambda found: _carried(
            ctx, flow.node, bound[0], 0, found, set()))


def _item_reads(ctx: Context, node: ast.Assign, target: ast.AST, index: int,
                out: List[Tuple[ast.AST, ast.Call, str, ast.AST]]) -> None:
    """The size arguments that read item ``index`` of the tuple ``node`` binds
    (``fs[0]``, ``self.fs[0]``, also in arithmetic: ``ch * fs[0] * fs[1]``), to
    ``out``: for a name, in its function where this binding alone reaches the
    read; for ``self.NAME``, in the methods of the class, where the class binds
    it only here."""
    scopes: List[ast.AST] = []
    scope = ctx.flow().node
    if isinstance(target, ast.Name):
        scopes = [scope]
    elif isinstance(target.value, ast.Name) and target.value.id == "self":  # type: ignore
        cls = ctx.statement_parents().get(id(scope))
        bound = values(ctx).attributes(cls).get(target.attr) \
            if isinstance(cls, ast.ClassDef) else None  # type: ignore[attr-defined]
        if not bound or len(bound) != 1 or bound[0][0] is not node.value:
            return
        scopes = [m for m in cls.body if isinstance(m, ast.FunctionDef)]  # type: ignore
    spelled = ctx.source.text(target)
    for where in scopes:
        flow = ctx.flow_of(where)
        for call in _calls(ctx, where, spelled.split(".")[-1]):
            name, sizes = _sizes(ctx, call, where)
            if name is None or any(call is o[1] for o in out):
                continue
            read = next((o for item in _size_items(sizes) for o in _operands(item)
                         if isinstance(o, ast.Subscript) and isinstance(o.slice, ast.Constant)
                         and o.slice.value == index and ctx.source.text(o.value) == spelled
                         and (not isinstance(target, ast.Name) or [
                             d.node for d in flow.reaching(o.value) or ()] == [node])), None)
            if read is not None:
                out.append((read, call, name, where))


def _passed_sizes(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """``stack(depth / 6)``: the sizes the parameter given the ``/`` reaches."""
    if not ctx.uses_torch:
        return
    scope = ctx.flow().node
    for arg in (*node.args, *(k.value for k in node.keywords)):
        if not _has_division(arg):
            continue
        target = _parameter(ctx, node, arg, scope)
        if target is None:
            continue
        func, param = target
        bound = [d for d in ctx.flow_of(func).defs(param.arg) if d.node is param]
        if bound:
            yield from _reached(ctx, arg, lambda found: _carried(
                ctx, func, bound[0], 1, found, {id(param)}))


def _reached(ctx: Context, value: ast.AST, follow) -> Iterator[Report]:
    """The findings of the sizes ``follow`` finds ``value``, a ``/`` away from
    them, reaches."""
    divisions: List[ast.BinOp] = []
    grade = _python2_int(ctx, value, divisions)
    if not grade or not divisions:
        return
    found: List[Tuple[ast.Name, ast.Call, str, ast.AST]] = []
    follow(found)
    if not found:
        return
    src = ctx.source
    edits = _floor_edits(ctx, divisions)
    fix = Fix(tuple(edits), UNSAFE) if all(edits) else None  # type: ignore[arg-type]
    floor = f"`{shorten(_floored(ctx, value, edits), 40)}`" if fix else "`//`"
    for arg, call, name, scope in found:
        if grade == _OPEN and not _sizes_only(ctx, name, call, scope):
            continue
        yield Report(arg, (
            f"`{src.quote(arg, 30)}` is `{src.quote(value, 30)}` (line {value.lineno}), a float "
            f"on Python 3, {_refuses(name)}; Python 2's `/` of ints floored: use {floor} there"),
            fix)


def _floor_edits(ctx: Context, divisions: List[ast.BinOp]) -> List[Optional[Edit]]:
    return [_floor_edit(ctx, d) for d in sorted(divisions, key=lambda d: (d.lineno, d.col_offset))]


def _refuses(name: str) -> str:
    """Which ``name`` (what :func:`_sizes` named) refuses, and as what."""
    shown = name.rsplit(".", 1)[-1] if not name.startswith(".") else f"{name}(...)"
    return f"which `{shown}` refuses{'' if name == 'range' else ' as a size'} (TypeError)"
