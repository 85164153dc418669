"""TV126: the scalar-first overloads ``add_(n, t)``, ``addcmul_(v, a, b)``..."""
from __future__ import annotations

import ast
from typing import Iterator, Optional, Tuple

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.nodes import words
from ..analysis.registry import rule
from ..analysis.values import NUMBER, values
from ..source.text import Edit, has_comment, shorten
from .shared.calls import plain_arguments
from .shared.tables import SCALAR_FIRST_FUNCTIONS, SCALAR_FIRST_METHODS

#: the matrix products' 0.3 overloads: ``beta`` (and ``alpha``) before the tensors
_PRODUCTS = ("addmm", "addmv", "addbmm", "baddbmm", "addr")
#: method -> {number of positional arguments: ((index of a scalar, its keyword), ...)}
#: (TV004 and TV113 rewrite the single-scalar ones too: see ``shared.tables``)
METHODS = {
    **{name: {count: ((0, kw),)} for name, (count, kw) in SCALAR_FIRST_METHODS.items()},
    **{name + tail: {4: ((0, "beta"), (1, "alpha")), 3: ((0, "beta"),)}
       for name in _PRODUCTS for tail in ("", "_")},
}
#: the same for functions (their first positional after the scalar is the input)
FUNCTIONS = {
    **{name: {count: ((1, kw),)} for name, (count, kw) in SCALAR_FIRST_FUNCTIONS.items()},
    **{f"torch.{name}": {5: ((0, "beta"), (2, "alpha")), 4: ((0, "beta"),)}
       for name in _PRODUCTS},
}
#: words of names that hold a step size or a coefficient, not a tensor
_SCALAR_WORDS = frozenset((
    "lr", "alpha", "beta", "beta1", "beta2", "momentum", "decay", "dampening", "step",
    "scale", "rate", "coef", "coeff", "gamma", "eps", "lambda", "lamb", "lam",
))


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _named_scalar(node: ast.AST) -> bool:
    """``lr``, ``self.lr``, ``group['lr']``, ``args.weight_decay``, ``beta1``."""
    if isinstance(node, ast.Subscript):
        index = node.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, str):
            return bool(set(words(index.value)) & _SCALAR_WORDS)
        return False
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    return bool(name) and bool(set(words(name)) & _SCALAR_WORDS | (
        {name.lower()} & _SCALAR_WORDS))


