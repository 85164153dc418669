"""TV132: a tensor built from a list or tuple of numpy arrays."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional

from ..analysis.context import Context
from ..analysis.environments import observation, observed
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.nodes import body_nodes
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.values import LIST, NDARRAY, values
from .shared.calls import keyword
from .type_comparison import name_bound_to

#: the constructors flagged, by qualified name
CONSTRUCTORS = ("torch.Tensor", "torch.FloatTensor", "torch.DoubleTensor", "torch.tensor")
#: numpy functions whose result is an array of one dimension or more
ARRAY_MAKERS = frozenset((
    "array", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "concatenate", "stack", "vstack", "hstack", "arange",
    "linspace", "eye", "identity", "tile",
))
#: ``numpy.random`` functions: the position of ``size`` (an array only when given);
#: ``rand``/``randn`` take the shape as their arguments
_RANDOM_SIZE = {
    "random": 0, "random_sample": 0, "normal": 2, "uniform": 2, "randint": 2, "choice": 1,
    "binomial": 2, "poisson": 1, "exponential": 1,
}
#: methods of an array that give an array of one dimension or more again
_ARRAY_METHODS = frozenset(("astype", "reshape", "flatten", "ravel", "copy"))
#: list methods that change a list other than by appending
_MUTATORS = frozenset(("extend", "insert", "__setitem__", "__iadd__"))


def _numpy_array(ctx: Context, node: ast.AST, depth: int = 0) -> bool:
    """Whether ``node`` is evidently a numpy array of one dimension or more."""
    if observation(ctx, node):  # (``env.reset()`` of a gym environment with a shape)
        return True
    found = values(ctx).of(node)  # (``env.reset()`` of ``gym.make('CartPole-v1')``,
    if found.kind == NDARRAY and found.rank:  # ``t.numpy()`` of a 1-D ``t``)
        return True
    if isinstance(node, ast.Call):
        func = node.func
        qualname = ctx.resolve(func) or ""
        if qualname.startswith("numpy."):
            name = qualname[len("numpy."):]
            if name in ("array", "asarray"):
                first = node.args[0] if node.args else None
                return first is not None and not isinstance(first, (ast.Constant, ast.UnaryOp))
            if name in ARRAY_MAKERS:
                return True
            if name in ("random.rand", "random.randn"):
                return bool(node.args)
            if name.startswith("random.") and name[7:] in _RANDOM_SIZE:
                return (len(node.args) > _RANDOM_SIZE[name[7:]]
                        or keyword(node, "size") is not None)
            return False
        if isinstance(func, ast.Attribute) and func.attr in _ARRAY_METHODS and not qualname:
            return _numpy_array(ctx, func.value, depth)
        return False
    if isinstance(node, ast.BinOp):  # ``np.zeros(2) + 0.1``, ``a * b`` of arrays
        sides = (node.left, node.right)
        return any(_numpy_array(ctx, side, depth) for side in sides) and all(
            _number(side) or _numpy_array(ctx, side, depth) for side in sides)
    if isinstance(node, ast.Name) and depth < 2:
        defs = ctx.flow().reaching(node)
        return bool(defs) and all(observed(ctx, d) or (
            d.kind == "assign" and d.value is not None
            and _numpy_array(ctx, d.value, depth + 1)) for d in defs)
    return False


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _arrays(ctx: Context, node: ast.AST, part: Optional[int] = None) -> bool:
    """Whether the list literal or comprehension ``node`` holds numpy arrays (with
    ``part``: tuples whose element ``part`` is one)."""
    def ok(elt: ast.AST) -> bool:
        if part is None:
            return _numpy_array(ctx, elt)
        return (isinstance(elt, ast.Tuple) and len(elt.elts) > part
                and not any(isinstance(e, ast.Starred) for e in elt.elts)
                and _numpy_array(ctx, elt.elts[part]))
    if isinstance(node, ast.ListComp):
        return ok(node.elt)
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(ok(e) for e in node.elts)
    return False


#: calls whose result holds elements of the list given first (``random.sample(memory, n)``)
_SELECTIONS = frozenset(("random.sample", "random.choices", "list", "sorted"))


def _selected_from(ctx: Context, value: ast.AST) -> Optional[ast.Name]:
    """The list whose elements ``value`` evidently holds: ``memory[-n:]``,
    ``random.sample(memory, n)``, ``list(memory)``."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        inner: Optional[ast.AST] = value.value
    elif isinstance(value, ast.Call) and value.args and not isinstance(
            value.args[0], ast.Starred) and (ctx.resolve(value.func) in _SELECTIONS or (
                isinstance(value.func, ast.Name) and value.func.id in ("list", "sorted")
                and not ctx.scope.binds(value.func.id))):
        inner = value.args[0]
    else:
        return None
    return inner if isinstance(inner, ast.Name) else None


