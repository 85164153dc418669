"""TV105: ``TensorDataset(data_tensor=..., target_tensor=...)``, removed in PyTorch 0.4."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.lines import lines_matching
from ..analysis.loaders import TENSOR_DATASET
from ..analysis.nodes import walk_hits
from ..analysis.registry import rule
from ..analysis.values import values
from ..source.text import Edit, has_comment, needs_parens

_TENSOR_DATASET = ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset")
#: 0.3's keywords, in the order of its positional arguments
_KEYWORDS = ("data_tensor", "target_tensor")
_SPELLED = re.compile(r"\b(?:data|target)_tensor\b")


@rule("TV105")
def tensor_dataset(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``TensorDataset(data_tensor=X, target_tensor=Y)`` and 0.3's attributes.

    ## What it does
    Flags the keywords ``data_tensor=`` and ``target_tensor=`` given to
    ``torch.utils.data.TensorDataset`` (also spelled
    ``torch.utils.data.dataset.TensorDataset``, resolved through imports: a
    project's own ``TensorDataset`` class is left alone).  The finding is at
    the first of the two keywords.  Also flags the reads of 0.3's attributes
    ``ds.data_tensor`` and ``ds.target_tensor`` in files that use torch
    (``loader.dataset.data_tensor``): 0.3's ``TensorDataset`` was their
    common owner; not in a file that assigns an attribute of that name (a
    dataset class of its own, ``self.data_tensor = data``).  Position: the
    attribute.

    ## Why is this bad?
    PyTorch 0.3's ``TensorDataset(data_tensor, target_tensor)`` became
    ``TensorDataset(*tensors)`` in 0.4: it takes any number of tensors, by
    position only.  ``TensorDataset(data_tensor=x, target_tensor=y)`` raises
    ``TypeError: TensorDataset.__init__() got an unexpected keyword argument
    'data_tensor'`` and the program stops.  Its tensors are kept in
    ``.tensors`` (a tuple): ``ds.data_tensor`` raises ``AttributeError:
    'TensorDataset' object has no attribute 'data_tensor'``.

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
    among its arguments gets no automatic fix.  ``ds.data_tensor`` becomes
    ``ds.tensors[0]`` and ``ds.target_tensor`` ``ds.tensors[1]``: *safe* where
    the value facts make ``ds`` a ``TensorDataset`` (built in the file), else
    *unsafe* (a class of the project may have attributes of those names).
    """
    if isinstance(node, ast.Attribute):
        yield from _attribute(ctx, node)
        return
    if not isinstance(node, ast.Call):
        return
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


def _attribute(ctx: Context, node: ast.Attribute) -> Iterator[Report]:
    """``ds.data_tensor`` -> ``ds.tensors[0]``, ``ds.target_tensor`` -> ``ds.tensors[1]``."""
    if node.attr not in _KEYWORDS or not isinstance(node.ctx, ast.Load) or not ctx.uses_torch:
        return
    if node.attr in _stored(ctx):
        return  # (``self.data_tensor = data``: a class of the file keeps its own)
    src = ctx.source
    owner = src.text(node.value)
    if needs_parens(node.value, ast.Attribute, src):
        owner = f"({owner})"
    new = f"{owner}.tensors[{_KEYWORDS.index(node.attr)}]"
    evident = values(ctx).of(node.value).name == TENSOR_DATASET
    yield Report(
        node,
        f"`{src.quote(node, 40)}` was TensorDataset's attribute on PyTorch 0.3; since 0.4 "
        f"its tensors are in `.tensors` (AttributeError); use `{src.quote(node.value, 30)}"
        f".tensors[{_KEYWORDS.index(node.attr)}]`",
        Fix((src.replace(node, new),), SAFE if evident else UNSAFE) if "\n" not in new else None,
    )


def _stored(ctx: Context) -> frozenset:
    """The attributes of :data:`_KEYWORDS` the file assigns (once per file)."""
    found = ctx.memo.get("TV105 stored")
    if found is None:
        hits = lines_matching(ctx.text, _SPELLED)
        found = ctx.memo["TV105 stored"] = frozenset(
            n.attr for n in walk_hits(ctx.tree, hits) if isinstance(n, ast.Attribute)
            and n.attr in _KEYWORDS and not isinstance(n.ctx, ast.Load))
    return found


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
