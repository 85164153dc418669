"""TV119: ``torch.cat(t)``/``torch.stack(t)`` of one tensor, a sequence of its rows in 0.3."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import values

#: the functions that took any sequence of tensors
_JOINS = ("torch.cat", "torch.stack")


@rule("TV119")
def cat_of_tensor(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.cat(t)`` and ``torch.stack(t)`` where ``t`` is one tensor.

    ## What it does
    Flags ``torch.cat(x)`` and ``torch.stack(x)`` (resolved through imports,
    ``dim`` or not) whose first argument is evidently a tensor by the value
    facts (``_, top = scores.topk(1)`` then ``torch.cat(top)``; a ``Variable``,
    ``.data``, a constructor, the result of a torch operation: see "How values
    are followed" in docs/how-it-works.md), not a list or tuple of them.  A
    first argument of unknown kind is left alone.

    ## Why is this bad?
    PyTorch 0.3's ``torch.cat`` took any sequence of tensors, and a tensor is
    a sequence of its rows (pytorch/pytorch#5402): ``torch.cat(top)`` joined
    the ``B`` rows of the ``(B, 1)`` indices ``topk(1)`` gives into a ``(B,)``
    tensor (seq2seq tutorials feed it back as the next decoder input).  Since
    0.4 the argument must be a tuple or list: on PyTorch 2.13 the call raises
    ``TypeError: cat(): argument 'tensors' (position 1) must be tuple of
    Tensors, not Tensor`` (``stack`` says the same).

    ## Example
    ```python
    _, top = decoder_output.data.topk(1)
    decoder_input = torch.cat(top)
    ```

    Use instead:
    ```python
    _, top = decoder_output.data.topk(1)
    decoder_input = torch.cat(list(top))
    ```

    ## Fix safety
    ``list(t)`` is the sequence of ``t``'s rows that 0.3 iterated: the result
    is 0.3's, so the fix is *safe*.
    """
    if ctx.resolve(node.func) not in _JOINS or not node.args:
        return
    first = node.args[0]
    if isinstance(first, (ast.Starred, ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp)):
        return
    if not values(ctx).of(first).tensor:
        return
    src = ctx.source
    text = src.text(first)
    name = ctx.source.text(node.func)
    yield Report(
        first,
        f"`{name}` of one tensor joined its rows on PyTorch 0.3 and raises TypeError since "
        f"0.4; use `list({src.quote(first, 30)})`",
        Fix((src.replace(first, f"list({text})"),), SAFE),
    )
