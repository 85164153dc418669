"""TV128: ``train_data``/``train_labels`` of torchvision's MNIST-style datasets."""
from __future__ import annotations

import ast
from typing import Dict, Iterable, Iterator, List, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.lines import lines_matching
from ..analysis.nodes import every_node, walk_hits
from ..analysis.registry import rule
from ..analysis.resolve import key

#: old attribute -> new attribute
RENAMES = {"train_data": "data", "test_data": "data",
           "train_labels": "targets", "test_labels": "targets"}
#: dataset class -> what the old names do on current torchvision
CLASSES = {
    "MNIST": "warn", "FashionMNIST": "warn", "KMNIST": "warn", "EMNIST": "warn",
    "QMNIST": "warn", "CIFAR10": "removed", "CIFAR100": "removed",
}
_MODULES = ("torchvision.datasets.", "torchvision.datasets.mnist.",
            "torchvision.datasets.cifar.")


#: what :func:`dataset_class` names a class chosen by name among torchvision's
CHOSEN = "a dataset picked from torchvision.datasets by name"


def dataset_class(ctx: Context, value: ast.AST) -> Optional[str]:
    """The class name when ``value`` is a call of one of the datasets (:data:`CHOSEN`
    for a class chosen by name: ``ds = getattr(torchvision.datasets, args.dataset)``,
    then ``ds(root, train=True)``)."""
    if not isinstance(value, ast.Call):
        return None
    qualname = ctx.resolve(value.func) or ""
    for module in _MODULES:
        if qualname.startswith(module) and qualname[len(module):] in CLASSES:
            return qualname[len(module):]
    if _chosen(ctx, value.func):
        return CHOSEN
    return None


def _chosen(ctx: Context, func: ast.AST) -> bool:
    """``getattr(torchvision.datasets, name)`` itself, or a name every assignment in
    the file binds to it."""
    if isinstance(func, ast.Call):
        return isinstance(func.func, ast.Name) and func.func.id == "getattr" \
            and not ctx.scope.binds("getattr") and len(func.args) == 2 \
            and ctx.resolve(func.args[0]) == "torchvision.datasets"
    k = key(func) if isinstance(func, ast.Name) else None
    values = _assignments(ctx, k) if k is not None and "getattr" in ctx.text else None
    return bool(values) and all(v is not None and _chosen(ctx, v) for v in values)


#: keys looked for in the parts of a file that spell them, before one walk for all
_PRUNED_KEYS = 2


def _assignments(ctx: Context, k: str) -> List[Optional[ast.AST]]:
    """Every value assigned to the key ``k`` (``name``, ``self.name``) in the
    file, ``None`` for a binding of another kind.  The first keys asked about
    are looked for in the parts of the file whose lines spell their last name;
    beyond, one walk indexes every key (a long file may ask about many)."""
    memo = ctx.memo.setdefault("TV128", {})
    every = memo.get(None)  # type: ignore[union-attr]
    if every is not None:
        return every.get(k, [])  # type: ignore[no-any-return]
    found = memo.get(k)  # type: ignore[union-attr]
    if found is not None:
        return found  # type: ignore[no-any-return]
    if len(memo) >= _PRUNED_KEYS:  # type: ignore[arg-type]
        every = memo[None] = {}  # type: ignore[index]
        _collect(every_node(ctx.tree), None, every)  # (the order of a key's values is no matter)
        return every.get(k, [])  # type: ignore[no-any-return]
    by_key: Dict[str, List[Optional[ast.AST]]] = {}
    hits = lines_matching(ctx.text, k.rsplit(".", 1)[-1])
    _collect(walk_hits(ctx.tree, hits), k, by_key)
    found = memo[k] = by_key.get(k, [])  # type: ignore[index]
    return found  # type: ignore[no-any-return]


def _collect(nodes: Iterable[ast.AST], wanted: Optional[str],
             found: Dict[str, List[Optional[ast.AST]]]) -> None:
    """Add to ``found`` what ``nodes`` assign to each key (to ``wanted`` alone
    unless ``None``)."""
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):  # (``ds.x = v`` binds ``ds.x``, not ``ds``)
                    k = key(sub) if isinstance(sub, (ast.Name, ast.Attribute)) and isinstance(
                        sub.ctx, ast.Store) else None
                    if k is not None and (wanted is None or k == wanted):
                        plain = target is sub and isinstance(node, (ast.Assign,
                                                                    ast.AnnAssign))
                        found.setdefault(k, []).append(node.value if plain else None)
        elif isinstance(node, (ast.For, ast.With, ast.NamedExpr)) or isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            targets = []
            if isinstance(node, ast.For):
                targets = [node.target]
            elif isinstance(node, ast.With):
                targets = [i.optional_vars for i in node.items if i.optional_vars]
            elif isinstance(node, ast.NamedExpr):
                targets = [node.target]
            else:
                args = node.args
                for arg in args.posonlyargs + args.args + args.kwonlyargs:
                    if wanted is None or arg.arg == wanted:
                        found.setdefault(arg.arg, []).append(None)
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name) and (wanted is None or sub.id == wanted):
                        found.setdefault(sub.id, []).append(None)


