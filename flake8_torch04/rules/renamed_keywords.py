"""TV155: keywords of torch calls that PyTorch 0.4 renamed (``split_size=``, ``device_id=``)."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import MODULE, values
from .shared.calls import keyword, rename_keyword

#: functions: qualified name -> (old keyword, new keyword)
_FUNCTIONS = {"torch.split": ("split_size", "split_size_or_sections")}


@rule("TV155")
def renamed_keywords(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.split(x, split_size=n)``, ``.cuda(device_id=n)``, ``.chunk(num_chunks=n)``.

    ## What it does
    Flags the keyword ``split_size=`` of ``torch.split`` (resolved through
    imports), and ``device_id=`` given to the ``cuda`` method of a value that
    is evidently a tensor or a module of ``torch.nn`` (see "How values are
    followed" in docs/how-it-works.md: ``Variable(x)``, ``nn.Linear(4, 2)``), and
    ``num_chunks=`` (a Variable's) or ``n_chunks=`` (a tensor's) given to the
    ``chunk`` method of a value that is not evidently something else, in a file
    that imports torch.
    Left alone: the method ``x.split(split_size=n)`` (it kept the name), a
    ``cuda`` of the project's own class (which may define ``cuda(self,
    device_id=None)`` itself), and a receiver of unknown type.  Position: the
    keyword.

    ## Why is this bad?
    PyTorch 0.3's ``torch.split(tensor, split_size, dim=0)`` named its size
    ``split_size``; since 0.4 it is ``split_size_or_sections``, and the old
    keyword raises ``TypeError: split() got an unexpected keyword argument
    'split_size'``.  0.3's ``Module.cuda(device_id=None)`` and
    ``Variable.cuda(device_id=None, async=False)`` became ``cuda(device=None,
    ...)``: ``model.cuda(device_id=0)`` raises ``TypeError: Module.cuda() got
    an unexpected keyword argument 'device_id'`` (a tensor's likewise).  0.3's
    ``Variable.chunk(num_chunks, dim=0)`` (``Tensor.chunk(n_chunks, ...)``) is
    ``chunk(chunks, dim=0)``: ``h.chunk(num_chunks=2, dim=1)`` raises ``TypeError:
    chunk() missing required argument "chunks"``.

    ## Example
    ```python
    i, f, g, o = torch.split(gates, split_size=hidden_size, dim=1)
    netG.cuda(device_id=gpu_ids[0])
    ```

    Use instead:
    ```python
    i, f, g, o = torch.split(gates, split_size_or_sections=hidden_size, dim=1)
    netG.cuda(device=gpu_ids[0])
    ```

    ## Fix safety
    Renaming the keyword is *safe*: the argument means the same under its new
    name; *unsafe* for ``chunk`` of a value of unknown type (a project's own
    ``chunk(num_chunks=...)`` keeps its name).  A call that also passes the new
    keyword gets no finding (it would not have run on 0.3 either).
    """
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "chunk":
        kw = keyword(node, "num_chunks") or keyword(node, "n_chunks")
        if kw is None or keyword(node, "chunks") is not None or not ctx.imports_torch:
            return
        owner = values(ctx).of(func.value)
        if not owner.tensor and owner.kind is not None:
            return  # (evidently not a tensor: its own ``chunk``)
        old, new, what = kw.arg, "chunks", f"`{ctx.source.quote(func, 30)}`'s"
        if not owner.tensor:  # (of unknown type, in a file of torch: 0.3's keyword)
            yield Report(
                kw,
                f"{what} `{old}=` (0.3's `Variable.chunk`) was renamed `chunks=` in PyTorch "
                f"0.4 (TypeError since), if it is a tensor's; use `chunks=`",
                Fix((rename_keyword(ctx, kw, new).edits[0],), UNSAFE),
            )
            return
    elif isinstance(func, ast.Attribute) and func.attr == "cuda":
        kw = keyword(node, "device_id")
        if kw is None or keyword(node, "device") is not None:
            return
        owner = values(ctx).of(func.value)
        if not (owner.tensor or owner.kind == MODULE and (owner.name or "").startswith(
                "torch.nn.")):
            return
        old, new, what = "device_id", "device", f"`{ctx.source.quote(func, 30)}`"
    else:
        names = _FUNCTIONS.get(ctx.resolve(func) or "")
        kw = keyword(node, names[0]) if names else None
        if kw is None or keyword(node, names[1]) is not None:  # type: ignore[index]
            return
        old, new = names  # type: ignore[misc]
        what = f"`{ctx.source.quote(func, 30)}`'s"
    yield Report(
        kw,
        f"{what} `{old}=` was renamed `{new}=` in PyTorch 0.4 (TypeError since); "
        f"use `{new}=`",
        rename_keyword(ctx, kw, new),
    )