def scalar_evidence(node: ast.AST) -> bool:
    """Whether the first argument is plainly a number: a numeric constant, a
    negation (``-lr``), arithmetic with a numeric constant (``1 - beta1``), a
    ``float()``/``int()``, or a name of a step size or coefficient."""
    if _number(node):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return True
    if isinstance(node, ast.BinOp):
        return (_number(node.left) or _number(node.right) or scalar_evidence(node.left)
                and scalar_evidence(node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("float", "int") and len(node.args) == 1
    return _named_scalar(node)


def overload(ctx: Context, node: ast.Call) -> Optional[Tuple[str, Tuple[Tuple[int, str], ...]]]:
    """``(name, ((index of a scalar, its keyword), ...))`` when ``node`` calls a
    deprecated overload."""
    func = node.func
    if node.keywords or not plain_arguments(node):
        return None
    qualname = ctx.resolve(func)
    if qualname in FUNCTIONS:
        scalars = FUNCTIONS[qualname].get(len(node.args))
        return (qualname.rsplit(".", 1)[1], scalars) if scalars else None
    if qualname is not None or not isinstance(func, ast.Attribute) or func.attr not in METHODS:
        return None
    scalars = METHODS[func.attr].get(len(node.args))
    if scalars is None or not ctx.uses_torch:
        return None
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
        return None
    if not (scalar_evidence(node.args[0]) or _evidently_scalar_first(ctx, receiver, node)):
        return None
    return func.attr, scalars


def _evidently_scalar_first(ctx: Context, receiver: ast.AST, node: ast.Call) -> bool:
    """By the value facts: the first argument of an in-place method is a number
    (``a - b`` of numbers), or the receiver and the last argument are tensors
    (``r.add_(a - b, t)`` with ``r = torch.zeros(n)``: a tensor method given two
    positionals takes a number first)."""
    facts = values(ctx)
    first = facts.of(node.args[0])
    if first.kind == NUMBER and node.func.attr.endswith("_"):  # type: ignore[attr-defined]
        return True  # (``meter.add(loss.item(), n)``: ``add`` is not torch's alone)
    return (first.kind in (None, NUMBER) and facts.of(receiver).tensor
            and facts.of(node.args[-1]).tensor)


@rule("TV126")
def scalar_overloads(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags the deprecated scalar-first overloads of ``add_``, ``addcmul_`` and relatives.

    ## What it does
    Flags ``E.add_(n, t)``, ``E.sub_(n, t)``, ``E.add(n, t)``, ``E.sub(n, t)``
    (two positional arguments), ``E.addcmul_(v, a, b)``, ``E.addcdiv_(v, a, b)``,
    ``E.addcmul(v, a, b)``, ``E.addcdiv(v, a, b)`` (three), and ``torch.add(x,
    n, t)``, ``torch.sub(x, n, t)`` (three), ``torch.addcmul(x, v, a, b)``,
    ``torch.addcdiv(x, v, a, b)`` (four); and the matrix products ``addmm``,
    ``addmv``, ``addbmm``, ``baddbmm`` and ``addr`` (in place or not) given
    ``beta`` and ``alpha`` first, ``E.addmm_(beta, alpha, m1, m2)`` (four) or
    ``E.addmm_(beta, m1, m2)`` (three), and their functions
    ``torch.addmm(beta, x, alpha, m1, m2)`` (five) or ``torch.addmm(beta, x, m1,
    m2)`` (four).  Position: the call.

    The functions are resolved through imports.  A method may be called on any
    object, so a method call is flagged only in a file that uses torch, not on
    a bare ``self``/``cls``, and only when its first argument is plainly a
    number: a numeric constant, a negation (``-lr``, ``-group['lr']``),
    arithmetic with a numeric constant (``1 - beta1``), ``float(...)``, or a
    name (or string key) whose words name a step size or a coefficient
    (``lr``, ``alpha``, ``beta2``, ``momentum``, ``weight_decay``,
    ``step_size``, ``dampening``, ``scale``...), or where the value facts
    (``analysis/values.py``) make it evident: a number first in an in-place
    method (``r.add_(a - b, t)`` with ``a``, ``b`` numbers), or a receiver and a
    last argument that are tensors (``r = torch.zeros(n)``; ``r.add_(c, t)``).
    ``x.add_(y, alpha=2)``, ``x.add(y)`` and ``s.add(item)`` are left alone.

    ## Why is this bad?
    PyTorch 1.x moved the scalar behind the tensors as a keyword; on PyTorch
    2.13 the old order still works but warns ``UserWarning: This overload of
    add_ is deprecated: add_(Number alpha, Tensor other)`` (once per process
    and overload).  The optimizers of the 0.3 era (``p.data.add_(-lr, d_p)``,
    ``exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)``) are full of it,
    and distance matrices of it (``d.addmm_(1, -2, x, x.t())`` warns
    ``This overload of addmm_ is deprecated: addmm_(Number beta, Number alpha,
    Tensor mat1, Tensor mat2)``).

    ## Example
    ```python
    p.data.add_(-group['lr'], d_p)
    exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)
    dist.addmm_(1, -2, x, y.t())
    ```

    Use instead:
    ```python
    p.data.add_(d_p, alpha=-group['lr'])
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    dist.addmm_(x, y.t(), beta=1, alpha=-2)
    ```

    ## Fix safety
    The fix is *safe*: the keyword form computes exactly what the old overload
    computed (``x + n * t``, ``x + v * a * b``, ``beta * x + alpha * (m1 @ m2)``).
    The argument list is rewritten on one line; a call whose arguments hold a
    comment gets no fix.
    When the receiver is ``E.data``, TV004 also flags the call and its fix
    (under ``--unsafe-fixes``) rewrites the same arguments; the fixer applies
    one of the two per round and either way ends with ``add_(t, alpha=n)``.
    No name changes, so a test that patches ``torch.add`` by string still
    replaces what the code calls (one that asserts the mock's arguments,
    ``assert_called_with(-lr, g)``, sees the new order: update it by hand).
    """
    found = overload(ctx, node)
    if found is None:
        return
    name, scalars = found
    src = ctx.source
    texts = [src.text(a) if not isinstance(a, ast.NamedExpr) else f"({src.text(a)})"
             for a in node.args]
    at = dict(scalars)
    rest = [text for i, text in enumerate(texts) if i not in at]
    keywords = [f"{kw}={texts[i]}" for i, kw in scalars]
    new_args = f"({', '.join(rest + keywords)})"
    arg_text = src.between(src.end(node.func), src.end(node))
    fix = None
    if not has_comment(arg_text) and arg_text.lstrip().startswith("("):
        fix = Fix((Edit(src.end(node.func), src.end(node), new_args),), SAFE)
    yield Report(
        node,
        f"`{src.quote(node, 40)}` uses the deprecated scalar-first overload of {name} "
        f"(warns on 2.13); use `{name}{shorten(new_args, 50)}`",
        fix,
    )