@rule("TV128")
def dataset_attributes(ctx: Context, node: ast.Attribute) -> Iterator[Report]:
    """Flags ``train_data``, ``test_data``, ``train_labels``, ``test_labels`` of
    torchvision datasets built in the file.

    ## What it does
    Flags those attributes read or set on a ``torchvision.datasets`` ``MNIST``,
    ``FashionMNIST``, ``KMNIST``, ``EMNIST``, ``QMNIST``, ``CIFAR10`` or
    ``CIFAR100`` (resolved through imports): the call itself
    (``datasets.MNIST(...).train_labels``), or a name or ``self.`` attribute
    that every assignment in the file binds to such a call; also of a class chosen
    by name among torchvision's (``ds = getattr(torchvision.datasets,
    args.dataset)``, then ``ds(root, train=True)``: the old names belong to
    torchvision's MNIST and CIFAR datasets alone, all renamed alike).  Position:
    the attribute.  Also ``getattr(dataset, 'train_data' if train else 'test_data')``
    (a string, or conditional expressions of strings, all renamed the same):
    position, the name.  Setting one (``ds.train_data = np.pad(ds.train_data,
    ...)``, 2017's CIFAR augmentation) is flagged too: MNIST's old names have no
    setter now, and on CIFAR the assignment makes an attribute the dataset never
    reads (its items come from ``data``).  A project's own dataset with a
    ``train_data`` attribute, and a name also assigned anything else, are left alone.

    ## Why is this bad?
    torchvision renamed them ``data`` and ``targets`` (in 2019, the PyTorch
    1.0 era).  The MNIST-style datasets still answer to the old names but
    warn ``UserWarning: train_data has been renamed data``; the CIFAR datasets
    no longer have them (``AttributeError``).

    ## Example
    ```python
    train_set = datasets.MNIST('data', train=True, download=True)
    images = train_set.train_data.float() / 255
    labels = train_set.train_labels
    ```

    Use instead:
    ```python
    train_set = datasets.MNIST('data', train=True, download=True)
    images = train_set.data.float() / 255
    labels = train_set.targets
    ```

    ## Fix safety
    The fix is *safe*: the old names are properties that return ``data`` and
    ``targets`` (for CIFAR, the same arrays under their new names).  A test
    that patches the old attribute (``patch.object(train_set, "train_data")``)
    is not the fix's concern: on current torchvision the old names are
    read-only properties, so that patch fails with or without the fix.
    """
    if isinstance(node, ast.Call):
        yield from _getattr(ctx, node)
        return
    new = RENAMES.get(node.attr)
    if new is None or isinstance(node.ctx, ast.Del):
        return
    value = node.value
    cls = _dataset_of(ctx, value)
    if cls is None:
        return
    src = ctx.source
    line, col = src.end(node)
    edit = (line, col - len(node.attr))
    fix = None
    if src.text(node).endswith(node.attr) and col >= len(node.attr):
        from ..source.text import Edit

        fix = Fix((Edit(edit, (line, col), new),), SAFE)
    what = ("warns on current torchvision" if CLASSES.get(cls) == "warn" else
            "raises AttributeError on current torchvision" if cls in CLASSES else
            "MNIST's warn, CIFAR's raise AttributeError on current torchvision")
    if isinstance(node.ctx, ast.Store):  # (the dataset reads ``data`` for its items)
        what = ("raises AttributeError on current torchvision" if CLASSES.get(cls) == "warn"
                else "makes an attribute the dataset never reads" if cls in CLASSES else
                "MNIST's raise AttributeError, CIFAR's make an attribute nothing reads")
    yield Report(node, f"`{src.quote(node)}` of {cls} was renamed `{new}` by torchvision in 2019 "
                       f"({what}); use `{src.quote(value, 30)}.{new}`", fix)


def _dataset_of(ctx: Context, value: ast.AST) -> Optional[str]:
    """The dataset class ``value`` is: a call of one, or a name or ``self.``
    attribute every assignment in the file binds to calls of one class."""
    cls = dataset_class(ctx, value)
    if cls is not None:
        return cls
    k = key(value)
    values = _assignments(ctx, k) if k is not None else None
    if not values:
        return None
    classes = {dataset_class(ctx, v) if v is not None else None for v in values}
    return classes.pop() if len(classes) == 1 and None not in classes else None


def _names(node: ast.AST) -> Optional[List[ast.Constant]]:
    """The string constants ``node`` evaluates to: one, or each branch of
    conditional expressions (``'train_data' if train else 'test_data'``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, ast.IfExp):
        body, orelse = _names(node.body), _names(node.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return None


def _getattr(ctx: Context, call: ast.Call) -> Iterator[Report]:
    """``getattr(dataset, 'train_data' if train else 'test_data')``: the old names
    read by string, where every one of them is renamed to the same new name."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "getattr"
            and not ctx.scope.binds("getattr") and len(call.args) in (2, 3)
            and not call.keywords):
        return
    names = _names(call.args[1])
    if not names or any(n.value not in RENAMES for n in names):
        return
    new = {RENAMES[n.value] for n in names}
    cls = _dataset_of(ctx, call.args[0])
    if len(new) != 1 or cls is None:
        return
    new_name = new.pop()
    src = ctx.source
    what = ("warns on current torchvision" if CLASSES.get(cls) == "warn" else
            "raises AttributeError on current torchvision" if cls in CLASSES else
            "MNIST's warn, CIFAR's raise AttributeError on current torchvision")
    tests = [n.test for n in ast.walk(call.args[1]) if isinstance(n, ast.IfExp)]
    if all(isinstance(t, (ast.Name, ast.Attribute, ast.Constant)) for t in tests):
        edits = (src.replace(call.args[1], repr(new_name)),)  # (a test without effects)
    else:
        edits = tuple(src.replace(n, repr(new_name)) for n in names)
    yield Report(call.args[1], f"`{src.quote(call.args[1], 40)}` names attributes of {cls} "
                               f"that torchvision renamed `{new_name}` in 2019 ({what}); "
                               f"use `'{new_name}'`", Fix(edits, SAFE))
