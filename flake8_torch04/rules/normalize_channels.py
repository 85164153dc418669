"""TV116: torchvision ``Normalize`` with more values than the images have channels."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Tuple

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.lines import lines_matching
from ..analysis.nodes import children, spans_hit
from ..analysis.registry import rule
from ..source.text import has_comment
from .shared.calls import argument

_TRANSFORMS = ("torchvision.transforms", "torchvision.transforms.transforms")
_DATASETS = ("torchvision.datasets", "torchvision.datasets.mnist", "torchvision.datasets.usps",
             "torchvision.datasets.semeion", "torchvision.datasets.cifar",
             "torchvision.datasets.svhn", "torchvision.datasets.stl10",
             "torchvision.datasets.folder", "torchvision.datasets.lsun",
             "torchvision.datasets.celeba")
#: torchvision datasets whose images are one-channel (PIL mode ``L``): class ->
#: the position of ``transform`` in its constructor (``None``: keyword only)
GRAY_DATASETS: Dict[str, Optional[int]] = {
    "MNIST": 2, "FashionMNIST": 2, "KMNIST": 2, "EMNIST": None, "QMNIST": None,
    "USPS": 2, "SEMEION": 1,
}
#: torchvision datasets whose images are three-channel (PIL mode ``RGB``), likewise
#: (``ImageFolder``: its default loader converts to RGB; not with a ``loader``)
RGB_DATASETS: Dict[str, Optional[int]] = {
    "CIFAR10": 2, "CIFAR100": 2, "SVHN": 2, "STL10": None, "LSUN": None, "CelebA": None,
    "ImageFolder": 1,
}
#: what the file spells where it names one of them (``FashionMNIST`` holds ``MNIST``)
_GRAY_SPELLED = ("MNIST", "USPS", "SEMEION")
#: transforms that keep the number of channels of the image they are given
KEEP_CHANNELS = frozenset((
    "ToTensor", "ToPILImage", "ConvertImageDtype", "Resize", "Scale", "CenterCrop",
    "RandomCrop", "RandomResizedCrop", "RandomSizedCrop", "RandomHorizontalFlip",
    "RandomVerticalFlip", "RandomRotation", "RandomAffine", "RandomPerspective", "Pad",
    "ColorJitter", "GaussianBlur", "RandomErasing", "RandomInvert", "RandomPosterize",
    "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast", "RandomEqualize",
))
_MEMO = "TV116.names"


def _transform(ctx: Context, node: ast.AST) -> Optional[str]:
    """``Resize`` for ``transforms.Resize(...)`` (a call of a torchvision transform)."""
    if not isinstance(node, ast.Call):
        return None
    module, _, name = (ctx.resolve(node.func) or "").rpartition(".")
    return name if module in _TRANSFORMS else None


def _values(node: Optional[ast.AST]) -> Optional[List[ast.AST]]:
    """The elements of a literal tuple or list of numbers."""
    if not isinstance(node, (ast.Tuple, ast.List)):
        return None
    for elt in node.elts:
        inner = elt.operand if isinstance(elt, ast.UnaryOp) else elt
        if not (isinstance(inner, ast.Constant) and type(inner.value) in (int, float)):
            return None
    return node.elts


_Names = Tuple[int, List[ast.AST], List[ast.Name], Dict[int, Tuple[ast.AST, ast.AST]]]


def _names(ctx: Context, name: str) -> _Names:
    """For the name ``name``: how many times the file binds it, the values of its
    plain assignments (``name = value``), its reads, and each read's parent and
    grandparent; found on the lines that spell the name alone."""
    memo = ctx.memo.setdefault(_MEMO, {})
    found = memo.get(name)
    if found is None:
        binds = 0
        values: List[ast.AST] = []
        read: List[ast.Name] = []
        up: Dict[int, Tuple[ast.AST, ast.AST]] = {}  # a read's parent and grandparent
        hits = lines_matching(ctx.text, name)
        stack: List[tuple] = [(ctx.tree, None, None)]
        while stack:
            node, parent, grand = stack.pop()
            if hits is not None and isinstance(node, ast.stmt) and not spans_hit(node, hits):
                continue
            stack += [(child, node, parent) for child in children(node)]
            cls = node.__class__
            if cls is ast.Name:
                if node.id == name:
                    if node.ctx.__class__ is ast.Load:
                        read.append(node)
                        up[id(node)] = (parent, grand)
                    else:
                        binds += 1
            elif cls is ast.Assign:
                target = node.targets[0]
                if len(node.targets) == 1 and isinstance(target, ast.Name) and target.id == name:
                    values.append(node.value)
            elif cls in _DEFINITIONS:
                binds += node.name == name
            elif cls is ast.arg:
                binds += node.arg == name
            elif cls is ast.alias:
                binds += (node.asname or node.name.split(".", 1)[0]) == name
        found = memo[name] = (binds, values, read, up)
    return found  # type: ignore[return-value]


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _places(ctx: Context, node: ast.AST, visiting: Optional[ast.AST]
            ) -> Tuple[List[ast.AST], Dict[int, Tuple[ast.AST, ast.AST]]]:
    """Where the value of ``node`` goes: ``node`` itself, or, when it is the value
    of ``name = node`` (the file's one binding of ``name``), each read of ``name``
    (with each read's parent and grandparent)."""
    parent = ctx.parent_of(node, visiting)
    if not (isinstance(parent, ast.Assign) and parent.value is node):
        return [node], {}
    target = parent.targets[0] if len(parent.targets) == 1 else None
    if not isinstance(target, ast.Name):
        return [], {}
    binds, values, read, up = _names(ctx, target.id)
    if binds != 1 or values != [node]:
        return [], {}
    return list(read), up


def _composes(ctx: Context, normalize: ast.Call) -> List[Tuple[ast.Call, int]]:
    """The ``Compose([...])`` calls the transform is an element of, with its index."""
    found = []
    for place in _places(ctx, normalize, normalize)[0]:
        seq = ctx.parent_of(place, normalize)
        if not isinstance(seq, (ast.List, ast.Tuple)):
            return []
        compose = ctx.parent_of(seq)
        if not (_transform(ctx, compose) == "Compose" and argument(compose, 0, "transforms")
                is seq):  # type: ignore[arg-type]
            return []
        found.append((compose, seq.elts.index(place)))
    return found


def _channels_before(ctx: Context, elts: List[ast.AST], index: int) -> Tuple[Optional[int], bool]:
    """What the transforms before ``index`` say: the channel count a ``Grayscale``
    sets (``None`` if none does), and whether all of them keep the channels
    of the image they are given."""
    channels: Optional[int] = None
    keep = True
    for elt in elts[:index]:
        name = _transform(ctx, elt)
        if name == "Grayscale":
            count = argument(elt, 0, "num_output_channels")  # type: ignore[arg-type]
            if count is None:
                channels, keep = 1, True
            elif isinstance(count, ast.Constant) and count.value in (1, 3):
                channels, keep = count.value, True
            else:
                channels, keep = None, False
        elif name not in KEEP_CHANNELS:
            channels, keep = None, False
    return channels, keep


def _datasets(ctx: Context, compose: ast.Call) -> Optional[Tuple[List[str], List[str]]]:
    """The one-channel datasets (``MNIST``) and the three-channel ones (``SVHN``)
    ``compose`` is the ``transform`` of, when every use of it is such an argument
    and one is one-channel; else ``None``."""
    if not any(name in ctx.text for name in _GRAY_SPELLED):
        return None  # (the file names no such dataset: its names are not read)
    gray: List[str] = []
    rgb: List[str] = []
    places, up = _places(ctx, compose, None)
    if not places:
        return None
    for place in places:
        parent, grand = up.get(id(place)) or (ctx.parent_of(place), None)
        if isinstance(parent, ast.keyword) and parent.arg == "transform":
            call = grand if grand is not None else ctx.parent_of(parent)
            index = None
        elif isinstance(parent, ast.Call) and place in parent.args:
            call, index = parent, parent.args.index(place)
        else:
            return None
        if not isinstance(call, ast.Call):
            return None
        module, _, name = (ctx.resolve(call.func) or "").rpartition(".")
        table = GRAY_DATASETS if name in GRAY_DATASETS else RGB_DATASETS
        if module not in _DATASETS or name not in table:
            return None
        if index is not None and index != table[name]:
            return None
        if name == "ImageFolder" and (len(call.args) > 3 or any(
                kw.arg in ("loader", None) for kw in call.keywords)):
            return None  # (its own loader: any mode)
        found = gray if table is GRAY_DATASETS else rgb
        if name not in found:
            found.append(name)
    return (sorted(gray), sorted(rgb)) if gray else None


@rule("TV116")
def normalize_channels(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``transforms.Normalize`` with more mean/std values than the images have channels.

    ## What it does
    Flags a call of torchvision's ``transforms.Normalize`` (resolved through
    imports of ``torchvision.transforms``) whose ``mean`` or ``std`` is a
    literal tuple or list of more than one number, where the images it
    normalizes evidently have one channel: it is an element of a
    ``transforms.Compose([...])`` (written there, or bound to a name that is
    only used there) in which a ``Grayscale()`` /
    ``Grayscale(num_output_channels=1)`` comes before it; or the ``Compose``
    (written in the call, or bound to a name every use of which is such an
    argument) is the ``transform`` of a one-channel torchvision dataset
    (``MNIST``, ``FashionMNIST``, ``KMNIST``, ``EMNIST``, ``QMNIST``,
    ``USPS``, ``SEMEION``) and every transform before it keeps the number of
    channels (``ToTensor``, ``Resize``, ``RandomCrop``, flips...).  A
    ``Compose`` bound to a name that is the ``transform`` of one-channel
    datasets and of three-channel ones (``SVHN``, ``CIFAR10``, ``CIFAR100``,
    ``STL10``, ``LSUN``, ``CelebA``, ``ImageFolder`` without its own
    ``loader``) is reported too, naming the one-channel datasets.

    Not flagged: a ``Lambda`` or any other transform before it
    (``x.repeat(3, 1, 1)``), ``Grayscale(num_output_channels=3)``, only
    three-channel datasets, a ``Compose`` also given to a dataset whose
    channels are not evident (a dataset class of the project, an
    ``ImageFolder`` with a ``loader``) or used otherwise, and values that are
    not literals.

    ## Why is this bad?
    The torchvision of the 0.3 era normalized channel by channel with
    ``zip(tensor, mean, std)``, which silently ignored the extra values:
    ``Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))`` on MNIST worked.  Today's
    ``Normalize`` broadcasts the values over the channels, and on a
    one-channel image it raises ``RuntimeError: output with shape [1, 28, 28]
    doesn't match the broadcast shape [3, 28, 28]``: the program stops at its
    first batch.

    ## Example
    ```python
    transform = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    ])
    mnist = datasets.MNIST('./data', train=True, transform=transform)
    ```

    Use instead:
    ```python
    transform = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize((0.5,), (0.5,)),
    ])
    mnist = datasets.MNIST('./data', train=True, transform=transform)
    ```

    ## Fix safety
    The fix is *safe*: it keeps the first value of ``mean`` and of ``std``
    (in a tuple or list as written), which are the only values the old
    torchvision used on a one-channel image, so the images get the same
    numbers.  Where the ``Compose`` also serves a three-channel dataset there is
    no fix: the one-channel dataset needs its own ``Compose`` with those values
    (0.3's numbers exactly), and the three-channel one keeps all of them.
    """
    if _transform(ctx, node) != "Normalize":
        return
    mean, std = argument(node, 0, "mean"), argument(node, 1, "std")
    means, stds = _values(mean), _values(std)
    if means is None or stds is None or max(len(means), len(stds)) < 2:
        return
    composes = _composes(ctx, node)
    if not composes:
        return
    evidence = None
    shared: List[str] = []  # (one-channel datasets given the Compose with three-channel ones)
    for compose, index in composes:
        elts = argument(compose, 0, "transforms").elts  # type: ignore[union-attr]
        channels, keep = _channels_before(ctx, elts, index)
        if channels == 1:
            found = "after `Grayscale()`"
        elif channels is None and keep:
            datasets = _datasets(ctx, compose)
            if datasets is None:
                return
            found = f"for {' / '.join(datasets[0])}"
            if datasets[1]:
                shared += [name for name in datasets[0] if name not in shared]
        else:
            return
        evidence = evidence or found
    src = ctx.source
    shown = ", ".join(f"({src.text(e[0])},)" for e in (means, stds))
    count = max(len(means), len(stds))
    if shared:
        names = " / ".join(shared)
        yield Report(
            node,
            f"`Normalize` with {count} values is also the transform of {names} (one "
            f"channel), where it raises RuntimeError with today's torchvision (old "
            f"torchvision ignored the extra values); give {names} its own `Compose` with "
            f"`Normalize({shown})`",
        )
        return
    edits = []
    for seq, elts in ((mean, means), (std, stds)):
        if len(elts) > 1:
            first = src.text(elts[0])
            edits.append(src.replace(seq, f"({first},)" if isinstance(seq, ast.Tuple)
                                     else f"[{first}]"))
    fix = None if has_comment(src.text(node)) else Fix(tuple(edits), SAFE)
    yield Report(
        node,
        f"`Normalize` with {count} values {evidence} (one channel) raises "
        f"RuntimeError with today's torchvision (old torchvision ignored the extra values); "
        f"use `Normalize({shown})`",
        fix,
    )
