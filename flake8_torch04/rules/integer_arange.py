"""TV152: ``torch.arange`` of integers, a FloatTensor on 0.3 and int64 since 0.4."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.era import file_is_legacy
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.nodes import body_nodes
from ..analysis.project.importers import mentioned_by
from ..analysis.registry import rule
from ..analysis.value_tables import CASTS
from ..analysis.values import NUMBER, Value, values
from ..source.text import has_comment, shorten
from .data_inplace import spelled
from .shared.calls import append_arguments, plain_arguments

#: the argument keywords 0.3's ``arange`` took besides ``out=``
_BOUNDS = ("start", "end", "step")
#: methods whose result keeps the values and the integer dtype of their receiver
_SHAPE = frozenset((
    "view", "view_as", "reshape", "unsqueeze", "squeeze", "repeat", "expand", "expand_as",
    "contiguous", "t", "transpose", "permute", "flip", "clone", "cuda", "cpu", "narrow",
))
#: casts: the result's dtype is the cast's, whatever the receiver's (the value
#: facts' casts, and those to a dtype the call names)
_CASTS = frozenset(CASTS) | {"type", "type_as", "to"}
#: functions and methods whose results are floats computed from the converted values
#: (the same numbers from int64 as from 0.3's floats)
_FLOATING = frozenset((
    "exp", "log", "sin", "cos", "tan", "sqrt", "rsqrt", "sigmoid", "tanh", "log1p", "expm1",
))
#: functions and methods taking an index tensor (which must be int64)
_INDEXING = frozenset((
    "index_select", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "take",
    "index_add", "index_add_", "index_copy", "index_copy_", "index_fill", "index_fill_",
    "put_", "index", "index_put_",
))
#: a name assigned the result is followed this many assignments deep
_DEPTH = 3
#: the calls that change the default tensor type (0.3's ``arange`` gave that type)
_DEFAULTS = (
    ("set_default_tensor_type", re.compile(r"\bset_default_tensor_type\b")),
    ("set_default_dtype", re.compile(r"\bset_default_dtype\b")),
)


def _bound(value: Value) -> Optional[bool]:
    """Whether a bound of ``arange`` is an integer: ``True`` where evident, ``False``
    where it is evidently something else, ``None`` where unknown."""
    if value.dtype == "int" and (value.kind == NUMBER or value.tensor):
        return True
    if value.kind is None or value.dtype is None and (value.kind == NUMBER or value.tensor):
        return None
    return False


def _float(value: Value) -> bool:
    return value.dtype == "float" and (value.kind == NUMBER or value.tensor)


@rule("TV152")
def integer_arange(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.arange`` of integers without ``dtype=`` in PyTorch 0.3 code.

    ## What it does
    Flags ``torch.arange(end)``, ``torch.arange(start, end[, step])``, resolved
    through imports, with no ``dtype=`` and no ``out=``, where one argument is
    evidently an int (an int constant, ``len(...)``, a name or an expression
    the value facts say is an int or an integer tensor: see "How values are
    followed" in docs/how-it-works.md) and none is evidently anything else
    (``torch.arange(1, dataset.num_classes + 1)`` is flagged, ``torch.arange(0,
    1, 0.1)`` is not).  An argument of unknown type cannot make the fix wrong:
    0.3's result was a FloatTensor whatever the arguments were.  Only in 0.3
    code: the file itself shows 0.3 idioms, or the configuration says so (see
    ``analysis/era.py``); the evidence of another module of its project is not
    enough, since the fix
    changes what code written for 0.4 computes (torch's own sources mix
    both: a test there asks for ``torch.arange(n)`` of int64).
    Not flagged where the dtype does not matter: the result (followed
    through ``view``, ``unsqueeze``, ``repeat``..., ``Variable``, a helper of
    the file or the project that returns its argument (``to_gpu(t)``), arithmetic
    with a value not evidently a float (an int keeps int64, a float gives 0.3's
    float: either way the values are 0.3's) and a name it is assigned to,
    every read of it) cast
    (``.long()``, ``.float()``, ``.type(...)``, ``.type_as(...)``, ``.to(...)``)
    or turned into floats by arithmetic with a float, a ``/`` or
    ``exp``/``log``/``sin``... (which give the same numbers from int64 as
    from 0.3's floats); nor where int64 is what the code needs: a use as a
    subscript index, as the index of ``index_select``/``gather``/``scatter``...,
    or as the sequence of a ``for`` loop (0.3 refused a float index: such
    code was written for 0.4 or later).  Position: the call.

    ## Why is this bad?
    On PyTorch 0.3 ``torch.arange`` returned the default tensor type, a
    ``FloatTensor``, whatever its arguments.  Since 0.4 integer arguments give
    an ``int64`` tensor.  Code written for the float then stops or computes
    something else on 2.13: ``torch.dot(torch.arange(1, n + 1), probs)``
    raises ``RuntimeError: dot : expected both vectors to have same dtype, but
    found Long and Float`` (``mv``/``mm``/``matmul`` likewise), ``.mean()``
    raises ``RuntimeError: mean(): could not infer output dtype. Input dtype
    must be either a floating point or complex dtype. Got: Long``, an in-place
    float update (``x.mul_(0.5)``) raises ``RuntimeError: result type Float
    can't be cast to the desired output type Long``, a float written into it
    (``x[0] = 0.5``) is silently truncated, and it prints (and ``//``, ``%``,
    ``tolist()`` give) integers.

    ## Example
    ```python
    scores = torch.arange(1, num_classes + 1)
    expected = torch.dot(scores, probs)
    ```

    Use instead:
    ```python
    scores = torch.arange(1, num_classes + 1, dtype=torch.float)
    expected = torch.dot(scores, probs)
    ```

    ## Fix safety
    The fix adds ``dtype=torch.float``: 0.3's result exactly.  0.3 computed
    each element in double precision (``start + i * step``) and stored it as a
    float, as 2.13 does for ``dtype=torch.float``, with the same number of
    elements (``ceil((end - start) / step)``): integers above 2**24 lose
    precision in both alike.  Code that worked on 0.3 took the float as it
    was (0.3 refused to mix a ``FloatTensor`` with a ``LongTensor``, and
    needed ``.long()`` for an index), so it works with the float again.  Where
    the file or another module of its project calls
    ``torch.set_default_tensor_type`` or ``torch.set_default_dtype``, 0.3's
    result had the default type, and the fix writes
    ``dtype=torch.get_default_dtype()``.  The fix is *safe*.
    """
    if ctx.resolve(node.func) != "torch.arange":
        return
    args = list(node.args) + [kw.value for kw in node.keywords]
    if not args or len(args) > 3 or not plain_arguments(node) \
            or any(kw.arg not in _BOUNDS for kw in node.keywords):
        return
    if not file_is_legacy(ctx):
        return
    facts = values(ctx)
    bounds = [_bound(facts.of(a)) for a in args]
    if False in bounds or True not in bounds:
        return
    scope = ctx.scope.function() or ctx.scope.module()
    if _use(ctx, node, scope.node, ctx.file_parents(), _DEPTH) != MATTERS:
        return
    src = ctx.source
    func = node.func
    torch_name, imports = (src.text(func.value), ()) if isinstance(func, ast.Attribute) \
        else spelled(ctx, "torch")
    default = _default_changed(ctx)
    dtype = f"dtype={torch_name}.get_default_dtype()" if default else f"dtype={torch_name}.float"
    edit = append_arguments(ctx, node, dtype)
    fix = None
    if edit is not None and not has_comment(src.text(node)):
        fix = Fix((edit,), SAFE, imports)
    call = src.text(node)
    shown = call[:-1].rstrip() + (", " if args else "") + dtype + ")"
    if "\n" in call or len(shown) > 70:  # (the call elided, not the suggestion cut)
        shown = f"{shorten(src.text(node.func), 20)}(..., {dtype})"
    why = f" ({default} changes the default type)" if default else ""
    yield Report(
        node,
        f"`{shorten(call, 40)}` of integers gave a FloatTensor on PyTorch 0.3 and gives "
        f"int64 since 0.4 (`torch.dot`/`mm` with a float tensor and `.mean()` raise); "
        f"use `{shown}` for 0.3's result{why}",
        fix,
    )


