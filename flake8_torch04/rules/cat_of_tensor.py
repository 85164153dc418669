"""TV119: ``torch.cat(t)``/``torch.stack(t)`` of one tensor, a sequence of its rows in 0.3,
and ``torch.cat`` of 0-dim tensors, one-element tensors in 0.3."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..analysis.values import LIST, Value, values
from ..source.text import needs_parens

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
    first argument of unknown kind is left alone, and so is a call that is no
    ``cat(seq, dim)``: ``torch.cat(a, b, 1)`` (an error on 0.3 too).

    Also flags ``torch.cat``/``torch.stack`` of a generator expression
    (``torch.cat((s for s in states), 0)``), whatever its parts are.

    Also flags ``torch.cat(parts)`` (no ``dim``, or ``0``/``-1``) where the value
    facts make parts 0-dim tensors that had one element on 0.3: elements of a
    ``Variable`` (``[scores[i, gold[i]] for i in ...]``, a list built by
    ``best.append(row[j])``), losses and full reductions
    (``torch.cat((history, loss.data / n))``).  Not flagged: rows (1-D parts),
    another ``dim``, parts of unknown rank, and elements or reductions of a plain
    tensor (``.data``, a constructor), which 0.3 gave as Python numbers, so
    ``cat`` refused them there too.

    ## Why is this bad?
    PyTorch 0.3's ``torch.cat`` took any sequence of tensors, and a tensor is
    a sequence of its rows (pytorch/pytorch#5402): ``torch.cat(top)`` joined
    the ``B`` rows of the ``(B, 1)`` indices ``topk(1)`` gives into a ``(B,)``
    tensor (seq2seq tutorials feed it back as the next decoder input).  Since
    0.4 the argument must be a tuple or list: on PyTorch 2.13 the call raises
    ``TypeError: cat(): argument 'tensors' (position 1) must be tuple of
    Tensors, not Tensor`` (``stack`` says the same).  An element or a reduction
    of a 0.3 ``Variable`` was a one-element 1-D tensor, which ``cat`` joined; it
    is 0-dim since 0.4 and ``torch.cat`` raises ``RuntimeError: zero-dimensional
    tensor (at position 0) cannot be concatenated``.  0.3 took any iterable, a
    generator too; on 2.13 ``TypeError: cat(): argument 'tensors' (position 1)
    must be tuple of Tensors, not generator``.

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
    is 0.3's, so the fix is *safe*.  Where every part is 0-dim,
    ``torch.stack(parts)`` gives 0.3's ``(N,)`` result (*safe*); where some are,
    ``part.view(1)`` on each gives 0.3's one-element tensor (*safe*).  A ``cat``
    imported by its own name (``from torch import cat``) gets the message
    without a fix (``stack`` may not be imported).  A generator becomes the
    list comprehension of the same expression (*safe*: ``cat`` read it whole
    on 0.3 as well).
    """
    name = ctx.resolve(node.func)
    if name not in _JOINS or not node.args:
        return
    first = node.args[0]
    if isinstance(first, ast.Starred):
        return
    if isinstance(first, ast.GeneratorExp):
        yield _generator(ctx, node, first)
        return
    if name == "torch.cat":
        report = _zero_dim_parts(ctx, node, first)
        if report is not None:
            yield report
            return
    if isinstance(first, (ast.List, ast.Tuple, ast.ListComp)):
        return
    facts = values(ctx)
    if len(node.args) + len(node.keywords) > 2 or len(node.args) == 2 and (
            facts.of(node.args[1]).tensor):
        return  # (``torch.cat(a, b, 1)``: not ``cat(seq, dim)``, and no 0.3 call either)
    if not facts.of(first).tensor:
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


def _generator(ctx: Context, node: ast.Call, first: ast.GeneratorExp) -> Report:
    """``torch.cat(t for t in ts)``: a list comprehension of the same tensors (and
    ``torch.stack`` where they are 0-dim, as for a list of them)."""
    src = ctx.source
    text = src.text(first)  # (with its parentheses: its own, or the call's)
    name = src.text(node.func)
    why = (f"`{name}` of a generator: PyTorch 0.3 took any iterable, since 0.4 it raises "
           f"TypeError (it must be a tuple or list of tensors); use a list comprehension")
    stacked = _zero_dim_parts(ctx, node, first) if ctx.resolve(node.func) == "torch.cat" \
        else None  # (``stack`` of 0-dim parts is 0.3's ``cat`` of one-element ones)
    if stacked is not None:
        why += ", and `torch.stack` (its parts are 0-dim tensors since 0.4)"
    if not (text.startswith("(") and text.endswith(")")) or (
            stacked is not None and stacked.fix is None):
        return Report(first, why)
    own = src.end(first) != src.end(node)  # (``cat(t for t in ts)`` shares the call's)
    listed = f"[{text[1:-1]}]" if own else f"([{text[1:-1]}])"
    edits = (src.replace(first, listed), *(stacked.fix.edits if stacked else ()))
    return Report(first, why, Fix(edits, SAFE))


def _zero_dim(value: Value) -> bool:
    """0-dim now, one element in 0.3: not a plain tensor's element or
    reduction, which 0.3 gave as a Python number (``cat`` refused it then too)."""
    return value.tensor and value.rank == 0 and not value.plain


def _zero_dim_parts(ctx: Context, node: ast.Call, first: ast.AST):
    """``torch.cat`` of tensors the value facts make 0-dim: ``torch.stack`` where
    every one is (a comprehension, a list built by ``append``), ``.view(1)`` on
    each where some are (``torch.cat((history, loss.data / n))``)."""
    dims = [*node.args[1:], *(k.value for k in node.keywords if k.arg == "dim")]
    if len(node.args) + len(node.keywords) > 2 or any(
            not (isinstance(d, ast.Constant) and d.value in (0, -1)) for d in dims):
        return None  # (0.3's one-element tensors joined along their one dimension)
    facts = values(ctx)
    src = ctx.source
    name = src.text(node.func)
    why = (f"`{name}` of 0-dim tensors: each had one element on PyTorch 0.3 and is "
           f"0-dim since 0.4 (RuntimeError: zero-dimensional tensor cannot be concatenated)")
    if isinstance(first, (ast.List, ast.Tuple)):
        parts = first.elts
        if not parts or any(isinstance(e, ast.Starred) for e in parts):
            return None
        zero = [_zero_dim(facts.of(e)) for e in parts]
        if not any(zero):
            return None
        if not all(zero):
            def viewed(e: ast.AST, text: str) -> str:
                return f"({text}).view(1)" if needs_parens(e, ast.Attribute, src) \
                    else f"{text}.view(1)"

            zeros = [e for e, z in zip(parts, zero) if z]
            edits = tuple(src.replace(e, viewed(e, src.text(e))) for e in zeros)
            shown = viewed(zeros[0], src.quote(zeros[0], 30))
            return Report(node, f"{why}; use `{shown}`", Fix(edits, SAFE))
    elif isinstance(first, (ast.ListComp, ast.GeneratorExp)):
        if not _zero_dim(facts.of(first.elt)):
            return None
    else:
        whole = facts.of(first)
        if whole.kind != LIST or not whole.parts or not _zero_dim(whole.parts[0]):
            return None
    func = node.func
    if not (isinstance(func, ast.Attribute) and ctx.resolve(func.value) == "torch"):
        return Report(node, f"{why}; use `torch.stack` (0.3's result)")
    stack = f"{src.text(func.value)}.stack"
    return Report(node, f"{why}; use `{stack}` (0.3's result)",
                  Fix((src.replace(func, stack),), SAFE))
