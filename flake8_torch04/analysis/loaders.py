"""What a torch ``DataLoader`` yields, where the file makes its dataset evident.

For the value facts (:mod:`.values`): ``DataLoader(ds, ...)`` (resolved through
imports) is a :data:`LOADER` object whose one part is a batch, where the items
of ``ds`` are evident:

- ``TensorDataset(a, b, ...)`` gives ``(a[i], b[i], ...)``: each item has the
  rank and dtype of an element of its tensor;
- a torchvision image dataset of :data:`IMAGE_DATASETS` (``MNIST``,
  ``FashionMNIST``, ``CIFAR10``, ``SVHN``, ``ImageFolder``...: their
  ``__getitem__`` gives a PIL image of 8-bit pixels and an ``int`` class) whose
  ``transform`` is ``transforms.ToTensor()`` or a ``transforms.Compose([...])``
  literal of known image transforms (:data:`PIL_TRANSFORMS`) ending in
  ``ToTensor()`` and then tensor transforms that keep a float image
  (``Normalize``): an image is a 3-D float tensor, the class an ``int`` where
  no ``target_transform`` is given (an ``ImageFolder`` with its own ``loader``:
  the image is unknown).

The default collate stacks each part of a batch's items: a tensor part gains a
leading batch dimension (rank + 1), an ``int`` (``float``) part becomes a 1-D
int64 (float64) tensor; on 0.3 too (a plain tensor there, not a ``Variable``).
With ``batch_size=None`` the items come one by one, as they are.  A
``collate_fn`` or a ``batch_sampler`` given (also through ``**kwargs`` whose
keys are not evident), or a dataset of another kind: unknown.

The batches reach names through ``for`` targets (``for x, y in loader``,
``for i, (x, y) in enumerate(loader)``), ``next(iter(loader))``, and an
iterator ``it = iter(loader)`` read with ``next(it)`` or ``it.next()``.  Only
files that spell ``DataLoader`` are read this way.
"""
from __future__ import annotations

import ast
from typing import FrozenSet, Optional

#: the class name of a loader's value, of a dataset's, and of a loader's iterator
LOADER = "torch.utils.data.DataLoader"
DATASET = "torch.utils.data.Dataset"
#: a ``TensorDataset``'s (a :data:`DATASET` too)
TENSOR_DATASET = "torch.utils.data.TensorDataset"
BATCHES = "torch.utils.data.DataLoader.__iter__"
#: the class name of a transform's value: one whose output is a float image
#: tensor, one that maps a PIL image to a PIL image, one that keeps a float tensor
IMAGE_TRANSFORM = "<image tensor transform>"
_PIL = "<PIL image transform>"
_TENSOR = "<float tensor transform>"

_LOADERS = frozenset(("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"))
_TENSOR_DATASETS = frozenset(("torch.utils.data.TensorDataset",
                              "torch.utils.data.dataset.TensorDataset"))
_MNIST = ("root", "train", "transform", "target_transform", "download")
#: torchvision datasets whose items are (an 8-bit PIL image, an ``int``) -> the
#: parameters of their constructor, in order (torchvision 0.2 to 0.28 agree)
IMAGE_DATASETS = {
    f"torchvision.datasets.{module}{name}": params
    for module, names, params in (
        ("mnist.", ("MNIST", "FashionMNIST", "KMNIST"), _MNIST),
        ("mnist.", ("EMNIST",), ("root", "split")),
        ("cifar.", ("CIFAR10", "CIFAR100"), _MNIST),
        ("svhn.", ("SVHN",), ("root", "split", "transform", "target_transform", "download")),
        ("folder.", ("ImageFolder",), ("root", "transform", "target_transform", "loader")))
    for name in names for module in ("", module)
}
_TRANSFORMS = ("torchvision.transforms.", "torchvision.transforms.transforms.")
#: transforms of a PIL image to a PIL image of the same pixel type
PIL_TRANSFORMS = frozenset(
    prefix + name for prefix in _TRANSFORMS for name in (
        "Resize", "Scale", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomSizedCrop",
        "RandomHorizontalFlip", "RandomVerticalFlip", "Pad", "RandomRotation", "RandomAffine",
        "ColorJitter", "Grayscale", "RandomGrayscale"))
