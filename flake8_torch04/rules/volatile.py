"""TV002: ``volatile``, removed in PyTorch 0.4 and silently ignored since."""
from __future__ import annotations

import ast
from typing import Iterator, List

from .._core import SAFE, UNSAFE, Context, Fix, Report, rule
from .._resolve import VARIABLE
from .._source import Edit, has_comment, one_line, shorten

_SINCE = "has no effect since PyTorch 0.4"


@rule("TV002")
def volatile(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``volatile=`` in ``Variable(...)`` and every ``.volatile`` access.

    ## What it does
    Flags the ``volatile=`` argument of torch's ``Variable`` (at the keyword
    itself, so ``# noqa`` goes on its line), and every ``.volatile`` attribute
    read or write in a file that works with torch (it imports torch, or uses
    ``Variable``, ``.data`` or ``.backward(``).  ``volatile=`` given to other
    functions (a project's own helper) and ``.volatile`` of an imported module
    or class, also through a name bound once to one (``Tensor = torch.Tensor``;
    ``Tensor.volatile.__get__`` in an override table) are left alone.

    ## Why is this bad?
    ``volatile`` was removed in PyTorch 0.4 and now only warns "volatile was
    removed and now has no effect".  An evaluation loop that relied on
    ``volatile=True`` now records the autograd graph and uses far more memory;
    ``x.volatile`` is always ``False``, so code branching on it takes the
    training path.

    ## Example
    ```python
    inputs = Variable(images, volatile=True)
    outputs = model(inputs)
    if outputs.volatile:
        ...
    ```

    Use instead:
    ```python
    with torch.no_grad():
        outputs = model(images)
    if not torch.is_grad_enabled():
        ...
    ```

    ## Fix safety
    ``volatile=False`` is dropped: *safe*, it never did anything.
    ``volatile=True`` and ``volatile=<expr>`` get no automatic fix: the
    ``with torch.no_grad():`` (or ``torch.set_grad_enabled(not <expr>)``) region
    is the user's choice.  A ``.volatile`` read becomes
    ``not torch.is_grad_enabled()``: *unsafe*, as it changes which branch runs
    (on purpose).  Writes get no automatic fix.
    """
    if isinstance(node, ast.Call):
        yield from _keyword(ctx, node)
    elif (
        node.attr == "volatile"
        and (ctx.uses_torch or ".data" in ctx.text)
        and not _module_or_class(ctx, node.value)
    ):
        yield _attribute(ctx, node)


def _module_or_class(ctx: Context, node: ast.AST) -> bool:
    """``torch.Tensor`` or ``Tensor`` (imported, or bound once by ``Tensor =
    torch.Tensor`` in the function or module): ``Tensor.volatile`` is a
    descriptor, not a tensor's flag."""
    if ctx.resolve(node) is not None:
        return True
    if not isinstance(node, ast.Name):
        return False
    values = ctx.flow().assignments_to(node.id)
    return bool(values) and all(
        isinstance(value, (ast.Name, ast.Attribute)) and ctx.resolve(value) is not None
        for value in values
    )


def _keyword(ctx: Context, node: ast.Call) -> Iterator[Report]:
    value = None
    where: ast.AST
    for kw in node.keywords:
        if kw.arg == "volatile":
            value, where = kw.value, kw
            break
    else:
        if len(node.args) < 3 or isinstance(node.args[2], ast.Starred):
            return
        value = where = node.args[2]
    if ctx.resolve(node.func) != VARIABLE:
        return
    src = ctx.source
    if isinstance(value, ast.Constant) and value.value is True:
        yield Report(
            where,
            f"`volatile=True` {_SINCE} (autograd records the graph); "
            "run the code under `with torch.no_grad():`",
        )
    elif isinstance(value, ast.Constant) and value.value is False:
        fix = _drop_argument(ctx, node, where) if where is not value else None
        yield Report(where, f"`volatile=False` {_SINCE}; drop the argument", fix)
    else:
        expr = one_line(src.text(value))
        if not isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            expr = f"({expr})"
        yield Report(
            where,
            f"`volatile={shorten(src.text(value), 30)}` {_SINCE}; "
            f"use `with torch.set_grad_enabled(not {expr}):`",
        )


def _drop_argument(ctx: Context, call: ast.Call, kw: ast.keyword):
    """Remove ``kw`` with the comma before it (or after it, when it comes first)."""
    src = ctx.source
    siblings: List[ast.AST] = sorted(
        [*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset)
    )
    index = siblings.index(kw)
    if index > 0:
        start, end = src.end(siblings[index - 1]), src.end(kw)
    elif len(siblings) > 1:
        start, end = src.start(kw), src.start(siblings[1])
    else:
        start, end = src.start(kw), src.end(kw)
    if has_comment(src.between(start, end)):
        return None
    return Fix((Edit(start, end, ""),), SAFE)


_NOT_LOOSE = (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Attribute, ast.Subscript, ast.Call,
              ast.Await)


def _attribute(ctx: Context, node: ast.Attribute) -> Report:
    quoted = ctx.source.quote(node)
    if isinstance(node.ctx, ast.Load):
        parent = ctx.parent
        new = "not torch.is_grad_enabled()"
        if isinstance(parent, _NOT_LOOSE) and not (
            isinstance(parent, ast.Call) and parent.func is not node
        ):
            new = f"({new})"
        return Report(
            node,
            f"`{quoted}` is always False since PyTorch 0.4; use `not torch.is_grad_enabled()`",
            Fix((ctx.source.replace(node, new),), UNSAFE, ("torch",)),
        )
    parent = ctx.parent
    value = getattr(parent, "value", None) if isinstance(parent, ast.Assign) else None
    if isinstance(value, ast.Constant) and value.value is True:
        advice = "use `with torch.no_grad():`"
    elif value is not None and not isinstance(value, ast.Constant):
        advice = f"use `torch.set_grad_enabled(not {one_line(ctx.source.text(value))})`"
    else:
        advice = "use `with torch.no_grad():` where gradients are not needed"
    return Report(node, f"setting `{quoted}` {_SINCE}; {advice}")
