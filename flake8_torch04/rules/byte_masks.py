"""TV129: uint8 (byte) masks used to index or to mask."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import values
from ..source.text import Edit, has_comment, needs_parens, shorten
from .shared.calls import keyword, method_call

_BYTE_TYPES = ("torch.ByteTensor", "torch.cuda.ByteTensor")
_UINT8 = "torch.uint8"
#: mask-taking methods -> the position of the mask
_METHODS = {"masked_fill": 0, "masked_fill_": 0, "masked_select": 0, "masked_scatter": 0,
            "masked_scatter_": 0, "where": 0}
#: mask-taking functions -> the position of the mask
_FUNCTIONS = {"torch.masked_select": 1, "torch.where": 0}
#: what a file must say for a byte value to be made in it
_BYTE_TEXT = re.compile(r"\bbyte\b|ByteTensor|uint8")
#: or a masking call (whose mask a helper of the project may make): the gate's
#: precondition is either (``rules.TABLE``)
_MASKING = r"\bmasked_(?:fill|select|scatter)"
_MASKING_METHODS = ("masked_fill", "masked_select", "masked_scatter")


def _byte_call(ctx: Context, node: ast.Call) -> Optional[str]:
    """How a call makes a byte tensor: ``"byte"`` for ``E.byte()``, ``"dtype"`` for
    a ``dtype=torch.uint8`` keyword, ``"other"`` for other evidence; else ``None``."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "byte" and not node.args and (
            not node.keywords) and ctx.resolve(func) is None:
        return "byte"
    if ctx.resolve(func) in _BYTE_TYPES:
        return "other"
    dtype = keyword(node, "dtype")
    if dtype is not None and ctx.resolve(dtype.value) == _UINT8:
        return "dtype"
    if isinstance(func, ast.Attribute) and func.attr in ("type", "to") and len(node.args) == 1:
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and arg.value in _BYTE_TYPES:
            return "other"
        if ctx.resolve(arg) in _BYTE_TYPES + (_UINT8,):
            return "other"
    return None


def _mask(ctx: Context, node: ast.AST) -> Optional[ast.AST]:
    """The mask of an indexing or of a masking call."""
    if isinstance(node, ast.Subscript):
        return node.slice if isinstance(node.ctx, (ast.Load, ast.Store)) else None
    func = node.func
    if any(isinstance(a, ast.Starred) for a in node.args):
        return None
    qualname = ctx.resolve(func)
    if qualname in _FUNCTIONS:
        index = _FUNCTIONS[qualname]
    elif qualname is None and isinstance(func, ast.Attribute) and func.attr in _METHODS:
        index = _METHODS[func.attr]
    else:
        return None
    if len(node.args) > index:
        return node.args[index]
    kw = keyword(node, "mask") or keyword(node, "condition")
    return kw.value if kw is not None else None


