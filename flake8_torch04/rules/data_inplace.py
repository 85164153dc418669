"""TV004: in-place changes through ``.data``, invisible to autograd."""
from __future__ import annotations

import ast
import re
from typing import Iterable, Iterator, List, Optional, Tuple

from ..analysis import resolve as analysis_resolve
from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.flow import Flow
from ..analysis.grad import grad_disabled
from ..analysis.nodes import innermost, words
from ..analysis.reads import plainly_not_tensor
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..source.text import Edit, has_comment, needs_parens, one_line
from .shared.blocks import multiline_string
from .shared.tables import INIT_RENAMES, SCALAR_FIRST_METHODS

_PARAM_WORDS = frozenset(("weight", "bias", "weights", "biases"))
_BUFFERS = frozenset(("running_mean", "running_var"))
_PARAM_SOURCES = frozenset(("parameters", "named_parameters"))
#: tensor method -> the ``torch.nn.init`` function that does the same to a parameter
_INIT_OPS = {"normal_": "normal_", "uniform_": "uniform_", "zero_": "zeros_", "fill_": None}
#: deprecated ``op_(value, tensor...)`` overloads of in-place methods (TV126's):
#: method -> positional count, keyword
_SCALAR_FIRST = {m: how for m, how in SCALAR_FIRST_METHODS.items() if m.endswith("_")}
#: ``torch.nn.init`` functions that have an in-place ``_`` twin (TV121's)
_INIT_RENAMES = frozenset(INIT_RENAMES)
_LEGACY = "`.data` is a pre-0.4 idiom"
#: in-place methods that change a tensor's shape or strides, not its values:
#: through ``.data`` they now change that other tensor object alone
_RESHAPING = frozenset((
    "t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "unsqueeze_", "resize_",
    "resize_as_", "as_strided_", "set_",
))


def _inplace_method(name: str) -> bool:
    """A public name ending in a single ``_``: ``add_``, ``zero_``, ``masked_fill_``."""
    return (
        len(name) > 1 and name.endswith("_") and not name.endswith("__")
        and not name.startswith("_")
    )


def _data_of(node: ast.AST) -> Optional[Tuple[ast.AST, ast.Attribute]]:
    """``(E, E.data)`` for ``E.data`` and ``E.data[...]``."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "data":
        return node.value, node
    return None


def _bare_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _param_attr(node: ast.AST) -> bool:
    """``m.weight``, ``self.fc.bias``, ``rnn.weight_ih_l0``, ``bn.running_mean``."""
    if not isinstance(node, ast.Attribute):
        return False
    if node.attr in _BUFFERS:
        return True
    ws = words(node.attr)
    return bool(ws) and (ws[0] in _PARAM_WORDS or ws[-1] in _PARAM_WORDS)


def _grad(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "grad"


def _iterated_parameters(flow: Flow, node: ast.AST) -> bool:
    """``p`` in ``for p in model.parameters():`` (or ``named_parameters()``)."""
    k = key(node)
    if k is None or not isinstance(node, ast.Name):
        return False
    iterables = flow.loops_over(k)
    if iterables is not None and not any(_parameters(value) for value in iterables):
        return False  # no such loop: decided without the reaching definitions
    return any(d.kind == "for" and _parameters(d.value) for d in flow.defs(k))


def _parameters(value: Optional[ast.AST]) -> bool:
    """``model.parameters()``, ``m.named_parameters()``."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    return isinstance(func, ast.Attribute) and func.attr in _PARAM_SOURCES


#: autograd libraries whose values also have ``.data``, ``Variable`` and ``.backward()``
_OTHER_AUTOGRAD = (
    r"(?m)^[ \t]*(?:import|from)[ \t]+(?:chainer|micrograd|mxnet|dynet|autograd|theano"
    r"|tensorflow|jax|cupy|tinygrad)\b"
)


def _torch_file(ctx: Context) -> bool:
    """The file imports torch, or uses ``Variable``/``.backward(`` and no other
    autograd library (chainer's and micrograd's values have ``.data`` too)."""
    if ctx.imports_torch or not ctx.uses_torch:
        return ctx.imports_torch
    found = ctx.memo.get("TV004 other autograd")  # (a search of the file: once)
    if found is None:
        found = ctx.memo["TV004 other autograd"] = bool(re.search(_OTHER_AUTOGRAD, ctx.text))
    return not found


