"""TV146: ``torch.sparse.FloatTensor(indices, values, size)``, the legacy sparse constructors."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import values
from ..source.text import Edit
from .shared.calls import append_arguments

#: the legacy CPU sparse tensor types
_TYPES = frozenset(f"torch.sparse.{t}Tensor" for t in (
    "Float", "Double", "Half", "Long", "Int", "Short", "Char", "Byte"))


@rule("TV146")
def sparse_constructor(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.sparse.FloatTensor(indices, values, size)`` and its siblings.

    ## What it does
    Flags a call of a legacy sparse tensor type, ``torch.sparse.FloatTensor``,
    ``DoubleTensor``, ``LongTensor``... (resolved through imports), with the
    indices and the values and, optionally, the size, by position, where the
    indices or the values are evidently a tensor (the value facts): the
    conversion of a scipy matrix that graph networks of 2017 copied
    (``sparse_mx_to_torch_sparse_tensor``).  Other forms (an empty tensor of a
    size, ``FloatTensor(n, m)`` of unknown arguments, keywords, the
    ``torch.cuda.sparse`` types) are left alone.

    ## Why is this bad?
    The typed constructors are deprecated: on PyTorch 2.13 each call warns
    ``UserWarning: torch.sparse.SparseTensor(indices, values, shape, *,
    device=) is deprecated.  Please use torch.sparse_coo_tensor(indices,
    values, shape, dtype=, device=).``  And ``torch.sparse_coo_tensor`` without
    ``check_invariants`` warns in turn (``Sparse invariant checks are implicitly
    disabled...``).

    ## Example
    ```python
    adj = torch.sparse.FloatTensor(indices, values, shape)
    ```

    Use instead:
    ```python
    adj = torch.sparse_coo_tensor(indices, values, shape, check_invariants=False)
    ```

    ## Fix safety
    On PyTorch 2.13 the typed constructor keeps the values' dtype, as
    ``sparse_coo_tensor`` does, and checks no invariant
    (``check_invariants=False`` says so): the same tensor, so the fix is
    *safe*.  ``import torch`` is added where the file does not bind it.
    """
    if ctx.resolve(node.func) not in _TYPES or node.keywords or not 2 <= len(node.args) <= 3:
        return
    if any(isinstance(a, ast.Starred) for a in node.args):
        return
    facts = values(ctx)  # (the indices or the values evidently a tensor: not two sizes)
    if not any(facts.of(a).tensor for a in node.args[:2]):
        return
    src = ctx.source
    start, end = src.start(node.func), src.end(node.func)
    torch = "torch" if ctx.resolve(ast.Name("torch")) == "torch" else None
    fix = None
    added = append_arguments(ctx, node, "check_invariants=False")
    if added is not None:
        fix = Fix((Edit(start, end, "torch.sparse_coo_tensor"), added), SAFE,
                  () if torch else ("torch",))
    yield Report(
        node,
        f"`{src.quote(node.func, 30)}(...)` is deprecated (UserWarning on PyTorch 2.13); use "
        f"`torch.sparse_coo_tensor(...)` with `check_invariants=False`",
        fix,
    )