def _default_changed(ctx: Context) -> Optional[str]:
    """The call that changes the default tensor type, where the file or another
    module of its project spells one (once per file)."""
    found = ctx.memo.get("TV152 default", False)
    if found is False:
        found = None
        for name, pattern in _DEFAULTS:
            if pattern.search(ctx.text) or mentioned_by(ctx.filename, pattern, name):
                found = f"`{name}`"
                break
        ctx.memo["TV152 default"] = found
    return found  # type: ignore[return-value]


#: what a use of the integer tensor makes of it: its dtype does not matter (a cast,
#: a float result), int64 is needed (an index, a loop over it), or 0.3's float matters
CAST, INDEX, MATTERS = "cast", "index", "matters"


def _use(ctx: Context, node: ast.AST, scope: ast.AST, parents: dict, depth: int) -> str:
    """What the uses of ``node``'s value (an integer tensor made by ``arange``)
    make of it (see the docstring), followed through shape methods, arithmetic
    with a value not evidently a float, ``Variable`` and a name it is assigned to."""
    facts = values(ctx)
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = parents.get(id(parent))
            if not (isinstance(call, ast.Call) and call.func is parent):
                return MATTERS
            if parent.attr in _CASTS or parent.attr in _FLOATING:
                return CAST
            if parent.attr not in _SHAPE:
                return MATTERS
            node = call
        elif isinstance(parent, ast.Call) and node in parent.args:
            name = ctx.resolve(parent.func) or ""
            if name == "torch.autograd.Variable" and parent.args[0] is node \
                    or not name and facts.passed_through(parent, scope) is node:
                node = parent  # (``Variable(t)``, ``cuda(t, gpu_id=...)``: ``t`` again)
                continue
            last = name.rsplit(".", 1)[-1] if name.startswith("torch.") else ""
            if last in _FLOATING and parent.args[0] is node:
                return CAST
            attr = parent.func.attr if isinstance(parent.func, ast.Attribute) else ""
            return INDEX if last in _INDEXING or not name and attr in _INDEXING else MATTERS
        elif isinstance(parent, ast.keyword) and parent.arg == "index":
            return INDEX  # (``x.index_select(0, index=idx)``)
        elif isinstance(parent, ast.Subscript):
            return INDEX if parent.slice is node else MATTERS
        elif isinstance(parent, ast.Tuple):  # (``x[:, idx]``)
            above = parents.get(id(parent))
            return INDEX if isinstance(above, ast.Subscript) and above.slice is parent \
                else MATTERS
        elif isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            return INDEX
        elif isinstance(parent, ast.BinOp):
            other = parent.right if parent.left is node else parent.left
            if isinstance(parent.op, ast.Div) or _float(facts.of(other)):
                return CAST
            if isinstance(parent.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)) \
                    and _bound(facts.of(other)) is not False:  # (int, or float: followed)
                node = parent
                continue
            return MATTERS
        elif isinstance(parent, ast.Assign) and depth > 0 and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Name):
            return _reads(ctx, parent, scope, parents, depth - 1)
        else:
            return MATTERS


def _reads(ctx: Context, assign: ast.Assign, scope: ast.AST, parents: dict,
           depth: int) -> str:
    """What the reads of the name ``assign`` binds, where it reaches them, make of
    its value: :data:`INDEX` if one needs int64, :data:`MATTERS` if one needs
    0.3's float (or cannot be told), else :data:`CAST`."""
    name = assign.targets[0].id  # type: ignore[attr-defined]
    flow = ctx.flow_of(scope)
    found = CAST
    for read in body_nodes(scope):
        if isinstance(read, ast.Name) and read.id == name and isinstance(read.ctx, ast.Load):
            defs = flow.reaching(read)
            if defs is None:
                return MATTERS
            if any(d.node is assign for d in defs):
                use = _use(ctx, read, scope, parents, depth)
                if use == INDEX:
                    return INDEX
                if use == MATTERS:
                    found = MATTERS
    return found