def _stored_tensor(ctx: Context, tensor: ast.AST) -> bool:
    """Whether ``tensor`` in ``tensor.data[...] = v`` is taken to be a torch tensor."""
    if _param_attr(tensor) or _grad(tensor):
        return True
    if not _torch_file(ctx) or _bare_self(tensor):
        return False
    base = tensor
    while isinstance(base, (ast.Subscript, ast.Call)):
        base = base.value if isinstance(base, ast.Subscript) else base.func
    k = key(base)
    if k is None:
        return not plainly_not_tensor(tensor, ctx.resolve)
    flow = ctx.flow()
    values = flow.assignments_to(k)
    if values is not None and not any(_not_tensor(ctx, v) for v in values):
        return True  # no such assignment: decided without the reaching definitions
    return not any(
        d.value is not None and d.kind in ("assign", "augassign", "walrus")
        and _not_tensor(ctx, d.value)
        for d in flow.defs(k)
    )


def _not_tensor(ctx: Context, value: ast.AST) -> bool:
    return plainly_not_tensor(value, ctx.resolve) or _built_elsewhere(ctx, value)


def _built_elsewhere(ctx: Context, value: ast.AST) -> bool:
    """A call to something imported from outside torch (``C = CN()``,
    ``Dataset.get_default_config()``): a config object, not a tensor."""
    if not isinstance(value, ast.Call):
        return False
    root = value.func
    while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if not isinstance(root, ast.Name):
        return False
    name = ctx.resolve(root)
    return name is not None and name.split(".", 1)[0] != "torch"


# -- rewriting -------------------------------------------------------------


def _without_data(ctx: Context, data: ast.Attribute) -> Optional[str]:
    """The text of ``E.data`` without ``.data`` (``None`` if it cannot be cut cleanly)."""
    text = ctx.source.text(data)
    head = text[:-4].rstrip() if text.endswith("data") else ""
    if not head.endswith("."):
        return None
    head = head[:-1].rstrip()
    if not head or head.endswith("\\") or has_comment(text[len(head):]):
        return None
    if needs_parens(data.value, ast.Attribute, ctx.source) and not head.endswith(")"):
        head = f"({head})"
    return head


def _arg_data(flow: Flow, tensor: ast.AST, args: Iterable[ast.AST]) -> Iterator[ast.Attribute]:
    """``.data`` reads in ``args`` that can go under ``no_grad``: of a gradient, of a
    parameter, or of the changed tensor itself (outermost only)."""
    target = key(tensor)
    stack = list(args)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Attribute) and node.attr == "data":
            inner = node.value
            if (
                _grad(inner) or _param_attr(inner) or (target and key(inner) == target)
                or _iterated_parameters(flow, inner)
            ):
                yield node
                continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _rewrite(ctx: Context, node: ast.AST,
             changes: List[Tuple[ast.AST, str]]) -> Optional[str]:
    """The text of ``node`` with each ``(inner node, text)`` spliced in."""
    src = ctx.source
    pieces = []
    position = src.start(node)
    for inner, text in sorted(changes, key=lambda c: src.start(c[0])):
        start = src.start(inner)
        if start < position:
            return None  # overlapping changes
        pieces.append(src.between(position, start))
        pieces.append(text)
        position = src.end(inner)
    pieces.append(src.between(position, src.end(node)))
    return "".join(pieces)


def _changes(ctx: Context, tensor: ast.AST, data: ast.Attribute,
             args: Iterable[ast.AST]) -> Optional[List[Tuple[ast.AST, str]]]:
    changes = []
    for node in [data, *_arg_data(ctx.flow(), tensor, args)]:
        text = _without_data(ctx, node)
        if text is None:
            return None
        changes.append((node, text))
    return changes


def spelled(ctx: Context, module: str) -> Tuple[str, Tuple[str, ...]]:
    """How to write ``module`` here with the names the file binds: ``init``,
    ``nn.init`` or ``torch.nn.init``; ``torch...`` plus an import when none does."""
    parts = module.split(".")
    prefixes = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    names = analysis_resolve.resolvable_names(ctx.scope)
    if names is None:
        names = set()
        scope: Optional[analysis_resolve.Scope] = ctx.scope
        while scope is not None:
            names.update(scope.bindings)
            scope = scope.parent
    best: Optional[str] = None
    for name in names:
        qualname = analysis_resolve.lookup(name, ctx.scope)
        if qualname in prefixes:
            candidate = name + module[len(qualname):]
            if best is None or (len(candidate), candidate) < (len(best), best):
                best = candidate
    if best is None:
        return module, ("torch",)
    return best, ()


