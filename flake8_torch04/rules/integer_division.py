"""TV143: ``/`` and ``torch.div`` of integer tensors, which 0.3 truncated."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.era import legacy
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import NUMBER, Value, values
from ..source.text import has_comment, shorten
from .data_inplace import spelled
from .shared.calls import plain_arguments

_INTEGER = ("int", "uint8")


def _integer_tensor(value: Value) -> bool:
    """An integer tensor of more than 0 dims (a 0-dim one was a Python number in 0.3,
    divided as Python divides: TV144's)."""
    return value.tensor and value.dtype in _INTEGER and value.rank != 0


def _integer(value: Value) -> Optional[bool]:
    """Whether a divisor is evidently integer (``None``: unknown; ``False``: a float)."""
    if _integer_tensor(value) or value.kind == NUMBER and value.dtype == "int":
        return True
    if value.tensor and value.dtype == "float" or value.kind == NUMBER and \
            value.dtype == "float":
        return False
    return None


@rule("TV143")
def integer_division(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``/`` and ``torch.div`` of integer tensors in PyTorch 0.3 code.

    ## What it does
    Flags ``a / b``, ``a /= b`` and ``torch.div(a, b)`` (no ``rounding_mode``)
    where ``a`` is evidently an integer tensor — a ``LongTensor``/``IntTensor``/
    ``ByteTensor``, ``.long()``/``.int()``/``.byte()``, the indices of
    ``max(d)``/``argmax``, a sum of booleans, an integer constructor; followed
    through assignments (see "How values are followed" in docs/how-it-works.md) — and
    ``b`` is not evidently a float.  Only in 0.3 code (the file or its project
    shows 0.3 idioms, or the configuration says so: see ``analysis/era.py``):
    new code divides integer tensors on purpose.  Position: the operator's expression.

    ## Why is this bad?
    PyTorch 0.3 divided integer tensors as C does, truncating toward zero:
    ``LongTensor([7]) / 2`` was ``3``.  Since 1.5 ``/`` is true division:
    on 2.13 it is ``tensor([3.5000])``, a float tensor, so counts, indices and
    bin numbers silently change, or a later use as an index raises
    ``IndexError: tensors used as indices must be long, int, byte or bool
    tensors``; ``a /= 2`` on a ``LongTensor`` raises ``RuntimeError: result type
    Float can't be cast to the desired output type Long``.

    ## Example
    ```python
    _, pred = torch.max(output.data, 1)
    bucket = pred / 10
    ```

    Use instead:
    ```python
    _, pred = torch.max(output.data, 1)
    bucket = torch.div(pred, 10, rounding_mode='trunc')
    ```

    ## Fix safety
    The fix is *safe* where both operands are evidently integers (an integer
    tensor and an integer tensor or constant): ``rounding_mode='trunc'`` gives
    exactly 0.3's result, negative numbers included (``//`` would floor:
    ``-7 // 2`` is ``-4``, 0.3 gave ``-3``).  Where the divisor's type is not
    evident the fix is *unsafe*.  ``a /= b`` becomes
    ``a.div_(b, rounding_mode='trunc')``.
    """
    if not ctx.uses_torch or not legacy(ctx):
        return
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, ast.Div):
            return
        left, right = node.left, node.right
    elif isinstance(node, ast.AugAssign):
        if not isinstance(node.op, ast.Div):
            return
        left, right = node.target, node.value
    elif isinstance(node, ast.Call):
        if ctx.resolve(node.func) != "torch.div" or len(node.args) != 2 or node.keywords \
                or not plain_arguments(node):
            return
        left, right = node.args
    else:
        return
    if isinstance(right, ast.Constant) and type(right.value) is float:
        return  # (a float divisor is not flagged, see `_integer`: the left is not asked)
    facts = values(ctx)
    if not _integer_tensor(facts.of(left)):
        return
    divisor = _integer(facts.of(right))
    if divisor is False:
        return
    src = ctx.source
    torch_name, imports = spelled(ctx, "torch")
    a, b = src.text(left), src.text(right)
    if isinstance(node, ast.AugAssign):
        new = f"{a}.div_({b}, rounding_mode='trunc')"
    else:
        new = f"{torch_name}.div({a}, {b}, rounding_mode='trunc')"
    fix = None
    if "\n" not in src.text(node) and not has_comment(src.text(node)):
        edit = src.replace(node, new)
        fix = Fix((edit,), SAFE if divisor else UNSAFE, imports)
    what = "`/=`" if isinstance(node, ast.AugAssign) else \
        "`torch.div`" if isinstance(node, ast.Call) else "`/`"
    yield Report(
        node,
        f"{what} of an integer tensor truncated on PyTorch 0.3 and gives floats since 1.5"
        f"{'' if divisor else ' (if the divisor is an integer)'}; use "
        f"`{shorten(new, 60)}` for 0.3's result",
        fix,
    )
