"""TV144: a 0-dim tensor where PyTorch 0.3 gave a Python number, accumulated or printed."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.era import legacy
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.lines import lines_matching
from ..analysis.nodes import children, spans_hit
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.scalars import Evidence
from ..analysis.values import NUMBER, Value, values
from ..source.text import Edit, has_comment, needs_parens, shorten

#: calls whose arguments are only shown: what 0.3's number looked like there
_SHOWN = {"print": "it prints as `tensor(...)`", "str": "`str()` of it is `'tensor(...)'`",
          "repr": "`repr()` of it is `'tensor(...)'`"}


def _number_in_03(value: Value) -> bool:
    """A 0-dim plain tensor: a reduction or an element of a 0.3 ``Tensor``, which 0.3
    returned as a Python number."""
    return value.tensor and value.rank == 0 and value.plain


def _at_source(facts, node: ast.AST) -> ast.AST:
    """The 0-dim tensor in ``node`` that 0.3 gave as a number, through arithmetic with
    Python numbers: 0.3 computed ``norm ** 2`` on the number, in double precision."""
    while isinstance(node, ast.BinOp):
        left, right = facts.of(node.left), facts.of(node.right)
        if _number_in_03(left) and right.kind == NUMBER:
            node = node.left
        elif _number_in_03(right) and left.kind == NUMBER:
            node = node.right
        else:
            break
    return node


def _item(ctx: Context, node: ast.AST) -> Optional[Edit]:
    src = ctx.source
    text = src.text(node)
    if "\n" in text or has_comment(text):
        return None
    if needs_parens(node, ast.Attribute, src):
        return src.replace(node, f"({text}).item()")
    return Edit(src.end(node), src.end(node), ".item()")


def _tensor_uses(ctx: Context, scope: ast.AST, k: str) -> bool:
    """Whether ``k`` is read as a tensor in ``scope``: a method or attribute of it
    (``acc.item()``, ``acc.cpu()``), or an argument of a torch function."""
    hits = lines_matching(ctx.text, k.split(".", 1)[0])  # (only its lines are looked at)
    stack: list = [(scope, None)]
    while stack:
        node, parent = stack.pop()
        if hits is not None and isinstance(node, ast.stmt) and not spans_hit(node, hits):
            continue
        stack += [(child, node) for child in children(node)]
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) \
                and key(node) == k:
            if isinstance(parent, ast.Attribute) and parent.value is node:
                return True
            if isinstance(parent, ast.Call) and node in parent.args and \
                    (ctx.resolve(parent.func) or "").startswith("torch."):
                return True
    return False


@rule("TV144")
def tensor_numbers(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags 0-dim tensors accumulated or printed where PyTorch 0.3 had a number.

    ## What it does
    In 0.3 code (the file or its project shows 0.3 idioms, or the configuration says so:
    see ``analysis/era.py``), flags ``acc += value``, ``print(value)``, ``str(value)``
    and ``repr(value)`` where
    ``value`` is a reduction (``sum()``, ``mean()``, ``max()`` ... without ``dim``) or
    an element of a 0.3 *tensor* — one read through ``.data``, made by a constructor, or
    computed from one, such as ``pred.eq(target.data).sum()`` with ``pred`` from
    ``output.data.max(1)[1]``.  Values are followed through assignments in the function
    (see "How values are followed" in docs/how-it-works.md); a value of a ``Variable`` is TV003's.
    It also flags ``x.data[i]`` wherever it is read, when ``x`` is evidently 1-D
    (``action = q_value.max(1)[1].data[0]`` with ``q_value`` the ``(1, n)`` output of a
    ``Linear``): nobody reads an element through ``.data`` but for a number, and 0.3
    gave one (``env.step(action)`` gets a 0-dim tensor now).  Left alone: a tensor of
    unknown or higher rank (``x.data[0]`` is a row), an element used as a tensor
    (``x.data[i].fill_(0)``, ``x.data[i][j]``), written, sliced, or a loss's
    ``.data[0]`` (TV003's).
    Position: the value.

    ## Why is this bad?
    In 0.3, reducing a tensor gave a Python number.  Since 0.4 it gives a 0-dim
    tensor, so ``correct += pred.eq(target.data).sum()`` makes ``correct`` a
    tensor: ``print(correct)`` shows ``tensor(24)``, ``str(order[-1])`` written to a
    file is ``'tensor(3)'`` (which ``int()`` cannot read back: ``ValueError:
    invalid literal for int() with base 10: 'tensor(3)'``; ``format`` and
    ``'%d'`` show the number), ``100. * correct / n`` is a tensor, and the
    accumulator keeps a tensor where the program meant a number (on a GPU,
    every use synchronises).

    ## Example
    ```python
    correct = 0
    _, pred = torch.max(output.data, 1)
    correct += pred.eq(target.data).sum()
    print('accuracy', 100. * correct / total)
    ```

    Use instead:
    ```python
    correct = 0
    _, pred = torch.max(output.data, 1)
    correct += pred.eq(target.data).sum().item()
    print('accuracy', 100. * correct / total)
    ```

    ## Fix safety
    The fix, ``.item()`` at the source (``norm.item() ** 2``: 0.3 did arithmetic
    with Python numbers on the number, in double precision), is *safe* where the accumulator is only
    accumulated, printed, formatted or compared (then the program computes and
    prints 0.3's numbers); where it is also used as a tensor (``acc.cpu()``,
    an argument of a torch function) the fix is *unsafe*.  A printed value (or
    one given to ``str``/``repr``) is only shown, so its fix is safe.  An
    element read through ``.data[i]`` gets ``.item()`` safely (the number 0.3
    gave), unsafely where a tensor is made of it afterwards (a name it is bound
    to read as a tensor, a torch function's argument): code written for 0.4 in
    a 0.3 file.  A name bound to such an element (``first = x.data[0]``) gets
    its ``.item()`` there, and none where it is printed or accumulated.
    """
    if not ctx.uses_torch or not legacy(ctx):
        return
    facts = values(ctx)
    if isinstance(node, ast.AugAssign):
        if not isinstance(node.op, (ast.Add, ast.Sub)) or key(node.target) is None:
            return
        if not _number_in_03(facts.of(node.value)) or _read_through_data(ctx, node.value):
            return
        edit = _item(ctx, _at_source(facts, node.value))
        scope = ctx.flow().node
        safe = not _tensor_uses(ctx, scope, key(node.target))
        fix = Fix((edit,), SAFE if safe else UNSAFE) if edit is not None else None
        src = ctx.source
        yield Report(
            node.value,
            f"`{src.quote(node.value, 40)}` was a Python number on PyTorch 0.3 and is a "
            f"0-dim tensor since 0.4, so `{shorten(src.text(node.target), 20)}` becomes a "
            f"tensor; add `.item()`",
            fix,
        )
        return
    if isinstance(node, ast.Subscript):
        yield from _data_element(ctx, node, facts)
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _SHOWN and not ctx.scope.binds(node.func.id):
        for arg in node.args:
            if isinstance(arg, ast.Starred) or not _number_in_03(facts.of(arg)) \
                    or _read_through_data(ctx, arg):
                continue
            edit = _item(ctx, _at_source(facts, arg))
            yield Report(
                arg,
                f"`{ctx.source.quote(arg, 40)}` was a Python number on PyTorch 0.3 and is a "
                f"0-dim tensor since 0.4: {_SHOWN[node.func.id]}; add `.item()`",
                Fix((edit,), SAFE) if edit is not None else None,
            )