def _statement(ctx: Context, node: ast.AST) -> Optional[ast.stmt]:
    """The expression statement whose whole value is ``node``, if it is one."""
    parent = ctx.parent
    return parent if isinstance(parent, ast.Expr) and parent.value is node else None


def _indent_unit(ctx: Context, stmt: ast.stmt, indent: str) -> str:
    for parent in reversed(ctx.parents):
        if isinstance(parent, ast.stmt) and not isinstance(parent, ast.Expr):
            outer = ctx.source.lines[parent.lineno - 1]
            outer = outer[:len(outer) - len(outer.lstrip())]
            if indent.startswith(outer) and len(indent) > len(outer):
                return indent[len(outer):]
            break
    return "\t" if "\t" in indent else "    "


def _no_grad_fix(ctx: Context, stmt: ast.stmt, new: str) -> Optional[Fix]:
    """``stmt`` rewritten to ``new`` and re-indented under ``with torch.no_grad():``."""
    src = ctx.source
    (line, col), (end_line, end_col) = src.start(stmt), src.end(stmt)
    first = src.lines[line - 1]
    indent = first[:col]
    tail = src.lines[end_line - 1][end_col:].strip()
    if indent.strip() or (tail and not tail.startswith("#")) or multiline_string(stmt):
        return None
    newline = "\r\n" if first.endswith("\r\n") else "\n"
    unit = _indent_unit(ctx, stmt, indent)
    body = ("\n" + unit).join(new.split("\n"))
    torch, imports = spelled(ctx, "torch")
    text = f"with {torch}.no_grad():{newline}{indent}{unit}{body}"
    return Fix((Edit((line, col), (end_line, end_col), text),), UNSAFE, imports)


def _guarded_fix(ctx: Context, node: ast.AST, stmt: Optional[ast.stmt],
                 new: str) -> Optional[Fix]:
    """``node`` rewritten to ``new``: as it is under ``no_grad`` already; else its
    statement under a new ``with torch.no_grad():``; else nothing."""
    if grad_disabled(ctx.parents, ctx.resolve):
        return Fix((ctx.source.replace(node, new),), UNSAFE)
    if stmt is None:
        return None
    whole = _rewrite(ctx, stmt, [(node, new)]) if stmt is not node else new
    return _no_grad_fix(ctx, stmt, whole) if whole is not None else None


def _guarded(ctx: Context, text: str) -> str:
    """``text`` as the modern fix shows it: under ``with torch.no_grad():``."""
    if grad_disabled(ctx.parents, ctx.resolve):
        return text
    return f"with torch.no_grad(): {text}"


def _message(ctx: Context, node: ast.AST, suggestion: str,
             what: str = "bypasses autograd", legacy: bool = True) -> str:
    said = f" ({_LEGACY})" if legacy else ""
    return f"`{ctx.source.quote(node)}` {what}{said}; use `{one_line(suggestion)}`"


# -- the rule --------------------------------------------------------------


