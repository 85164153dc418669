"""TV113: ``out=`` given to a tensor method, which only ``torch.*`` functions take."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..source.text import Edit, has_comment
from .shared.calls import keyword, plain_arguments, remove_argument
from .shared.tables import FUNCTIONS, SCALAR_FIRST_METHODS
from .type_comparison import torch_name

#: of those, the names numpy's ``ndarray`` (and scipy's sparse matrices) also has as
#: methods that take ``out=``: flagged only on an evident tensor
NDARRAY_METHODS = frozenset((
    "all", "any", "argmax", "argmin", "clip", "cumprod", "cumsum", "dot", "max", "mean",
    "min", "nonzero", "prod", "round", "std", "sum", "take", "var",
))
#: methods with an in-place form ``name_`` that does what ``x.name(..., out=x)`` did
_NO_INPLACE = frozenset((
    "all", "amax", "amin", "angle", "any", "argmax", "argmin", "bmm", "cholesky",
    "cholesky_inverse", "cholesky_solve", "cross", "diag", "diff", "dot", "fmax", "fmin",
    "gather", "ger", "hardshrink", "histc", "index_select", "inner", "inverse", "isneginf",
    "isposinf", "kron", "log_softmax", "logaddexp", "logaddexp2", "logcumsumexp",
    "logsumexp", "lu_solve", "masked_select", "matmul", "matrix_power", "max", "maximum",
    "mean", "median", "min", "minimum", "mm", "msort", "multinomial", "mv", "nanmean",
    "nanmedian", "nanquantile", "nansum", "narrow_copy", "nonzero", "orgqr", "ormqr",
    "outer", "prod", "quantile", "signbit", "slice_scatter", "softmax", "std", "sum",
    "take", "take_along_dim", "var", "vdot",
    # ``x.bernoulli_()`` draws with p=0.5; ``torch.bernoulli(x, out=x)`` with x's values
    "bernoulli",
))
#: methods only tensors have (a receiver made by one is a tensor)
_TENSOR_METHODS = (FUNCTIONS - NDARRAY_METHODS) | frozenset((
    "float", "double", "long", "int", "cuda", "cpu", "contiguous", "detach",
    "unsqueeze", "expand", "expand_as", "type_as", "permute", "masked_fill", "new",
))


def _evidently_tensor(ctx: Context, node: ast.AST, depth: int = 0) -> bool:
    """A call of a ``torch`` function, a method only tensors have, arithmetic
    with one of those, or a name every binding of which (in the function) is
    one of those."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and ctx.resolve(func.value) is None:
            return func.attr in _TENSOR_METHODS
        return (ctx.resolve(func) or "").startswith("torch.")
    if isinstance(node, ast.BinOp):  # ``torch.randn(5) * 3``
        return _evidently_tensor(ctx, node.left, depth) or _evidently_tensor(
            ctx, node.right, depth)
    if depth or not isinstance(node, (ast.Name, ast.Attribute)):
        return False
    defs = ctx.flow().reaching(node)
    return bool(defs) and all(
        d.kind == "assign" and d.value is not None and _evidently_tensor(ctx, d.value, 1)
        for d in defs)