@rule("TV129")
def byte_masks(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags uint8 (byte) masks used to index a tensor or to mask it.

    ## What it does
    Flags a mask that is evidently a uint8 tensor by the value facts
    (``analysis/values.py``) -- ``E.byte()``, ``torch.ByteTensor(...)``, a
    factory given ``dtype=torch.uint8``, ``E.type(torch.ByteTensor)``,
    ``E.to(torch.uint8)``, ``1 - m`` or ``m1 & m2`` of such masks, dtype-keeping
    methods of them (``.view(...)``, ``.expand(...)``, ``.cuda()``...),
    ``Variable(...)`` of them, followed through assignments and through the
    functions of the file and of the project's other modules that return one
    (``mask = get_pad_mask(seq)`` imported from ``utils``), and into a
    parameter every caller in the project gives one (also in a helper module
    that does not import torch: ``scores.masked_select(mask)``) --
    when it is used as an index ``x[mask]`` (in a file that says ``byte``) or
    as the mask of ``masked_fill``, ``masked_fill_``, ``masked_select``,
    ``masked_scatter``, ``masked_scatter_``, ``torch.where`` or
    ``E.where``.  Position: the mask.  Boolean masks (comparisons, which
    give ``torch.bool`` since PyTorch 1.2) are fine.

    ## Why is this bad?
    Until PyTorch 1.2 masks were ``uint8``.  On PyTorch 2.13 indexing with one
    warns ``UserWarning: indexing with dtype torch.uint8 is now deprecated,
    please use a dtype torch.bool instead.``, ``torch.where`` warns too, and
    ``masked_fill_`` (also ``x[mask] = v``), ``masked_select`` and
    ``masked_scatter`` raise ``RuntimeError: masked_fill_ only supports
    boolean masks``.  A comparison written into a uint8 tensor by a tensor
    index raises ``RuntimeError: Index put requires the source and destination
    dtypes match, got Byte for the destination and Bool for the source``.

    Also flags a comparison written by a tensor index into such a uint8 tensor
    (``running[idx] = (out != eos)``): the comparison was a uint8 tensor on 0.3
    and is a boolean one since 1.2, and indexed assignment does not convert.
    Position: the comparison.

    ## Example
    ```python
    mask = (target > 0).byte()
    x.masked_fill_(mask, 0)
    selected = scores[(labels == c).byte()]
    running[idx] = (out != eos)
    ```

    Use instead:
    ```python
    mask = (target > 0).byte()
    x.masked_fill_(mask.bool(), 0)
    selected = scores[(labels == c).bool()]
    running[idx] = (out != eos).byte()
    ```

    ## Fix safety
    The fix is *safe*: a boolean mask selects what the byte mask selected
    (every non-zero byte counts as true).  ``E.byte()`` written at the use
    becomes ``E.bool()`` and ``dtype=torch.uint8`` there becomes
    ``dtype=torch.bool``; a mask held in a name gets ``.bool()`` at the use,
    since the name may also be used as a number (``1 - mask``, which a
    boolean tensor does not support).  A comparison written into a uint8
    tensor gets ``.byte()``: the uint8 values 0.3 wrote (*safe*).
    """
    found = ctx.memo.get("TV129")
    if found is None:
        text = ctx.text  # (``in`` first: much faster than the search, which needs one)
        found = ctx.memo["TV129"] = ctx.uses_torch and ("yte" in text or "uint8" in text) \
            and bool(_BYTE_TEXT.search(text))
    if not found and not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                          and node.func.attr.startswith(_MASKING_METHODS)):
        return  # (a file that never says byte, or a helper module without torch: only a
        # masking method's mask, which a caller in the project may make)
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
        report = _stored_comparison(ctx, node)
        if report is not None:
            yield report
    mask = _mask(ctx, node)
    if mask is None or isinstance(mask, (ast.Slice, ast.Tuple, ast.Constant)):
        return
    value = values(ctx).of(mask)
    if not (value.tensor and value.dtype == "uint8"):
        return
    how = _byte_call(ctx, mask) if isinstance(mask, ast.Call) else None
    src = ctx.source
    text = src.text(mask)
    edit = None
    if how == "byte":
        line, col = src.end(mask.func)
        edit = Edit((line, col - len("byte")), (line, col), "bool")
        new = text[:len(src.text(mask.func)) - len("byte")] + "bool" + text[
            len(src.text(mask.func)):]
    elif how == "dtype" and isinstance(keyword(mask, "dtype").value, ast.Attribute):
        value = keyword(mask, "dtype").value
        line, col = src.end(value)
        edit = Edit((line, col - len("uint8")), (line, col), "bool")
        new = text.replace("uint8", "bool")
    else:
        wrapped = f"({text})" if needs_parens(mask, ast.Attribute, src) else text
        new = f"{wrapped}.bool()"
        if not has_comment(text):
            edit = src.replace(mask, new)
    fix = Fix((edit,), SAFE) if edit is not None else None
    if isinstance(node, ast.Subscript):
        where = "an index"
    else:  # (the method's own name: a quote of a long receiver is cut before it)
        func = node.func
        where = "the mask of " + (func.attr if isinstance(func, ast.Attribute)
                                  else src.quote(func, 30))
    yield Report(mask, f"`{src.quote(mask, 30)}` is a uint8 mask used as {where}, deprecated "
                       f"since PyTorch 1.2 (warns or raises on 2.13); use `{new}`", fix)


def _stored_comparison(ctx: Context, node: ast.Subscript) -> Optional[Report]:
    """``t[idx] = (out != eos)``: a comparison (boolean since 1.2, uint8 on 0.3)
    written into the uint8 tensor ``t`` by a tensor index, which raises now
    (a slice or an ``int`` index converts, and is left alone)."""
    parent = ctx.parent
    if not isinstance(parent, ast.Assign) or node not in parent.targets:
        return None
    facts = values(ctx)
    index = node.slice
    if isinstance(index, (ast.Slice, ast.Tuple, ast.Constant)):
        return None
    whole, where, stored = facts.of(node.value), facts.of(index), facts.of(parent.value)
    if not (whole.tensor and whole.dtype == "uint8" and where.tensor
            and stored.tensor and stored.dtype == "bool"):
        return None
    src = ctx.source
    value = parent.value
    new = method_call(src, value, "byte")
    edit = src.replace(value, new) if not has_comment(src.text(value)) else None
    return Report(
        value,
        f"`{src.quote(value, 30)}` is a boolean tensor since PyTorch 1.2 (uint8 on 0.3), and "
        f"writing it into the uint8 `{src.quote(node.value, 20)}` by a tensor index raises "
        f"RuntimeError (dtypes must match); use `{shorten(new, 40)}`",
        Fix((edit,), SAFE) if edit is not None else None,
    )