@rule("TV004")
def data_inplace(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags in-place changes made through ``.data``.

    ## What it does
    Flags ``E.data.op_(...)`` and ``E.data[...].op_(...)`` for any in-place
    method ``op_`` (a public name ending in a single ``_``: ``add_``, ``zero_``,
    ``normal_``, ``masked_fill_``, ``resize_``...), including ``p.grad.data.zero_()``;
    ``.data`` passed to a ``torch.nn.init`` function or as the ``out=`` of a torch
    call; and the stores ``E.data[...] = v``, ``E.data op= v`` and ``E.data = v``.
    A store is flagged when ``E`` is parameter-like (``m.weight``, ``self.fc.bias``,
    ``x.grad``), or when the file uses torch (imports it, or uses ``Variable`` or
    ``.backward(`` without importing chainer, micrograd or another autograd
    library) and ``E`` is neither a bare ``self``/``cls`` nor built as a
    list, dict, set, tuple, numpy or pandas value, or by a call to something
    imported from outside torch (a config object ``C = CN()``), in the same
    function: so ``self.data[i] = v`` in a dataset,
    ``buf = np.zeros(3); buf.data[0:1] = b"x"`` and
    ``C.data = Dataset.get_default_config()`` are left alone.
    ``self.data.op_(...)`` (an attribute that happens to be called ``data``) is
    left alone too.

    ## Why is this bad?
    A change made through ``.data`` is invisible to autograd: if the tensor was
    saved for a backward pass, the gradients are silently wrong.  Since PyTorch
    0.4, ``with torch.no_grad():`` is the supported way to update parameters (an
    in-place change there is recorded in the version counter, so autograd raises
    instead of computing wrong gradients), ``torch.nn.init`` functions take the
    parameter itself, and ``x.detach()`` shares storage like ``.data`` but reports
    such changes.  A method that changes the shape rather than the values
    (``t_``, ``transpose_``, ``squeeze_``, ``unsqueeze_``, ``resize_``, ``set_``)
    does not even reach ``x`` any more: in 0.3 ``x.data`` was the tensor ``x``
    wrapped, on PyTorch 0.4+ it is another tensor object sharing the storage, so
    ``x.data.t_()`` transposes that object alone and ``x`` keeps its shape
    (checked on 2.13: ``x = torch.zeros(3, 5); x.data.t_()`` leaves
    ``x.shape == (3, 5)``), and the code after it fails on a shape mismatch or
    computes along the wrong axis.

    ## Example
    ```python
    m.weight.data.normal_(0, 0.02)
    init.xavier_uniform(m.weight.data)
    p.grad.data.zero_()
    p.data.add_(-lr, p.grad.data)
    w.data -= lr * w.grad.data
    ```

    Use instead:
    ```python
    nn.init.normal_(m.weight, 0, 0.02)
    init.xavier_uniform_(m.weight)
    p.grad.zero_()
    with torch.no_grad():
        p.add_(p.grad, alpha=-lr)
    with torch.no_grad():
        w -= lr * w.grad
    ```

    ## Fix safety
    ``x.grad.data.zero_()`` -> ``x.grad.zero_()`` and
    ``init.xavier_uniform(m.weight.data)`` -> ``init.xavier_uniform_(m.weight)``
    are *safe*: the same values end up in the same storage (the ``torch.nn.init``
    fix is unsafe where the call's result is used, as it then returns the
    parameter).  Every other fix is *unsafe*: ``nn.init.normal_(m.weight, 0, 0.02)``
    for an init-style method on a parameter, and the statement moved under a new
    ``with torch.no_grad():`` (the ``.data`` dropped, ``add_(-lr, g)`` rewritten
    as ``add_(g, alpha=-lr)``) otherwise, because the change now bumps the
    tensor's version counter and backward raises where it used to compute
    wrong gradients.  That fix is offered only where the flagged code is a
    whole statement on its own lines, or heads a chain of in-place methods
    that is one (``x.data[:, 0].sub_(m).div_(s)``: the message and the fix
    keep the whole chain); inside ``torch.no_grad()`` already, only ``.data``
    is dropped.  Statements next to each other that a run of the fixer puts
    under ``no_grad`` share one block (nothing between them, not even a
    comment or a blank line; see ``fix/blocks.py``).  The update step
    ``w.data = w.data - lr * w.grad.data``
    becomes ``with torch.no_grad(): w -= lr * w.grad`` (never ``w = ...``: ``w``
    would stop being a leaf and ``w.grad`` would be ``None``).  Any other
    ``E.data = v`` gets no fix: ``v`` may differ in shape, dtype or device; the
    message suggests ``with torch.no_grad(): E.copy_(v)`` where ``v`` has ``E``'s
    shape, else keeping the line (never ``E = v``, which
    for ``q`` in ``zip(a.parameters(), b.parameters())`` updates nothing), except
    where ``v`` is ``E``'s own values moved to a device or dtype
    (``x.data = x.data.cuda()``, ``.type(T)``, ``.float()``): ``copy_`` keeps
    ``E``'s device and dtype, so the message says ``x = x.cuda()`` where ``x``
    needs no grad (else keep the line; a parameter moves with its module).
    ``g.data = p.grad.data`` (``g`` shares ``p.grad``'s storage from then on;
    also ``p.data = shared[name]`` where every item the file puts in ``shared``
    is a tensor's ``.data``) and ``g.data = g.data.clone()`` (storage of its own
    for ``g``) say ``g.set_(p.grad)`` and ``g.set_(g.clone())``: ``copy_`` would
    copy the values once (``g`` into itself) and change what later updates reach.
    A swap in a function that also computes with ``E`` itself (reads it other
    than through ``.data``, ``.size()`` and the like: ``u.data = f(w, u.data)``
    then ``u.dot(w.mv(v))``, a power iteration; ``z.data = codes[i]`` then
    ``g(z)``) is left alone: the graph built from ``E`` saves it, and ``copy_``
    or ``set_`` would change what the graph of an earlier call saved (backward
    raises "modified by an inplace operation"), where ``E.data = v`` still swaps
    the tensor past that graph exactly as 0.3 did.
    """
    if isinstance(node, ast.Call):
        report = _inplace_call(ctx, node) or _init_call(ctx, node) or _out_call(ctx, node)
    else:
        report = _store(ctx, node)
    if report is not None:
        yield report


def _inplace_call(ctx: Context, call: ast.Call) -> Optional[Report]:
    func = call.func
    if not isinstance(func, ast.Attribute) or not _inplace_method(func.attr):
        return None
    found = _data_of(func.value)
    if found is None or _bare_self(found[0]):
        return None
    tensor, data = found
    op = func.attr
    src = ctx.source
    stmt = _statement(ctx, call)
    indexed = func.value is not data
    if _grad(tensor) and op == "zero_" and not indexed and not call.args and not call.keywords:
        new = _without_data(ctx, data)
        suggestion = f"{new or src.text(tensor)}.zero_()"
        fix = Fix((src.replace(data, new),), SAFE) if new is not None else None
        return Report(call, _message(ctx, call, suggestion), fix)
    if op in _INIT_OPS and stmt is not None and not indexed and not call.keywords and (
        _param_attr(tensor) or _iterated_parameters(ctx.flow(), tensor)
    ):
        report = _init_method(ctx, call, tensor, op)
        if report is not None:
            return report
    what, legacy = "bypasses autograd", True
    if op in _RESHAPING and not indexed:
        what, legacy = (f"changes the shape of `.data` alone, not of `{src.quote(tensor, 30)}` "
                        "(since PyTorch 0.4 `.data` is another tensor)"), False
    changes = _changes(ctx, tensor, data, call.args)
    new = _rewrite(ctx, call, changes) if changes is not None else None
    if new is not None and op in _SCALAR_FIRST:
        new = _scalar_last(ctx, call, tensor, changes) or new
    chain = _chain(ctx, call) if stmt is None and new is not None else None
    if chain is not None:
        # ``x.data[:, 0].sub_(m).div_(s)``: the suggestion and the fix keep the
        # whole chain (one change inside the statement: the splice cannot fail)
        suggestion = _rewrite(ctx, chain.value, [(call, new)]) or new
        return Report(call, _message(ctx, call, _guarded(ctx, suggestion), what, legacy),
                      _guarded_fix(ctx, call, chain, new))
    fix = _guarded_fix(ctx, call, stmt, new) if new is not None else None
    if new is None:
        new = f"{src.text(tensor)}.{op}(...)"
    return Report(call, _message(ctx, call, _guarded(ctx, new), what, legacy), fix)


def _chain(ctx: Context, call: ast.Call) -> Optional[ast.Expr]:
    """The expression statement ``call.m1_(...).m2_(...)`` that ``call`` heads,
    through in-place methods only, if it is one."""
    node: ast.AST = call
    parents = ctx.parents
    at = len(parents) - 1
    while at >= 1:
        attr, outer = parents[at], parents[at - 1]
        if not (isinstance(attr, ast.Attribute) and attr.value is node
                and _inplace_method(attr.attr)
                and isinstance(outer, ast.Call) and outer.func is attr):
            return None
        node = outer
        at -= 2
        if at >= 0 and isinstance(parents[at], ast.Expr) and parents[at].value is node:
            return parents[at]  # type: ignore[return-value]
    return None


def _init_method(ctx: Context, call: ast.Call, tensor: ast.AST, op: str) -> Optional[Report]:
    """``m.weight.data.normal_(0, 0.02)`` -> ``nn.init.normal_(m.weight, 0, 0.02)``."""
    src = ctx.source
    args = call.args
    function = _INIT_OPS[op]
    if op == "fill_":
        if len(args) != 1:
            return None
        value = args[0]
        number = value.value if isinstance(value, ast.Constant) else None
        if type(number) in (int, float) and number in (0, 1):
            function, args = ("ones_" if number == 1 else "zeros_"), []
        else:
            function = "constant_"
    if any(isinstance(a, ast.Starred) for a in args):
        return None
    init, imports = spelled(ctx, "torch.nn.init")
    text = ", ".join([src.text(tensor), *(src.text(a) for a in args)])
    new = f"{init}.{function}({text})"
    fix = None if has_comment(src.text(call)) else Fix((src.replace(call, new),), UNSAFE, imports)
    return Report(call, _message(ctx, call, new), fix)


def _scalar_last(ctx: Context, call: ast.Call, tensor: ast.AST,
                 changes: List[Tuple[ast.AST, str]]) -> Optional[str]:
    """``p.add_(-lr, g)`` -> ``p.add_(g, alpha=-lr)`` (the deprecated overload)."""
    count, keyword = _SCALAR_FIRST[call.func.attr]
    args = call.args
    if len(args) != count or call.keywords or any(isinstance(a, ast.Starred) for a in args):
        return None
    texts = []
    for arg in args:
        text = _rewrite(ctx, arg, [c for c in changes if _inside(ctx, c[0], arg)])
        if text is None or has_comment(text):
            return None
        texts.append(text)
    receiver = _rewrite(ctx, call.func.value,
                        [c for c in changes if _inside(ctx, c[0], call.func.value)])
    if receiver is None:
        return None
    rest = ", ".join(texts[1:])
    return f"{receiver}.{call.func.attr}({rest}, {keyword}={texts[0]})"


def _inside(ctx: Context, inner: ast.AST, outer: ast.AST) -> bool:
    src = ctx.source
    return src.start(outer) <= src.start(inner) and src.end(inner) <= src.end(outer)


def _keyword_value(call: ast.Call, name: str) -> Optional[ast.AST]:
    """The value of the call's keyword argument ``name``, if it has one."""
    for kw in call.keywords:  # (a loop: a generator costs more than the few keywords)
        if kw.arg == name:
            return kw.value
    return None


def _init_call(ctx: Context, call: ast.Call) -> Optional[Report]:
    """``init.xavier_uniform(m.weight.data)`` -> ``init.xavier_uniform_(m.weight)``."""
    arg = call.args[0] if call.args else _keyword_value(call, "tensor")
    if not (isinstance(arg, ast.Attribute) and arg.attr == "data"):
        return None
    name = ctx.resolve(call.func) or ""
    if not name.startswith("torch.nn.init."):
        return None
    function = name.rsplit(".", 1)[-1]
    if function.startswith("_") or function == "calculate_gain":
        return None
    src = ctx.source
    tensor = _without_data(ctx, arg)
    changes = [(arg, tensor)] if tensor is not None else []
    func = call.func
    if function in _INIT_RENAMES and isinstance(func, ast.Attribute):
        changes.append((func, f"{src.text(func.value)}.{function}_"))
    new = _rewrite(ctx, call, changes) if tensor is not None else None
    fix = None
    if new is not None:
        safety = SAFE if _statement(ctx, call) is not None else UNSAFE
        fix = Fix(tuple(src.replace(n, t) for n, t in changes), safety)
    suggestion = new or f"{src.text(func)}({src.text(arg.value)}, ...)"
    return Report(call, _message(ctx, call, suggestion, "initializes through `.data`"), fix)


def _out_call(ctx: Context, call: ast.Call) -> Optional[Report]:
    """``torch.cat(xs, out=v.data)``."""
    out = _keyword_value(call, "out")
    if not (isinstance(out, ast.Attribute) and out.attr == "data"):
        return None
    name = ctx.resolve(call.func) or ""
    if not name.startswith("torch."):
        return None
    changes = _changes(ctx, out.value, out, [*call.args, *(k.value for k in call.keywords
                                                           if k.value is not out)])
    new = _rewrite(ctx, call, changes) if changes is not None else None
    fix = _guarded_fix(ctx, call, _statement(ctx, call), new) if new else None
    suggestion = new or f"{ctx.source.text(call.func)}(..., out={ctx.source.text(out.value)})"
    return Report(call, _message(ctx, call, _guarded(ctx, suggestion),
                                 "writes `out=` into `.data`"), fix)


def _store(ctx: Context, stmt: ast.stmt) -> Optional[Report]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    for target in _flat(targets):
        found = _data_of(target)
        if found is not None and _stored_tensor(ctx, found[0]):
            break
    else:
        return None
    tensor, data = found
    src = ctx.source
    if target is data and isinstance(stmt, ast.Assign):
        value = _paired_value(stmt, target)
        if value is None:
            return Report(stmt, f"`{src.quote(stmt)}` swaps `.data` past autograd ({_LEGACY}); "
                                f"use `with torch.no_grad(): {src.text(tensor)}.copy_(...)`")
        parameter = _param_attr(tensor) or _grad(tensor)
        if (not parameter and _built_elsewhere(ctx, value)
                and not value.args and not value.keywords):
            # ``C.data = Dataset.get_default_config()``: a config object made
            # from nothing (``copy.deepcopy(t)`` and the like may be tensors)
            return None
        step = _update_step(ctx, tensor, value)
        if step is not None:  # ``w.data = w.data - lr * w.grad.data``
            op, rest = step
            new = f"{src.text(tensor)} {op}= {rest}"
            return Report(stmt, _message(ctx, stmt, _guarded(ctx, new),
                                         "swaps `.data` past autograd"),
                          _guarded_fix(ctx, stmt, stmt, new))
        changes = _changes(ctx, tensor, data, [value])
        text = _rewrite(ctx, value, changes[1:]) if changes else None
        text = text or src.text(value)
        if _converts(tensor, value):
            # ``x.data = x.data.cuda()``: ``copy_`` keeps ``x``'s device and dtype
            what = src.text(tensor)
            if _grad(tensor):
                advice = "keep it (an assigned `.grad` must match its parameter)"
            elif parameter:
                advice = "keep it, or move its module with `.to(...)`"
            else:
                advice = f"use `{what} = {text}` if `{what}` needs no grad, else keep it"
            return Report(stmt, f"`{src.quote(stmt)}` swaps `.data` past autograd (a pre-0.4 "
                                f"idiom; `copy_` cannot move it); {one_line(advice)}")
        # ``g.data = p.grad.data`` shares ``p.grad``'s storage from then on and
        # ``g.data = g.data.clone()`` gives ``g`` storage of its own: ``copy_``
        # would copy the values once (into itself); ``set_`` swaps the storage
        if _storage_of(tensor, value) or _held_storage(ctx, value):
            method, caveat = "set_", ""
        elif _computed_with(ctx, stmt, tensor):
            # ``u.data = v`` then ``u.dot(w)``: the graphs built from ``u``
            # save it; ``copy_`` (or ``set_``) would change what a graph of an
            # earlier call saved, and backward raise, where the swap still
            # leaves it alone as in 0.3 (spectral norm's power iteration)
            return None
        else:
            what = src.quote(tensor, 20)
            method, caveat = "copy_", f" if the new value has `{what}`'s shape, else keep it"
        # never ``E = v``: a leaf that required grad stops being one, and a loop
        # variable over ``.parameters()`` (also through ``zip``) updates nothing
        suggestion = _guarded(ctx, f"{src.text(tensor)}.{method}({text})")
        return Report(stmt, _message(ctx, stmt, suggestion, "swaps `.data` past autograd")
                      + caveat)
    fix = None
    new = None
    if len(targets) == 1 and target is targets[0]:
        changes = _changes(ctx, tensor, data, [stmt.value])
        new = _rewrite(ctx, stmt, changes) if changes is not None else None
        if new is not None:
            fix = _guarded_fix(ctx, stmt, stmt, new)
    if new is None:
        new = src.text(stmt).replace(".data", "", 1)
    return Report(stmt, _message(ctx, stmt, _guarded(ctx, new)), fix)


#: what reads of a tensor ask of it without computing with its values
_METADATA = frozenset((
    "data", "grad", "size", "shape", "dim", "ndimension", "numel", "nelement", "dtype",
    "device", "is_cuda", "requires_grad", "type",
))


def _computed_with(ctx: Context, stmt: ast.stmt, tensor: ast.AST) -> bool:
    """Whether the function that swaps ``tensor.data`` (or the module) also
    computes with ``tensor`` itself: reads it other than through ``.data``,
    ``.size()`` and the like or as a key (``optimizer.state[p]``), outside its
    swaps."""
    k = key(tensor)
    if k is None:
        return True  # (unknown: say nothing)
    scope = innermost(ctx.parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
        or ctx.tree
    stack: List[Tuple[ast.AST, Optional[ast.AST]]] = [(scope, None)]
    while stack:
        node, parent = stack.pop()
        if node is stmt or isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr == "data" and key(t.value) == k
                for t in node.targets):
            continue  # (another swap of it)
        if (isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load)
                and key(node) == k):
            if not (isinstance(parent, ast.Attribute) and parent.attr in _METADATA
                    or isinstance(parent, ast.Subscript) and parent.slice is node):
                return True  # (``state[p]``: a key, not a value computed with)
            continue
        stack.extend((child, node) for child in ast.iter_child_nodes(node))
    return False


_STEP_OPS = {ast.Sub: "-", ast.Add: "+", ast.Mult: "*", ast.Div: "/"}
#: methods that give a tensor's values on another device or as another dtype
_CONVERSIONS = frozenset((
    "cuda", "cpu", "to", "type", "float", "double", "half", "bfloat16", "long", "int",
    "short", "char", "byte", "bool",
))


def _converts(tensor: ast.AST, value: ast.AST) -> bool:
    """``value`` is ``tensor``'s own values moved to a device or dtype:
    ``x.data.cuda()``, ``x.data.type(T)``, ``x.cpu()``."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return False
    func = value.func
    if func.attr not in _CONVERSIONS or func.attr == "type" and not value.args:
        return False
    receiver = func.value
    if isinstance(receiver, ast.Attribute) and receiver.attr == "data":
        receiver = receiver.value
    k = key(tensor)
    return k is not None and key(receiver) == k


def _storage_of(tensor: ast.AST, value: ast.AST) -> bool:
    """``value`` is another tensor's storage (``p.grad.data``) or a copy of
    ``tensor``'s own values (``g.data.clone()``, ``g.clone()``)."""
    if isinstance(value, ast.Attribute) and value.attr == "data":
        return isinstance(value.value, (ast.Name, ast.Attribute))
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "clone" and not value.args):
        return False
    receiver = value.func.value
    if isinstance(receiver, ast.Attribute) and receiver.attr == "data":
        receiver = receiver.value
    k = key(tensor)
    return k is not None and key(receiver) == k