_TO_TENSOR = frozenset(prefix + "ToTensor" for prefix in _TRANSFORMS)
_FLOAT_TRANSFORMS = frozenset(prefix + name for prefix in _TRANSFORMS
                              for name in ("Normalize", "RandomErasing"))
_COMPOSE = frozenset(prefix + "Compose" for prefix in _TRANSFORMS)
#: the callables whose value this module answers
MADE: FrozenSet[str] = frozenset((
    "iter", "next", *_LOADERS, *_TENSOR_DATASETS, *IMAGE_DATASETS, *PIL_TRANSFORMS,
    *_TO_TENSOR, *_FLOAT_TRANSFORMS, *_COMPOSE))
#: what a loader's keyword arguments may not name for its batches to be evident
_CUSTOM = frozenset(("dataset", "batch_size", "collate_fn", "batch_sampler"))


def spells_loader(ctx) -> bool:
    """Whether the file spells ``DataLoader`` (else nothing here is asked)."""
    found = ctx.memo.get("loaders.spelled")
    if found is None:
        found = ctx.memo["loaders.spelled"] = "DataLoader" in ctx.text
    return found


def made(values, name: str, call: ast.Call, scope, depth: int):
    """The value of ``call``, a call of ``name`` (one of :data:`MADE`)."""
    from .objects import OBJECT, TENSOR_DATASETS
    from .values import TUPLE, UNKNOWN, Value

    if not spells_loader(values.ctx) or any(isinstance(a, ast.Starred) for a in call.args):
        # (an MNIST object still has its tensors: ``mnist.train_labels``)
        return Value(OBJECT, name=TENSOR_DATASETS[name]) if name in TENSOR_DATASETS else UNKNOWN
    if name in ("iter", "next"):
        inner = values.of(call.args[0], scope, depth) if len(call.args) == 1 \
            and not call.keywords else UNKNOWN
        if name == "iter" and inner.name == LOADER:
            return Value(OBJECT, name=BATCHES, parts=inner.parts)
        return inner.parts[0] if name == "next" and inner.name == BATCHES else UNKNOWN
    if name in _LOADERS:
        return _loader(values, call, scope, depth)
    if any(kw.arg is None for kw in call.keywords):
        return UNKNOWN
    if name in _TENSOR_DATASETS:
        if call.keywords and not all(kw.arg in ("data_tensor", "target_tensor")
                                     for kw in call.keywords):
            return UNKNOWN  # (0.3's ``TensorDataset(data_tensor=, target_tensor=)``)
        given = [*call.args, *(kw.value for kw in sorted(
            call.keywords, key=lambda kw: kw.arg != "data_tensor"))]
        tensors = [values.of(a, scope, depth) for a in given]
        return Value(OBJECT, name=TENSOR_DATASET, parts=(Value(TUPLE, parts=tuple(
            t.element() if t.tensor else UNKNOWN for t in tensors)),)) if tensors else UNKNOWN
    if name in IMAGE_DATASETS:
        found = _image_dataset(values, IMAGE_DATASETS[name], call, scope, depth)
        return found._replace(name=TENSOR_DATASETS[name]) if name in TENSOR_DATASETS and \
            found.kind is not None else found
    if name in _COMPOSE:
        steps = call.args[0] if len(call.args) == 1 and not call.keywords else None
        if not isinstance(steps, (ast.List, ast.Tuple)) or not steps.elts:
            return UNKNOWN
        kinds = [values.of(s, scope, depth).name for s in steps.elts]
        last = max((i for i, k in enumerate(kinds) if k == IMAGE_TRANSFORM), default=None)
        if last is None or not all(k == _PIL for k in kinds[:last]) or \
                not all(k == _TENSOR for k in kinds[last + 1:]):
            return UNKNOWN  # (``Lambda``, anything unknown: what it gives is not evident)
        return Value(OBJECT, name=IMAGE_TRANSFORM)
    return Value(OBJECT, name=IMAGE_TRANSFORM if name in _TO_TENSOR else
                 _PIL if name in PIL_TRANSFORMS else _TENSOR)


