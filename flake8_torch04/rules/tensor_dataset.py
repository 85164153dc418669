"""TV105: ``TensorDataset(data_tensor=..., target_tensor=...)``, removed in PyTorch 0.4."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit, has_comment

_TENSOR_DATASET = ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset")
#: 0.3's keywords, in the order of its positional arguments
_KEYWORDS = ("data_tensor", "target_tensor")


@rule("TV105")
def tensor_dataset(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``TensorDataset(data_tensor=X, target_tensor=Y)``.

    ## What it does
    Flags the keywords ``data_tensor=`` and ``target_tensor=`` given to
    ``torch.utils.data.TensorDataset`` (also spelled
    ``torch.utils.data.dataset.TensorDataset``, resolved through imports: a
    project's own ``TensorDataset`` class is left alone).  The finding is at
    the first of the two keywords.

    ## Why is this bad?
    PyTorch 0.3's ``TensorDataset(data_tensor, target_tensor)`` became
    ``TensorDataset(*tensors)`` in 0.4: it takes any number of tensors, by
    position only.  ``TensorDataset(data_tensor=x, target_tensor=y)`` raises
    ``TypeError: TensorDataset.__init__() got an unexpected keyword argument
    'data_tensor'`` and the program stops.

    ## Example
    ```python
    dataset = Data.TensorDataset(data_tensor=x, target_tensor=y)
    ```

    Use instead:
    ```python
    dataset = Data.TensorDataset(x, y)
    ```

    ## Fix safety
    Passing the tensors by position, data first, is *safe*: the dataset holds
    the same tensors in the same order (``dataset[i]`` is ``(x[i], y[i])`` as
    before).  A call with other keywords, ``*args``/``**kwargs``, or comments
    among its arguments gets no automatic fix.
    """
    found = [kw for kw in node.keywords if kw.arg in _KEYWORDS]
    if not found or ctx.resolve(node.func) not in _TENSOR_DATASET:
        return
    fix = _positional(ctx, node)
    names = ", ".join(f"`{kw.arg}=`" for kw in found)
    yield Report(
        found[0],
        f"TensorDataset takes the tensors by position since PyTorch 0.4: {names} raises "
        f"TypeError; use `TensorDataset({_new_args(ctx, node) or 'data, target'})`",
        fix,
    )


def _ordered(node: ast.Call):
    """The arguments in their new positional order, or ``None`` when it is not clear."""
    if any(isinstance(a, ast.Starred) for a in node.args):
        return None
    by_name = {kw.arg: kw.value for kw in node.keywords}
    if set(by_name) - set(_KEYWORDS):
        return None  # other keywords, or ``**kwargs`` (``arg`` is None)
    args = list(node.args)
    for name in _KEYWORDS[len(args):]:
        if name not in by_name:
            break
        args.append(by_name.pop(name))
    if by_name:
        return None  # ``target_tensor=`` without the data tensor, or given twice
    return args


def _new_args(ctx: Context, node: ast.Call) -> Optional[str]:
    args = _ordered(node)
    if args is None:
        return None
    return ", ".join(ctx.source.text(a) for a in args)


def _positional(ctx: Context, node: ast.Call) -> Optional[Fix]:
    args = _ordered(node)
    if not args:
        return None
    src = ctx.source
    parts = [*node.args, *node.keywords]
    start = min((src.start(p) for p in parts))
    end = max((src.end(p) for p in parts))
    if has_comment(src.between(start, end)):
        return None
    in_order = sorted(parts, key=src.start)
    if [getattr(p, "value", p) for p in in_order] == args:
        # already in 0.3's order: drop the ``name=`` prefixes, keep the layout
        edits = tuple(_drop_name(ctx, kw) for kw in node.keywords)
        if all(edits):
            return Fix(edits, SAFE)
    text = ", ".join(src.text(a) for a in args)
    return Fix((Edit(start, end, text),), SAFE)


def _drop_name(ctx: Context, kw: ast.keyword) -> Optional[Edit]:
    """The edit deleting ``name=`` (and the blanks after it) before a keyword's value."""
    src = ctx.source
    (line, col), value = src.start(kw), src.start(kw.value)
    if value[0] != line:
        return None
    segment = src.lines[line - 1][col:value[1]]
    eq = segment.find("=")
    if eq < 0:
        return None
    end = col + eq + 1
    while src.lines[line - 1][end:end + 1] in (" ", "\t"):
        end += 1
    return Edit((line, col), (line, end), "")