@rule("TV113")
def method_out(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``out=`` given to a tensor method (``x.clamp(a, b, out=x)``).

    ## What it does
    Flags a method call ``X.name(..., out=Y)`` where ``name`` is one of the
    ``torch`` functions that take ``out=`` on PyTorch 2.13 with the tensor
    first (the table ``FUNCTIONS`` in the rule's module: ``add``, ``mul``,
    ``clamp``, ``sign``, ``exp``, ``addcmul``, ``index_select``, ``max``...),
    in a file that imports torch.  ``X`` must not resolve to a module
    (``torch.clamp(..., out=)``, ``np.clip(a, 0, 1, out=a)`` are functions),
    nor be ``self``/``cls``, and the file must define no method of that name
    with an ``out`` parameter.  For the names
    numpy arrays (and scipy sparse matrices) also have as methods with
    ``out=`` (``clip``, ``sum``, ``mean``, ``max``, ``cumsum``, ``round``...),
    ``X`` must evidently be a tensor: made by a ``torch`` call, by a method
    only tensors have (``x.sign()``, ``h.float()``), by arithmetic with one
    of those, or a name bound only to such values in the function.

    ## Why is this bad?
    PyTorch 0.3's tensor methods took ``out=``; the methods of today's
    tensors do not, only the ``torch.*`` functions.  On 2.13 the call raises
    ``TypeError``, and the program stops: ``x.mul(2, out=y)`` gives ``mul()
    got an unexpected keyword argument 'out'``, ``x.sign(out=y)`` gives
    ``Tensor.sign() takes no keyword arguments``, ``x.clamp(0, 1, out=x)``
    gives ``clamp() received an invalid combination of arguments - got (int,
    int, out=Tensor)``.

    ## Example
    ```python
    x.clamp(-1, 1, out=x)
    x.sign().mul(scale, out=y)
    ```

    Use instead:
    ```python
    x.clamp_(-1, 1)
    torch.mul(x.sign(), scale, out=y)
    ```

    ## Fix safety
    The fix is *safe*: ``X.name(args, out=Y)`` becomes ``torch.name(X, args,
    out=Y)``, the function the method stood for, with the same arguments in
    the same order and the same result written to ``Y`` (``torch`` is spelled
    as the file imports it, or imported).  Where ``Y`` is the receiver itself
    (the same name or attribute chain) and the method has an in-place form,
    it becomes ``X.name_(args)``, which writes the same values into ``X``
    (``bernoulli`` keeps the function form: ``x.bernoulli_()`` draws with
    probability 0.5, not with ``x``'s values).  0.3's scalar-first overload
    (``g.addcmul(lr, a, b, out=g)``, deprecated too: see TV126) gets the
    scalar as its keyword at the same time: ``g.addcmul_(a, b, value=lr)``.
    No fix when the call holds a comment where the edit goes, or has
    ``*args``/``**kwargs``.
    """
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in FUNCTIONS:
        return
    out = keyword(node, "out")
    if out is None or not ctx.imports_torch:
        return
    receiver = func.value
    if ctx.resolve(receiver) is not None:
        return  # ``torch.clamp(...)``, ``np.clip(...)``, ``scipy.special.x(...)``
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
        return
    name = func.attr
    if f"def {name}(" in ctx.text and re.search(rf"def {name}\([^)]*\bout\b", ctx.text):
        return  # a method of the file's own that takes ``out``
    if name in NDARRAY_METHODS and not _evidently_tensor(ctx, receiver):
        return
    src = ctx.source
    recv_text = src.text(receiver)
    same = key(receiver) is not None and key(receiver) == key(out.value)
    fix = None
    scalar_first = SCALAR_FIRST_METHODS.get(name)
    if scalar_first is not None and len(node.args) == scalar_first[0]:
        # ``g.addcmul(lr, a, b, out=g)``: 0.3's scalar-first overload, deprecated
        # too (TV126): the fix also moves the scalar to its keyword
        suggestion, fix = _scalar_first(ctx, node, out, same, scalar_first[1])
    elif same and name not in _NO_INPLACE:
        suggestion = f"{recv_text}.{name}_(...)` without `out=`"
        removed = remove_argument(ctx, node, out)
        line, col = src.end(func)
        if removed is not None and plain_arguments(node) and src.text(func).endswith(name):
            fix = Fix((Edit((line, col), (line, col), "_"), removed), SAFE)
    else:
        torch, imports = torch_name(ctx)
        suggestion = f"{torch}.{name}({recv_text}, ..., out=...)`"
        fix = _function_form(ctx, node, f"{torch}.{name}", imports)
    yield Report(
        node,
        f"a tensor method takes no `out=` since PyTorch 0.4 (TypeError); use `{suggestion}",
        fix,
    )


def _scalar_first(ctx: Context, node: ast.Call, out: ast.keyword, same: bool, word: str):
    """``g.addcmul(v, a, b, out=y)`` -> ``torch.addcmul(g, a, b, value=v, out=y)``
    (``g.addcmul_(a, b, value=v)`` when ``y`` is ``g``): the suggestion, the fix."""
    src = ctx.source
    func = node.func
    receiver = func.value  # type: ignore[attr-defined]
    name = func.attr  # type: ignore[attr-defined]
    scalar, *rest = (src.text(a) for a in node.args)
    others = [src.text(kw) for kw in node.keywords if kw is not out]
    parts = [*rest, *others, f"{word}={scalar}"]
    if same:
        text = f"{src.text(receiver)}.{name}_({', '.join(parts)})"
        imports: tuple = ()
    else:
        torch, imports = torch_name(ctx)
        text = f"{torch}.{name}({', '.join([src.text(receiver), *parts, src.text(out)])})"
    fix = None
    if plain_arguments(node) and not has_comment(src.text(node)):
        fix = Fix((src.replace(node, text),), SAFE, imports)
    return f"{' '.join(text.split())}`", fix


def _function_form(ctx: Context, node: ast.Call, function: str, imports) -> Optional[Fix]:
    """``X.name(args, out=Y)`` -> ``torch.name(X, args, out=Y)``."""
    if not plain_arguments(node):
        return None
    src = ctx.source
    items = sorted([*node.args, *node.keywords], key=lambda n: (n.lineno, n.col_offset))
    head = src.between(src.start(node), src.start(items[0]))
    receiver = node.func.value  # type: ignore[attr-defined]
    gap = src.between(src.end(node.func), src.start(items[0]))
    if has_comment(head) or gap.strip() != "(":
        return None
    text = src.text(receiver)
    if isinstance(receiver, (ast.NamedExpr, ast.Starred)):
        text = f"({text})"
    return Fix((Edit(src.start(node), src.start(items[0]), f"{function}({text}, "),),
               SAFE, imports)