def _read_through_data(ctx: Context, node: ast.AST) -> bool:
    """A name bound only to elements read through ``.data`` (``first = x.data[0]``):
    those get their ``.item()`` where they are read (:func:`_data_element`, or TV003
    for a loss), not again where the name is used."""
    defs = ctx.flow().reaching(node) if isinstance(node, ast.Name) else None
    return bool(defs) and all(
        d.kind == "assign" and isinstance(d.value, ast.Subscript)
        and isinstance(d.value.value, ast.Attribute) and d.value.value.attr == "data"
        for d in defs)


def _data_element(ctx: Context, node: ast.Subscript, facts) -> Iterator[Report]:
    """``x.data[i]`` of an evidently 1-D tensor: 0.3 gave a Python number (nobody
    reads an element through ``.data`` for a tensor), and ``.item()`` gives it
    back.  Left to the other branches: an element accumulated or printed; left
    alone: an element used as a tensor (``x.data[i].fill_(0)``, ``x.data[i][j]``),
    written, and a loss's ``.data[0]`` (TV003's)."""
    data = node.value
    if not (isinstance(node.ctx, ast.Load) and isinstance(data, ast.Attribute)
            and data.attr == "data"):
        return
    parent = ctx.parent  # (the walker's: ``node`` is the node being visited)
    if isinstance(parent, (ast.Attribute, ast.Subscript, ast.AugAssign)) or (
            isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
            and parent.func.id in _SHOWN):
        return
    index = node.slice
    if isinstance(index, (ast.Slice, ast.Tuple)) or facts.of(index).kind != NUMBER:
        return
    whole = facts.of(data)
    if not (whole.tensor and whole.rank == 1 and _number_in_03(facts.of(node))):
        return
    evidence = Evidence(ctx)
    if evidence.may_be_scalar(data.value, True) and evidence.scalar(data.value, True):
        return  # (a loss's ``.data[0]``: TV003)
    # unsafe where a tensor is made of it afterwards: a name it is bound to read as a
    # tensor (``a.item()``, ``a.cpu()``), or a torch function's argument (code already
    # written for 0.4 in a 0.3 file)
    safe = not (isinstance(parent, ast.Call)
                and (ctx.resolve(parent.func) or "").startswith("torch."))
    if safe and isinstance(parent, ast.Assign):
        names = [key(t) for t in parent.targets]
        safe = all(k is not None for k in names) and not any(
            _tensor_uses(ctx, ctx.flow().node, k) for k in names)
    edit = _item(ctx, node)
    src = ctx.source
    yield Report(
        node,
        f"`{src.quote(node, 40)}` was a Python number on PyTorch 0.3 (an element of the "
        f"1-D `{shorten(src.text(data.value), 20)}`) and is a 0-dim tensor since 0.4; "
        f"add `.item()`",
        Fix((edit,), SAFE if safe else UNSAFE) if edit is not None else None,
    )
