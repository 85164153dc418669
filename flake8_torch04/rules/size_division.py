"""TV149: Python 2's ``/`` of two ints given to torch as a size."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Tuple

from ..analysis.canonical import LEGACY_TENSOR_TYPES
from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
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


def _sizes(ctx: Context, node: ast.Call) -> Tuple[Optional[str], List[ast.AST]]:
    """What ``node`` builds or calls, and its size arguments (where they are torch's)."""
    func = node.func
    name = ctx.resolve(func)
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
        receiver = values(ctx).of(func.value)
        if receiver.kind == TENSOR or receiver.kind is None and func.attr in _METHODS:
            return f".{func.attr}", list(node.args)
    return None, []


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


def _python2_int(ctx: Context, node: ast.AST, divisions: List[ast.BinOp]) -> bool:
    """Whether ``node`` is evidently a Python int on Python 2, where ``/`` of two
    ints is an int: an int literal, a name or expression the value facts know
    to be an int, or ``+ - * / // %`` of such; its divisions go to ``divisions``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _INT_OPS) and _has_division(node):
        if not (_python2_int(ctx, node.left, divisions)
                and _python2_int(ctx, node.right, divisions)):
            return False
        if isinstance(node.op, ast.Div):
            divisions.append(node)
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _python2_int(ctx, node.operand, divisions)
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    value = values(ctx).of(node)
    return value.kind == NUMBER and value.dtype == "int"


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
def size_division(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags Python 2's ``/`` of two ints given to torch as a size.

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
    ``reshape`` and ``repeat`` (of an evident tensor: numpy arrays have them too).
    An item of a tuple or list given there counts too (``x.view((n, c / 2))``).
    Both operands of the ``/`` must be evidently Python ints: int literals, or
    what the value facts know to be an int (see "How values are followed" in
    docs/how-it-works.md: ``len(...)``, ``x.size(0)``, a parameter of a module
    class's ``__init__`` where the file builds the class with ints), or
    ``+ - * / // %`` of such.  Layers and functions are torch's, resolved through
    imports.  Not in a file that says ``from __future__ import division``.
    Position: the size argument.

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
    'kernel_size' (position 2) must be tuple of ints, not float``.

    Not flagged: ``range(...)``, indices, slices and other plain Python code
    (this is a torch migration tool: Python 2 code has more to migrate than its
    torch sizes); an operand that is not evidently an int (a float, an unknown
    name, an attribute of an unknown object); ``//``; a division that is no
    size (``nn.Dropout(p / 2)``, ``torch.full((n,), a / b)``); a layer that is
    not torch's (a project's own ``Linear``); ``InstanceNormNd`` without weights
    or running statistics, whose size makes no tensor and so takes a float.

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
    ``-7 // 2`` is).  It is *safe*: both operands are evidently ints, and the
    place takes only ints, so on Python 3 the code raised there and nothing that
    ran changes.  A ``/`` next to a comment is left to a person.
    """
    if not plain_arguments(node) or not any(
            _has_division(a) for a in (*node.args, *(k.value for k in node.keywords))):
        return
    if _true_division(ctx):
        return
    name, sizes = _sizes(ctx, node)
    src = ctx.source
    for size in sizes:
        for item in size.elts if isinstance(size, (ast.Tuple, ast.List)) else (size,):
            if not _has_division(item):
                continue
            divisions: List[ast.BinOp] = []
            if not _python2_int(ctx, item, divisions) or not divisions:
                continue
            edits = [_floor_edit(ctx, d) for d in sorted(
                divisions, key=lambda d: (d.lineno, d.col_offset))]
            fix = Fix(tuple(edits), SAFE) if all(edits) else None  # type: ignore[arg-type]
            shown = name.rsplit(".", 1)[-1] if name and not name.startswith(".") else name
            what = f"`{shown}`" if not (name or "").startswith(".") else f"`{name}(...)`"
            floor = shorten(_floored(ctx, item, edits), 40) if fix else None  # type: ignore
            yield Report(
                item,
                f"`{src.quote(item, 30)}` of ints was floor division on Python 2 and is a "
                f"float on Python 3, which {what} refuses as a size (TypeError); use "
                f"{f'`{floor}`' if floor else '`//`'}",
                fix,
            )