def _appended(ctx: Context, name: ast.Name, part: Optional[int] = None,
              depth: int = 0) -> bool:
    """``name`` is bound to lists that start empty and only get numpy arrays
    appended in the function (or tuples whose element ``part`` is one), or to
    a selection of such a list's elements."""
    defs = ctx.flow().reaching(name)
    if not defs or any(d.kind != "assign" or d.value is None for d in defs):
        return False
    if len(defs) == 1 and depth < 2:
        source = _selected_from(ctx, defs[0].value)
        if source is not None and source.id != name.id:
            return _appended(ctx, source, part, depth + 1)
    empty = [d for d in defs if isinstance(d.value, ast.List) and not d.value.elts]
    if not all(_arrays(ctx, d.value, part) for d in defs if d not in empty):
        return False
    if not empty:
        return True
    scope = ctx.scope.function() or ctx.scope.module()
    appends: List[ast.AST] = []
    for node in body_nodes(scope.node):
        if isinstance(node, ast.AugAssign) and key(node.target) == name.id:
            return False
        if isinstance(node, ast.Subscript) and key(node.value) == name.id and not isinstance(
                node.ctx, ast.Load):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and key(
                node.func.value) == name.id:
            if node.func.attr in _MUTATORS:
                return False
            if node.func.attr == "append":
                if len(node.args) != 1 or node.keywords:
                    return False
                appends.append(node.args[0])
    if not appends:
        return False
    probe = ast.List(elts=appends, ctx=ast.Load())
    return _arrays(ctx, probe, part)


def _list_of_arrays(ctx: Context, seq: ast.AST) -> bool:
    """``seq`` is evidently a list or tuple of numpy arrays (of one dimension or more)."""
    if isinstance(seq, (ast.List, ast.Tuple, ast.ListComp)):
        return _arrays(ctx, seq)
    if not isinstance(seq, ast.Name):
        return False
    found = values(ctx).of(seq)  # (``states, returns = episode()``: a list it appended to)
    if found.kind == LIST and found.parts and found.parts[0].kind == NDARRAY \
            and found.parts[0].rank:
        return True
    defs = ctx.flow().reaching(seq)
    if not defs:
        return False
    if all(d.kind == "assign" for d in defs):
        return _appended(ctx, seq)
    if len(defs) != 1 or defs[0].kind != "unpack":
        return False
    return _unzipped(ctx, defs[0], seq.id)


def _unzipped(ctx: Context, d, name: str) -> bool:
    """``states, actions = zip(*batch)`` where the elements of ``batch`` are tuples
    whose element at ``name``'s place is a numpy array."""
    stmt, value = d.node, d.value
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Tuple) and isinstance(value, ast.Call)):
        return False
    if not (isinstance(value.func, ast.Name) and value.func.id == "zip"
            and not ctx.scope.binds("zip") and len(value.args) == 1 and not value.keywords
            and isinstance(value.args[0], ast.Starred)
            and isinstance(value.args[0].value, ast.Name)):
        return False
    elts = stmt.targets[0].elts
    if any(isinstance(e, ast.Starred) for e in elts):
        return False
    places = [i for i, e in enumerate(elts) if isinstance(e, ast.Name) and e.id == name]
    if len(places) != 1:
        return False
    return _appended(ctx, value.args[0].value, places[0])