def _held_storage(ctx: Context, value: ast.AST) -> bool:
    """``shared[name]`` where every item the file puts in ``shared`` is a tensor's
    ``.data`` (``shared[name] = p.data`` over another module's parameters): the
    assignment shares that storage, as ``p.data = q.data`` does."""
    if not isinstance(value, ast.Subscript) or not isinstance(value.value, ast.Name):
        return False
    name = value.value.id
    stored = [node.value for node in ast.walk(ctx.tree) if isinstance(node, ast.Assign)
              and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)
              and key(node.targets[0].value) == name] if f"{name}[" in ctx.text else []
    return bool(stored) and all(
        isinstance(v, ast.Attribute) and v.attr == "data"
        and isinstance(v.value, (ast.Name, ast.Attribute)) for v in stored)


def _update_step(ctx: Context, tensor: ast.AST, value: ast.AST) -> Optional[Tuple[str, str]]:
    """``("-", "lr * w.grad")`` for ``w.data - lr * w.grad.data`` assigned to
    ``w.data``: the in-place update it spells, its ``.data`` dropped."""
    if not isinstance(value, ast.BinOp) or type(value.op) not in _STEP_OPS:
        return None
    found = _data_of(value.left)
    if found is None or found[1] is not value.left or key(found[0]) != key(tensor) \
            or key(tensor) is None:
        return None
    right = value.right
    changes = []
    for node in ast.walk(right):
        if isinstance(node, ast.Attribute) and node.attr == "data":
            text = _without_data(ctx, node)
            if text is None:
                return None
            changes.append((node, text))
    outer = [c for c in changes
             if not any(o is not c and _inside(ctx, c[0], o[0]) for o in changes)]
    text = _rewrite(ctx, right, outer) if outer else ctx.source.text(right)
    if text is None or has_comment(text):
        return None
    # (``w -= a + b`` subtracts the whole right side, as ``w.data - (a + b)`` did)
    return _STEP_OPS[type(value.op)], text


def _paired_value(stmt: ast.Assign, target: ast.AST) -> Optional[ast.AST]:
    """The value ``target`` receives: the whole value, or for
    ``a.data, b.data = x, y`` its own element (``None`` when unpacked from
    something else, ``a.data, b.data = pair``)."""
    if len(stmt.targets) != 1 or stmt.targets[0] is target:
        return stmt.value
    names, value = stmt.targets[0], stmt.value
    if not isinstance(names, (ast.Tuple, ast.List)) or not isinstance(
            value, (ast.Tuple, ast.List)) or len(names.elts) != len(value.elts):
        return None
    for name, element in zip(names.elts, value.elts):
        if name is target and not isinstance(element, ast.Starred):
            return element
    return None


def _flat(targets: Iterable[ast.AST]) -> Iterator[ast.AST]:
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            yield from _flat(target.elts)
        elif isinstance(target, ast.Starred):
            yield from _flat([target.value])
        else:
            yield target
