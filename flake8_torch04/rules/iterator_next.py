"""TV110: ``.next()`` on a DataLoader's iterator, which has only ``__next__`` since PyTorch 0.4."""
from __future__ import annotations

import ast
from typing import Dict, Iterable, Iterator, List, Optional

from ..analysis.callers import passed_arguments
from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.lines import lines_matching
from ..analysis.nodes import every_node, walk_hits
from ..analysis.registry import rule
from ..analysis.resolve import builtin_call, key
from ..source.text import has_comment

_DATA_LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
_MEMO = "TV110.assignments"
#: words looked for in the parts of a file that spell them, before one walk for
#: every key (a file of many loaders asks about many: a pass over it for each)
_PRUNED_WORDS = 2


@rule("TV110")
def iterator_next(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``it.next()`` where ``it`` is an iterator of a torch ``DataLoader``.

    ## What it does
    Flags a call ``X.next()`` without arguments where ``X`` is ``iter(L)``,
    ``enumerate(L)``, ``enumerate(L, start)`` or ``iter(enumerate(L))``
    itself, or a name or attribute (``data_iter``, ``self.data_iter``) that
    every assignment in the file sets to one of those; and ``L`` is evidently a
    torch ``DataLoader``: a call of ``torch.utils.data.DataLoader`` (resolved
    through imports), a name or attribute assigned such a call somewhere in
    the file, or, in a file that imports torch, a name or attribute whose last
    part contains ``loader`` (``train_loader``, ``self.dataloader``,
    ``dataloaders['train']``: the loader is often built in another module).
    ``X`` may also be a parameter of its function (nothing else reaching it)
    where every call of the function in view (see "How values are followed"
    in docs/how-it-works.md) passes such an iterator, itself or through a name
    every binding of which that reaches the call is one (``def next(loader):
    return loader.next()[0]`` called as ``next(data_iter)``).  A binding to
    ``None`` (``self.data_iter = None`` until the iterator is made) does not
    count.
    ``.next()`` on a generator, on a Python 2 iterator of some other object
    (``iter(lines).next()``, ``reader.next()``), on an iterator that is also
    bound to something else, or on an iterator taken from a name without
    ``loader`` in a file where nothing shows it is a DataLoader, is left
    alone.

    ## Why is this bad?
    PyTorch 0.3's ``DataLoaderIter`` had a Python 2 style ``next`` method.
    Since 0.4 the iterator only has ``__next__``: ``iter(loader).next()``
    raises ``AttributeError: '_SingleProcessDataLoaderIter' object has no
    attribute 'next'`` and the program stops (typically a GAN's
    ``data = data_iter.next()``, or a tutorial's first look at a batch).
    ``enumerate(loader, 0).next()`` (a test batch in a 2017 training loop)
    only ever worked on Python 2: on Python 3 it raises ``AttributeError:
    'enumerate' object has no attribute 'next'``.  (``zip(...).next()`` never
    worked on either, since Python 2's ``zip`` made a list: not flagged.)

    ## Example
    ```python
    data_iter = iter(train_loader)
    images, labels = data_iter.next()
    j, data = enumerate(test_loader, 0).next()
    ```

    Use instead:
    ```python
    data_iter = iter(train_loader)
    images, labels = next(data_iter)
    j, data = next(enumerate(test_loader, 0))
    ```

    ## Fix safety
    ``next(X)`` is *safe*: it is exactly what ``X.next()`` did on 0.3's
    iterator, and on Python 2's ``enumerate`` (``StopIteration`` at the end
    included).  In a module that binds ``next`` itself (a helper ``def
    next(loader)``, common in 2017 GAN code) ``next(X)`` would call that
    instead: the fix writes ``X.__next__()`` there, the same method.
    """
    func = node.func
    if not (
        isinstance(func, ast.Attribute) and func.attr == "next"
        and not node.args and not node.keywords
    ):
        return
    receiver = func.value
    passed = None
    if isinstance(receiver, ast.Call):
        if not _iter_of_loader(ctx, receiver):
            return
    else:
        k = key(receiver)
        if k is None or ctx.resolve(receiver) is not None:
            return
        values = [v for v in _assignments(ctx, k)  # (``self.it = None`` until it is made)
                  if not (isinstance(v, ast.Constant) and v.value is None)]
        defs = ctx.flow().reaching(receiver) if isinstance(receiver, ast.Name) else None
        if defs and all(d.kind == "assign" and d.value is not None for d in defs):
            values = [d.value for d in defs]  # (``loader = iter(loader)``: what reaches)
        if not values or not all(v is not None and _iter_of_loader(ctx, v) for v in values):
            passed = _passed_iterators(ctx, receiver)
            if not passed:
                return
    src = ctx.source
    receiver_text = src.text(receiver)
    # (a module that defines its own ``next``, often a helper wrapping ``.next()``,
    # would call itself: the method is named there)
    shadowed = ctx.scope.binds("next") or "next" in ctx.flow_of(ctx.tree).bound
    call = f"{receiver_text}.__next__()" if shadowed else f"next({receiver_text})"
    fix = None
    if not has_comment(src.text(node)):
        fix = Fix((src.replace(node, call),), SAFE)
    what = (
        "an `enumerate` object has no `.next()` in Python 3 (AttributeError)"
        if _enumerates(ctx, receiver) or passed and any(
            _enumerates(c, v) for c, v in passed) else
        "a DataLoader iterator has no `.next()` since PyTorch 0.4 (AttributeError)"
    )
    also = " (this module's `next` is not the builtin)" if shadowed else ""
    yield Report(node, f"{what}; use `{call}`{also}", fix)


def _passed_iterators(ctx: Context, receiver: ast.AST) -> Optional[list]:
    """Where ``receiver`` is a parameter of its function (and nothing else reaches
    it): what every call of the function passes for it, as ``(context,
    value)``, where each is an iterator of a loader (see :func:`_iter_of_loader`:
    itself, or a name every binding of which that reaches the call is one);
    else ``None``."""
    if not isinstance(receiver, ast.Name):
        return None
    flow = ctx.flow()
    defs = flow.reaching(receiver)
    if not defs or len(defs) != 1 or defs[0].kind != "param":
        return None
    sites = passed_arguments(ctx, defs[0].node, flow.node)
    if not sites:
        return None
    found = []
    for other, value, at in sites:
        if isinstance(value, ast.Name):
            bound = other.flow_of(at).reaching(value)
            values = [d.value if d.kind == "assign" else None for d in bound or ()]
        else:
            values = [value]
        if not values or not all(v is not None and _iter_of_loader(other, v) for v in values):
            return None
        found.extend((other, v) for v in values)
    return found


def _iter_of_loader(ctx: Context, value: ast.AST) -> bool:
    """``iter(L)``, ``enumerate(L[, start])`` or ``iter(enumerate(L))`` where
    ``L`` is evidently a torch DataLoader."""
    if not isinstance(value, ast.Call):
        return False
    if _enumerate(ctx, value):
        loader = value.args[0]
    elif (
        isinstance(value.func, ast.Name)
        and value.func.id == "iter" and len(value.args) == 1 and not value.keywords
    ):
        loader = value.args[0]
        if _enumerate(ctx, loader):
            loader = loader.args[0]  # type: ignore[attr-defined]
    else:
        return False
    if _is_loader_call(ctx, loader):
        return True
    if isinstance(loader, ast.Subscript):  # ``dataloaders['train']``: by its name only
        return _named_loader(ctx, key(loader.value))
    k = key(loader)
    if k is None:
        return False
    if any(v is not None and _is_loader_call(ctx, v) for v in _assignments(ctx, k)):
        return True
    return _named_loader(ctx, k)


def _enumerate(ctx: Context, value: ast.AST) -> bool:
    """A call of the builtin ``enumerate`` with an iterable and, perhaps, a start."""
    return any(builtin_call(value, ctx.scope, "enumerate", count) for count in (1, 2))


def _enumerates(ctx: Context, receiver: ast.AST) -> bool:
    """Whether the flagged iterator is an ``enumerate`` object (or a name bound to one)."""
    values = ([receiver] if isinstance(receiver, ast.Call)
              else _assignments(ctx, key(receiver) or ""))
    for value in values:
        if isinstance(value, ast.Call) and value.func.__class__ is ast.Name and (
            value.func.id == "iter" and value.args  # type: ignore[attr-defined]
        ):
            value = value.args[0]
        if value is not None and _enumerate(ctx, value):
            return True
    return False


def _named_loader(ctx: Context, k: Optional[str]) -> bool:
    """A name or attribute chain whose last part says ``loader``, in a file that imports torch."""
    return k is not None and ctx.imports_torch and "loader" in k.rsplit(".", 1)[-1].lower()


def _is_loader_call(ctx: Context, value: ast.AST) -> bool:
    return isinstance(value, ast.Call) and ctx.resolve(value.func) in _DATA_LOADERS


def _assignments(ctx: Context, k: str) -> List[Optional[ast.AST]]:
    """What the name or attribute chain ``k`` is bound to anywhere in the file
    (in no particular order): the value of a plain assignment, ``None`` for
    any other binding.  Found in the parts of the file whose lines spell its
    last word (see :func:`~flake8_torch04.analysis.nodes.walk_hits`), once per word;
    beyond :data:`_PRUNED_WORDS` words, in one walk of the file for every key."""
    cache = ctx.memo.setdefault(_MEMO, {})
    every = cache.get(None)  # type: ignore[union-attr]
    if every is not None:
        return every.get(k, [])  # type: ignore[no-any-return]
    word = k.rsplit(".", 1)[-1]
    found = cache.get(word)  # type: ignore[union-attr]
    if found is None:
        if len(cache) >= _PRUNED_WORDS:  # type: ignore[arg-type]
            every = cache[None] = _bindings(every_node(ctx.tree))  # type: ignore[index]
            return every.get(k, [])  # type: ignore[no-any-return]
        hits = lines_matching(ctx.text, word)
        found = cache[word] = _bindings(walk_hits(ctx.tree, hits))  # type: ignore[index]
    return found.get(k, [])  # type: ignore[no-any-return]


def _bindings(nodes: Iterable[ast.AST]) -> Dict[str, List[Optional[ast.AST]]]:
    """Key -> what ``nodes`` bind it to (see :func:`_assignments`)."""
    found: Dict[str, List[Optional[ast.AST]]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _store(found, target, node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            _store(found, node.target, None)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            _store(found, node.target, None)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    _store(found, item.optional_vars, None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                        args.vararg, args.kwarg]:
                if arg is not None:
                    found.setdefault(arg.arg, []).append(None)
    return found


def _store(found: Dict[str, List[Optional[ast.AST]]], target: ast.AST,
           value: Optional[ast.AST]) -> None:
    if isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _store(found, elt, None)
    elif isinstance(target, ast.Starred):
        _store(found, target.value, None)
    else:
        k = key(target)
        if k is not None:
            found.setdefault(k, []).append(value)
