"""TV160: a name that ``from torch.M import *`` gave in 0.3 and gives no more."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit

#: names a 0.3 module bound at its top (``import torch``, ``from ..parameter
#: import Parameter``), that code reached through its star import, and how to
#: bind each now
IMPORTS = {
    "torch": "import torch",
    "math": "import math",
    "warnings": "import warnings",
    "itertools": "import itertools",
    "functools": "import functools",
    "collections": "import collections",
    "numbers": "import numbers",
    "F": "import torch.nn.functional as F",
    "Variable": "from torch.autograd import Variable",
    "Function": "from torch.autograd import Function",
    "Parameter": "from torch.nn import Parameter",
    "Module": "from torch.nn import Module",
}

#: what ``from M import *`` binds of :data:`IMPORTS` on PyTorch 2.13, for the
#: modules 0.3 code star-imports (made by running ``from M import *`` for each
#: module under ``torch.nn``, ``torch.autograd``, ``torch.optim`` and
#: ``torch.utils.data`` on 2.13.0; most have an ``__all__`` of their classes)
STAR_GIVES: Dict[str, str] = {
    "torch.autograd": "Variable Function",
    "torch.autograd.function": "Function",
    "torch.autograd.variable": "Variable",
    "torch.autograd.grad_mode": "",
    "torch.autograd.gradcheck": "",
    "torch.autograd.profiler": "",
    "torch.nn": "Parameter Module",
    "torch.nn.functional": "torch math warnings",
    "torch.nn.grad": "torch",
    "torch.nn.init": "",
    "torch.nn.modules": "Module",
    "torch.nn.modules.module": "Module",
    "torch.nn.parameter": "Parameter",
    "torch.nn.utils": "",
    "torch.nn.utils.clip_grad": "",
    "torch.nn.utils.rnn": "",
    "torch.nn.utils.weight_norm": "",
    "torch.nn.utils.spectral_norm": "",
    "torch.nn.utils.convert_parameters": "torch",
    "torch.optim": "",
    "torch.optim.lr_scheduler": "",
    "torch.optim.optimizer": "",
    "torch.utils.data": "",
    "torch.utils.data.dataloader": "",
    "torch.utils.data.dataset": "",
    "torch.utils.data.sampler": "",
    "torch.utils.data.distributed": "",
    **{f"torch.nn.modules.{name}": "" for name in (
        "activation", "adaptive", "batchnorm", "container", "conv", "distance", "dropout",
        "fold", "instancenorm", "linear", "loss", "normalization", "padding",
        "pixelshuffle", "pooling", "rnn", "sparse", "upsampling", "utils")},
    **{f"torch.optim.{name}": "" for name in (
        "adadelta", "adagrad", "adam", "adamax", "asgd", "lbfgs", "rmsprop", "rprop", "sgd",
        "sparse_adam")},
}


@rule("TV160")
def star_import_names(ctx: Context, node: ast.ImportFrom) -> Iterator[Report]:
    """Flags a name the file took from ``from torch.M import *``, which M no longer gives.

    ## What it does
    Flags ``from torch.M import *`` (``torch.nn.modules.rnn``, ``torch.nn``,
    ``torch.autograd``, ...) in a file that reads ``torch``, ``math``, ``F``,
    ``Variable``, ``Parameter`` or another name a 0.3 module bound at its top,
    never binds that name itself, has no other star import it could come from,
    and whose ``M`` no longer gives it (known for the modules of ``torch.nn``,
    ``torch.autograd``, ``torch.optim`` and ``torch.utils.data``, read off
    PyTorch 2.13).  Position: the import.

    ## Why is this bad?
    A module without ``__all__`` gives every public name it binds to a star
    import, its own imports included: 0.3's ``torch/nn/modules/rnn.py`` began
    with ``import math``, ``import torch`` and ``from ..parameter import
    Parameter``, so ``from torch.nn.modules.rnn import *`` was also ``import
    torch``, and a file could call ``torch.ones(n)`` without importing torch.
    On PyTorch 2.13 that module has an ``__all__`` of its classes (``RNNBase``, ``RNN``,
    ``LSTM``, ..., ``GRUCell``), and the file stops with ``NameError: name 'torch'
    is not defined``.

    ## Example
    ```python
    import torch.nn as nn
    from torch.nn.modules.rnn import *

    gain = nn.Parameter(torch.ones(n))
    ```

    Use instead:
    ```python
    import torch.nn as nn
    from torch.nn.modules.rnn import *
    import torch

    gain = nn.Parameter(torch.ones(n))
    ```

    ## Fix safety
    The fix adds the import statements after the star import, at its
    indentation: the names are bound to what 0.3's module had bound (the
    ``torch`` package, ``torch.nn.functional`` as ``F``, ...), and nothing
    else changes: *safe*.  ``Variable`` is left to the message (bound again,
    its wrappers are TV001's findings: dropping them is the better edit).
    """
    if node.level or not node.module or node.module not in STAR_GIVES \
            or [a.name for a in node.names] != ["*"]:
        return
    names, first = _missing(ctx)
    if not names or first is not node:
        return
    statements = [IMPORTS[n] for n in names]
    src = ctx.source
    listed = ", ".join(f"`{n}`" for n in names)
    # (``Variable`` bound again, TV001 reports its wrappers: the fixer would drop
    # a fix that adds findings, so it is the message's alone)
    fixed = [IMPORTS[n] for n in names if n not in _WRAPPERS]
    also = " (or drop the `Variable` wrappers: TV001)" if len(fixed) < len(names) else ""
    yield Report(
        node,
        f"`from {node.module} import *` no longer gives {listed} (today's module has "
        f"an `__all__`; 0.3's gave its own imports too): NameError; "
        f"add `{'`, `'.join(statements)}`{also}",
        Fix((_insert_after(src, node, fixed),), SAFE) if fixed else None,
    )


#: names whose import makes another rule report their uses (TV001's wrapper)
_WRAPPERS = frozenset(("Variable",))


def _missing(ctx: Context) -> Tuple[List[str], Optional[ast.ImportFrom]]:
    """The names of :data:`IMPORTS` the file reads, never binds, and none of its
    star imports gives, where these are all of modules :data:`STAR_GIVES` knows
    (else none), and the first of those imports (the one that reports): one
    walk of the file, however many star imports ask."""
    found = ctx.memo.get("TV160 missing")
    if found is None:
        found = ctx.memo["TV160 missing"] = _read_missing(ctx)
    return found  # type: ignore[return-value]


def _read_missing(ctx: Context) -> Tuple[List[str], Optional[ast.ImportFrom]]:
    bound: Set[str] = set()
    read: Set[str] = set()
    first: Optional[ast.ImportFrom] = None
    for node in ast.walk(ctx.tree):
        cls = node.__class__
        if cls is ast.Name:
            (read if node.ctx.__class__ is ast.Load else bound).add(node.id)
        elif cls is ast.ImportFrom:
            for alias in node.names:
                if alias.name == "*":
                    if node.level or node.module not in STAR_GIVES:
                        return [], None  # (a name may come from there)
                    first = first or node
                    bound.update(STAR_GIVES[node.module].split())
                else:
                    bound.add(alias.asname or alias.name)
        elif cls is ast.Import:
            bound.update(a.asname or a.name.split(".", 1)[0] for a in node.names)
        elif cls in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            bound.add(node.name)
        elif cls is ast.arg:
            bound.add(node.arg)
        elif cls is ast.ExceptHandler and node.name:
            bound.add(node.name)
        elif cls in (ast.Global, ast.Nonlocal):
            bound.update(node.names)
        elif getattr(node, "name", None) and cls.__name__.startswith("Match"):
            bound.add(node.name)  # (``case x:``, ``case [*rest]``)
        elif cls.__name__ == "MatchMapping" and node.rest:
            bound.add(node.rest)
    return [name for name in IMPORTS if name in read and name not in bound], first


def _insert_after(src, node: ast.stmt, statements: List[str]) -> Edit:
    first = src.lines[node.lineno - 1]
    indent = first[:len(first) - len(first.lstrip())]
    line = node.end_lineno or node.lineno
    text = src.lines[line - 1]
    newline = "\r\n" if text.endswith("\r\n") else "\n"
    block = "".join(f"{indent}{s}{newline}" for s in statements)
    if text.endswith(("\n", "\r")):
        return Edit((line + 1, 0), (line + 1, 0), block)
    return Edit((line, len(text)), (line, len(text)), newline + block.rstrip("\r\n"))