@rule("TV132")
def numpy_list_tensor(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags a tensor built from a list or tuple of numpy arrays.

    ## What it does
    Flags ``torch.Tensor(seq)``, ``torch.FloatTensor(seq)``,
    ``torch.DoubleTensor(seq)`` and ``torch.tensor(seq, ...)`` (resolved
    through imports) where ``seq`` is evidently a list or tuple of numpy
    arrays of one dimension or more: a literal or a comprehension of them
    (``[np.array(s) for s in states]``), a name bound in the function only
    to such lists, or to an empty list that only gets such arrays appended,
    or one part of ``zip(*batch)`` where ``batch`` is such a list of tuples
    (``batch.append((np.array(state), action))``) or a selection of its
    elements (``random.sample(memory, n)``, ``memory[-n:]``, ``list(memory)``).
    An array is the result of
    a numpy function that makes one (``np.array(x)``, ``np.zeros(n)``,
    ``np.random.randn(n)``, ``np.random.normal(0, 1, size=n)``...), a method
    of one (``.astype(...)``, ``.reshape(...)``), arithmetic of arrays and
    numbers (``np.zeros(n) + 0.1``), an observation of a gym environment
    whose ``observation_space.shape`` the file reads (``env.reset()``, the
    first of what ``env.step(a)`` returns: a ``Box`` space's arrays; a
    ``Discrete`` space's ints are not flagged, and the file must import
    gym), or a name bound only to those; or what the value facts know to be
    an array of one dimension or more (``analysis/values.py``): an
    observation of ``gym.make('CartPole-v1')`` and the other ids whose
    observations are fixed arrays, ``t.numpy()`` of a tensor of known rank.  Lists of
    numpy *scalars* (``np.mean(x)``, ``np.random.randn()``) are not flagged:
    they do not warn.  (``np.array(x)`` of a name counts: were ``x`` a number,
    the list of 0-d arrays would raise ``TypeError: len() of unsized object``
    on 2.13, and ``np.array(...)`` first makes the tensor that was meant.)

    ## Why is this bad?
    On PyTorch 2.13 each such call warns ``UserWarning: Creating a tensor
    from a list of numpy.ndarrays is extremely slow. Please consider
    converting the list to a single numpy.ndarray with numpy.array() before
    converting to a tensor.``  (once per process): the elements are read one
    Python number at a time.  ``np.array(seq)`` first gives the same tensor.

    ## Example
    ```python
    states, actions = zip(*batch)
    states = torch.FloatTensor(states)
    ```

    Use instead:
    ```python
    states, actions = zip(*batch)
    states = torch.FloatTensor(np.array(states))
    ```

    ## Fix safety
    The fix wraps the sequence in ``np.array(...)``, with the name under
    which the file imports numpy (no fix when it does not).  It is *safe* for
    ``torch.Tensor``, ``torch.FloatTensor`` and ``torch.DoubleTensor``, whose
    dtype is fixed (``torch.Tensor`` of float64 arrays is float32 either way,
    checked on 2.13), and for ``torch.tensor(seq, dtype=...)``.  For
    ``torch.tensor(seq)`` without ``dtype`` it is *unsafe*: both ways keep a
    common dtype of the arrays (float64 stays float64), but a list that mixes
    dtypes is promoted differently (int64 and float32 arrays give float32
    from the list, float64 through numpy).
    """
    qualname = ctx.resolve(node.func)
    if qualname not in CONSTRUCTORS or len(node.args) != 1:
        return
    if isinstance(node.args[0], ast.Starred):
        return
    if qualname != "torch.tensor" and node.keywords:
        return
    if any(kw.arg is None for kw in node.keywords):
        return
    seq = node.args[0]
    if not _list_of_arrays(ctx, seq):
        return
    src = ctx.source
    numpy = name_bound_to(ctx, "numpy")
    fix = None
    if numpy is not None:
        safe = qualname != "torch.tensor" or keyword(node, "dtype") is not None
        text = src.text(seq)
        fix = Fix((src.replace(seq, f"{numpy}.array({text})"),), SAFE if safe else UNSAFE)
    shown = src.quote(seq, 30)
    suggestion = f"`{numpy or 'numpy'}.array({shown})` first"
    yield Report(
        node,
        f"a tensor built from a list of numpy arrays warns on PyTorch 2.13 "
        f"(extremely slow); convert it with {suggestion}",
        fix,
    )