def _image_dataset(values, params, call: ast.Call, scope, depth: int):
    """An image dataset of torchvision: (a 3-D float image, an ``int`` class)
    where its transforms make them evident."""
    from .objects import OBJECT
    from .values import NUMBER, TENSOR, TUPLE, UNKNOWN, Value

    if len(call.args) > len(params):
        return UNKNOWN
    given = dict(zip(params, call.args))
    given.update((kw.arg, kw.value) for kw in call.keywords)

    def absent(param: str) -> bool:
        return _none(given.get(param))

    transform = given.get("transform")
    image = Value(TENSOR, 3, "float", plain=True) if transform is not None and absent(
        "loader") and values.of(transform, scope, depth).name == IMAGE_TRANSFORM else UNKNOWN
    target = Value(NUMBER, dtype="int") if absent("target_transform") else UNKNOWN
    return Value(OBJECT, name=DATASET, parts=(Value(TUPLE, parts=(image, target)),))


def _loader(values, call: ast.Call, scope, depth: int):
    """``DataLoader(dataset, ...)``: a :data:`LOADER` whose part is its batch."""
    from .objects import OBJECT, TENSOR_DATASETS
    from .values import UNKNOWN, Value

    args, keywords = call.args, {kw.arg: kw.value for kw in call.keywords}
    if len(args) > 6 and not _none(args[6]) or len(args) > 4 and not _none(args[4]):
        return UNKNOWN  # (a ``batch_sampler`` or a ``collate_fn`` by position)
    if not all(_none(keywords.get(k)) for k in ("collate_fn", "batch_sampler")):
        return UNKNOWN
    if None in keywords:
        keys = _keys(values, keywords[None], scope)
        if keys is None or keys & _CUSTOM:
            return UNKNOWN
    dataset = args[0] if args else keywords.get("dataset")
    items = values.of(dataset, scope, depth) if dataset is not None else UNKNOWN
    if items.name not in (DATASET, TENSOR_DATASET) and items.name not in TENSOR_DATASETS.values():
        return UNKNOWN
    size = args[1] if len(args) > 1 else keywords.get("batch_size")
    batched = not (size is not None and _none(size))
    return Value(OBJECT, name=LOADER, parts=(_collated(items.parts[0]) if batched
                                             else items.parts[0],))


def _collated(item):
    """What the default collate makes of items like ``item``: a tensor gains a
    batch dimension, a number becomes a 1-D tensor, a tuple's parts each."""
    from .values import NUMBER, TENSOR, TUPLE, UNKNOWN, Value

    if item.kind == TUPLE and item.parts is not None:
        return Value(TUPLE, parts=tuple(_collated(p) for p in item.parts))
    if item.kind == TENSOR:
        return Value(TENSOR, item.rank + 1 if item.rank is not None else None, item.dtype,
                     plain=True)
    if item.kind == NUMBER and item.dtype is not None:
        return Value(TENSOR, 1, item.dtype, plain=True)
    return UNKNOWN


def batches_method(receiver, attr: str, call: ast.Call):
    """``it.next()`` (Python 2's spelling; 0.3's loader iterator had it) of a
    loader's iterator: a batch."""
    from .values import UNKNOWN

    return receiver.parts[0] if attr in ("next", "__next__") and not call.args and \
        not call.keywords and receiver.parts else UNKNOWN


def _none(node: Optional[ast.AST]) -> bool:
    return node is None or isinstance(node, ast.Constant) and node.value is None


def _keys(values, node: ast.AST, scope, hops: int = 0) -> Optional[FrozenSet[str]]:
    """The keys of the dict ``node`` (``**kwargs`` of a call), where every
    binding of it is a dict literal with string keys, or a conditional of such
    (``{'num_workers': 1} if args.cuda else {}``); else ``None``."""
    if hops > 8:
        return None
    if isinstance(node, ast.Dict):
        if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
            return frozenset(k.value for k in node.keys)
        return None
    if isinstance(node, ast.IfExp):
        body, orelse = (_keys(values, n, scope, hops + 1) for n in (node.body, node.orelse))
        return body | orelse if body is not None and orelse is not None else None
    if not isinstance(node, ast.Name):
        return None
    flow = values._flow(scope)
    defs = flow.reaching(node)
    tree = values.ctx.tree
    if defs == () and node.id not in flow.bound and \
            values.ctx.statement_parents().get(id(flow.node)) is tree:
        scope = tree  # (a name of the module, read in a function of it)
        defs = values.ctx.flow_of(tree).defs(node.id)
    if not defs or any(d.kind != "assign" or d.value is None for d in defs):
        return None
    found = frozenset()
    for d in defs:
        keys = _keys(values, d.value, scope, hops + 1)
        if keys is None:
            return None
        found |= keys
    return found
