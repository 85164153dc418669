"""TV168: ``mask.nonzero().squeeze()`` in 0.3 code: 0-dim when one element matches."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.era import legacy, written_modern
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import values
from ..source.text import Edit


@rule("TV168")
def nonzero_squeeze(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``x.nonzero().squeeze()`` in 0.3 code: since 0.4 one match gives a 0-dim tensor.

    ## What it does
    Flags ``squeeze()`` without a dimension of the result of ``x.nonzero()`` or
    ``torch.nonzero(x)`` (directly, or through a name every binding of which
    that reaches the call is one), in 0.3 code (``analysis/era.py``: the file or
    another module of its project shows a 0.3 idiom, and the file itself none of
    0.4 and later, such as ``.item()`` or ``torch.no_grad``: torch's own
    ``nn/modules/adaptive.py`` squeezes ``nonzero()`` for today's shapes), where
    ``x`` is evidently
    1-D or its rank is not evident (``x`` evidently 2-D or more gives ``(k, n)``
    indices that no squeeze collapses).  Position: the ``squeeze()`` call.

    ## Why is this bad?
    ``nonzero()`` of a 1-D tensor gives a ``(k, 1)`` tensor of indices.  PyTorch
    0.3 had no 0-dim tensors: squeezing a ``(1, 1)`` result gave ``(1,)``, so
    ``ids = (ovr <= t).nonzero().squeeze()`` was always 1-D.  Since 0.4 it is
    0-dim when exactly one element matches, the routine last round of a
    non-maximum suppression: ``order = order[ids + 1]`` then makes ``order``
    0-dim too, and the next ``order[0]`` raises ``IndexError: invalid index of a
    0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to
    convert a 0-dim tensor to a number``; ``for i in ids`` raises ``TypeError:
    iteration over a 0-d tensor``, and ``len(ids)`` raises ``TypeError: len()
    of a 0-d tensor``.

    ## Example
    ```python
    ids = (ovr <= threshold).nonzero().squeeze()
    order = order[ids + 1]
    ```

    Use instead:
    ```python
    ids = (ovr <= threshold).nonzero().squeeze(1)
    order = order[ids + 1]
    ```

    ## Fix safety
    ``squeeze(1)`` gives 0.3's result for a 1-D ``x``: ``(k,)`` for every ``k``,
    ``(0,)`` when nothing matches (0.3's empty result was empty too; its
    ``dim()`` differs: TV142).  *Safe* where ``x`` is evidently 1-D, *unsafe*
    where its rank is not evident: for a 2-D ``x`` with one match 0.3's
    ``squeeze()`` gave ``(2,)``, and ``squeeze(1)`` keeps ``(1, 2)``.
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "squeeze"
            and not node.args and not node.keywords):
        return
    searched = _searched(ctx, func.value)
    if searched is None or not legacy(ctx) or written_modern(ctx):
        return
    rank = values(ctx).of(searched).rank
    if rank is not None and rank != 1:
        return
    src = ctx.source
    end = src.end(node)
    fix = Fix((Edit((end[0], end[1] - 1), (end[0], end[1] - 1), "1"),),
              SAFE if rank == 1 else UNSAFE)
    yield Report(
        node,
        f"`{src.quote(node, 40)}` is 0-dim since PyTorch 0.4 when one element matches "
        f"(0.3 gave shape (1,)): indexing with it, `[0]` of what it indexes, `len()` and "
        f"`for` fail; use `squeeze(1)`" + ("" if rank == 1 else
                                           f" (where `{src.quote(searched, 20)}` is 1-D)"),
        fix,
    )


def _searched(ctx: Context, node: ast.AST, depth: int = 0) -> Optional[ast.AST]:
    """``x`` of ``node``, a ``x.nonzero()`` or ``torch.nonzero(x)`` call or a name
    every reaching binding of which is such a call of one ``x``; else ``None``."""
    if isinstance(node, ast.Call) and not node.keywords:
        if ctx.resolve(node.func) == "torch.nonzero" and len(node.args) == 1:
            return node.args[0]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "nonzero" \
                and not node.args and ctx.resolve(node.func) is None:
            return node.func.value
        return None
    if isinstance(node, ast.Name) and depth == 0:
        defs = ctx.flow().reaching(node)
        if not defs or len(defs) != 1 or defs[0].kind != "assign" or defs[0].value is None:
            return None
        return _searched(ctx, defs[0].value, depth + 1)
    return None
