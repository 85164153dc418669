"""TV141: ``type(y)`` as "a tensor of y's type", which is ``torch.Tensor`` since PyTorch 0.4."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.canonical import LEGACY_TENSOR_TYPES
from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.nodes import words
from ..analysis.registry import rule
from ..analysis.resolve import builtin_call, key
from ..source.text import Edit, has_comment, needs_parens, shorten
from .variable_wrap import FACTORIES

#: torch calls whose result was a plain tensor under 0.3, whatever their arguments
_TENSOR_CALLS = FACTORIES | LEGACY_TENSOR_TYPES | frozenset(("torch.Tensor", "torch.from_numpy"))
#: words of a receiver whose ``.data`` is a container, not a tensor
_CONTAINER_WORDS = frozenset(("self", "cls", "dataset", "batch", "sample", "record", "loader"))
#: tensor methods whose result is a tensor of the same kind as their receiver
_SAME_KIND = frozenset((
    "cpu", "cuda", "float", "double", "half", "long", "int", "byte", "short", "char",
    "contiguous", "clone", "view", "view_as", "reshape", "squeeze", "unsqueeze", "t",
    "transpose", "permute", "expand", "expand_as", "narrow", "select", "index_select",
    "type_as", "new", "resize_", "zero_", "fill_",
))
_MAX_DEPTH = 4
_TYPE_CALL = re.compile(r"^(\)*\s*\.\s*)type(\s*\(\s*)$")


@rule("TV141")
def tensor_type_of(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``x.type(type(y))`` and ``type(y)(...)`` where ``y`` is evidently a tensor.

    ## What it does
    Flags ``x.type(type(y))`` (a conversion to "y's type") and ``type(y)(...)``
    (a constructor of "a new tensor of y's type") where ``type`` is the
    builtin and ``y`` is evidently a plain tensor of 0.3: ``E.data`` (not
    ``self.data``, ``dataset.data``, ``batch.data``: containers), also
    followed by ``.cpu()``, ``.cuda()``, ``.float()`` and other methods that
    keep a tensor a tensor; a torch factory or legacy
    type call (``torch.zeros(...)``, ``torch.FloatTensor(...)``,
    ``torch.from_numpy(...)``), or a name every binding of which, in the same
    function, is one of those.  Only in a file that works with torch.
    ``type(y)`` of anything else (a model output, which was a ``Variable``
    under 0.3; a parameter; a number), ``type(y)`` compared (TV005) and
    ``x.type(torch.FloatTensor)`` are left alone.

    ## Why is this bad?
    Since PyTorch 0.4 ``type(t)`` is ``torch.Tensor`` for every tensor,
    whatever its dtype or device.  ``x.type(type(y))`` converts ``x`` to the
    default type (``float32`` on the CPU) instead of ``y``'s, and
    ``type(y)(3)`` builds an uninitialized CPU ``float32`` tensor: a
    ``double`` or CUDA ``y`` (old copies of ssd.pytorch moving their prior
    boxes with ``self.priors.type(type(x.data))``) silently gets the wrong
    dtype or device.

    ## Example
    ```python
    priors = self.priors.type(type(x.data))
    buf = type(x.data)(x.size(0), 4)
    ```

    Use instead:
    ```python
    priors = self.priors.type_as(x.data)
    buf = x.data.new(x.size(0), 4)
    ```

    ## Fix safety
    *safe*: ``x.type_as(y)`` and ``y.new(...)`` give ``y``'s dtype and device,
    which is what ``type(y)`` named for a tensor under 0.3 (``y.new`` also
    existed in 0.3).  A call whose text holds a comment, or whose shape is
    unusual (keywords, ``*args``), gets the advice but no fix.
    """
    if not ctx.uses_torch:
        return
    func = node.func
    # x.type(type(y))
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "type"
        and len(node.args) == 1
        and not node.keywords
    ):
        inner = _type_of(ctx, node.args[0])
        if inner is not None and evidently_tensor(ctx, inner):
            yield _conversion(ctx, node, inner)
        return
    # type(y)(...)
    inner = _type_of(ctx, func)
    if inner is not None and evidently_tensor(ctx, inner):
        yield _constructor(ctx, node, inner)


def _type_of(ctx: Context, node: ast.AST) -> Optional[ast.AST]:
    """``y`` for a call of the builtin ``type(y)``."""
    if builtin_call(node, ctx.scope, "type", 1):
        return node.args[0]
    return None


def evidently_tensor(ctx: Context, node: ast.AST, depth: int = 0) -> bool:
    """Whether ``node`` was a plain tensor (not a ``Variable``) under 0.3."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, ast.Attribute):
        if node.attr != "data" or ctx.resolve(node) is not None:
            return False
        receiver = key(node.value)
        return receiver is not None and not (
            set(words(receiver.rsplit(".", 1)[-1])) & _CONTAINER_WORDS
            or receiver in ("self", "cls")
        )
    if isinstance(node, ast.Call):
        func = node.func
        name = ctx.resolve(func)
        if name is not None:
            return name in _TENSOR_CALLS
        if isinstance(func, ast.Attribute) and func.attr in _SAME_KIND:
            return evidently_tensor(ctx, func.value, depth + 1)
        return False
    if isinstance(node, ast.Name):
        flow = ctx.flow()
        defs = flow.reaching(node)
        if not defs:
            return False
        return all(
            getattr(d, "kind", None) == "assign" and d.value is not None
            and evidently_tensor(ctx, d.value, depth + 1)
            for d in defs
        )
    return False


def _conversion(ctx: Context, node: ast.Call, y: ast.AST) -> Report:
    src = ctx.source
    func = node.func
    y_text = src.text(y)
    quoted = src.quote(node, 40)
    between = src.between(src.end(func.value), src.start(node.args[0]))
    match = _TYPE_CALL.match(between)
    if match is not None:
        receiver = src.between(src.start(node), src.end(func.value))
        receiver += match.group(1).split(".")[0].rstrip()
    else:
        receiver = src.text(func.value)
        if needs_parens(func.value, ast.Attribute, src):
            receiver = f"({receiver})"
    new = shorten(f"{receiver}.type_as({y_text})", 45)
    message = (f"`{quoted}` converts to float32 since PyTorch 0.4 "
               f"(`type(t)` is `torch.Tensor`); use `{new}`")
    tail = src.between(src.end(node.args[0]), src.end(node))
    if match is None or has_comment(src.text(node)) or tail.strip() != ")":
        return Report(node, message)
    (line, col) = src.end(func.value)
    start = (line, col + len(match.group(1))) if "\n" not in match.group(1) else None
    if start is None:
        return Report(node, message)
    edits = (
        Edit(start, (start[0], start[1] + len("type")), "type_as"),
        src.replace(node.args[0], y_text),
    )
    return Report(node, message, Fix(edits, SAFE))


def _constructor(ctx: Context, node: ast.Call, y: ast.AST) -> Report:
    src = ctx.source
    y_text = src.text(y)
    if needs_parens(y, ast.Attribute, src):
        y_text = f"({y_text})"
    new = f"{y_text}.new"
    quoted = src.quote(node, 40)
    message = (f"`{quoted}` builds a float32 CPU tensor since PyTorch 0.4 "
               f"(`type(t)` is `torch.Tensor`); use `{shorten(new, 35)}(...)`")
    if has_comment(src.text(node.func)) or node.keywords:
        return Report(node, message)
    return Report(node, message, Fix((src.replace(node.func, new),), SAFE))
