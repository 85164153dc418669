"""TV157: a batch-norm module built with 0.3's initial weights in mind: U(0, 1) then,
ones since 1.0."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.era import legacy
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.project.importers import mentioned_by
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..source.text import Edit
from .data_inplace import spelled
from .shared.calls import argument, plain_arguments

#: the modules whose ``reset_parameters`` drew the weight from U(0, 1) on 0.3
#: (``_BatchNorm``'s; the instance norms subclassed it), and where ``affine`` stands
_NORMS = {f"torch.nn.{kind}Norm{n}d": (3, kind == "Batch")
          for kind in ("Batch", "Instance") for n in (1, 2, 3)}
#: code that sets the weights of such modules itself (PreResNet's ``isinstance(m,
#: nn.BatchNorm2d)`` loop, DCGAN's ``classname.find('BatchNorm')``, a ``weights_init``
#: applied to the model, ``reset_parameters``): the default is not what trains
_APPLIES_WEIGHTS = (
    # (a pretrained model's weights are downloaded: ``model_zoo.load_url(url)``)
    r"\.apply\(\s*[\w.]*init|\breset_parameters\b|\bload_url\b"
    # (OpenNMT's ``for p in model.parameters(): p.data.uniform_(-a, a)``)
    r"|parameters\(\)[ \t]*:[ \t]*\n[^\n]*(?:uniform|normal|xavier|kaiming|orthogonal)")
_SETS_WEIGHTS = re.compile(
    r"isinstance\([^)]*(?:BatchNorm|InstanceNorm)"
    r"|['\"][^'\"\n]*(?:BatchNorm|InstanceNorm)[^'\"\n]*['\"]|" + _APPLIES_WEIGHTS)
#: what another module does to the models it imports (a sibling model file's own
#: ``isinstance`` loop over ``self.modules()`` sets its own classes' weights only)
_APPLIES_ELSEWHERE = re.compile(
    _APPLIES_WEIGHTS + r"|\b(?!self\b)\w+\.modules\(\)[\s\S]{0,300}?"
    r"isinstance\([^)]*(?:BatchNorm|InstanceNorm)")  # (``for m in model.modules():``)


@rule("TV157")
def batchnorm_init(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags a batch-norm module whose weight starts from 0.3's default (off by default).

    ## What it does
    *Off by default*: keeping 0.3's numbers here costs today's better
    initialization, a choice for the user; turn it on with
    ``--extend-select TV157`` (``extend-select = ["TV157"]`` in
    ``[tool.torch04]``, ``extend-select = TV157`` in ``[flake8]``).
    In 0.3 code (see ``analysis/era.py``), flags ``nn.BatchNorm1d``/``2d``/``3d``
    (and ``nn.InstanceNorm1d``/``2d``/``3d`` given ``affine=True``), resolved through
    imports, built with an affine weight, where neither the file nor a module of
    the project that may import it (one that spells its name: there, only what
    applies to any model counts: ``apply``, loops over ``parameters()`` and over
    ``model.modules()``, not a class's own ``self.modules()``) sets or downloads
    (``model_zoo.load_url``, a pretrained model's weights) the
    weights of such modules: no ``isinstance(m, nn.BatchNorm2d)`` test or
    ``'BatchNorm'`` class-name test (the usual initialization loops), no
    ``model.apply(weights_init)``, no ``reset_parameters``, no loop over
    ``parameters()`` that draws each one (``p.data.uniform_(-a, a)``), and no
    write of the module's own ``.weight`` in the file.  Position: the call.

    ## Why is this bad?
    PyTorch 0.3 drew a batch-norm weight from U(0, 1) when the module was built
    (``self.weight.data.uniform_()``); since 1.0 it starts at ones and draws
    nothing (pytorch#12325).  A 0.3 model that keeps the default starts from
    other weights, and every layer built after it from other random numbers,
    as the draw no longer moves the random generator: on PyTorch 2.13 the same
    seed trains to other losses and accuracies, without a warning.

    ## Example
    ```python
    self.conv1 = nn.Conv2d(3, 64, 3, padding=1)
    self.bn1 = nn.BatchNorm2d(64)
    ```

    Use instead:
    ```python
    self.conv1 = nn.Conv2d(3, 64, 3, padding=1)
    self.bn1 = nn.BatchNorm2d(64)
    nn.init.uniform_(self.bn1.weight)
    ```
    (0.3's numbers; or keep today's initialization, which trains better, and
    accept other numbers)

    ## Fix safety
    Where the module is the value of an assignment statement, the fix adds
    ``nn.init.uniform_(X.weight)`` on the next line: the draw 0.3 made, at the
    point it made it.  It is *unsafe*: it gives 0.3's numbers, not the
    initialization code written for 1.0 and later would get.  A module built inside
    an expression (``nn.Sequential(..., nn.BatchNorm2d(64), ...)``, a list of
    layers) gets no fix: the message says how to draw the weight there.
    """
    found = _NORMS.get(ctx.resolve(node.func) or "")
    if found is None or not plain_arguments(node) or not legacy(ctx):
        return
    at, affine_default = found
    affine = argument(node, at, "affine")
    if not (affine_default and affine is None or isinstance(affine, ast.Constant)
            and affine.value is True):
        return
    target = _target(ctx, node)
    if target is not None and f"{target}.weight" in ctx.text or _weights_set(ctx):
        return
    init, imports = spelled(ctx, "torch.nn.init")
    name = ctx.source.quote(node, 30)
    fix = _fix(ctx, node, target, init, imports) if target is not None else None
    how = f"add `{init}.uniform_({target}.weight)` after it" if target is not None else \
        f"bind it to a name and call `{init}.uniform_(NAME.weight)` right after it is built"
    yield Report(
        node,
        f"`{name}` started with its weight drawn from U(0, 1) on PyTorch 0.3, and starts "
        f"at ones since 1.0 (drawing nothing, so the layers built after it get other "
        f"random numbers too): other numbers from the same seed; for 0.3's, {how}",
        fix,
    )


def _target(ctx: Context, node: ast.Call) -> Optional[str]:
    """``self.bn1`` of ``self.bn1 = nn.BatchNorm2d(64)`` (a name or an attribute
    chain assigned the module alone), or ``None``."""
    parent = ctx.parent
    if not isinstance(parent, ast.Assign) or parent.value is not node \
            or len(parent.targets) != 1:
        return None
    return key(parent.targets[0])


def _weights_set(ctx: Context) -> bool:
    """Whether the file, or a module of its project that may import it (a training
    script applying ``weights_init`` to the model), sets batch-norm weights."""
    found = ctx.memo.get("TV157 set")
    if found is None:
        found = ctx.memo["TV157 set"] = bool(
            _SETS_WEIGHTS.search(ctx.text)
            or mentioned_by(ctx.filename, _APPLIES_ELSEWHERE, importers=True))
    return found


def _fix(ctx: Context, node: ast.Call, target: str, init: str,
         imports) -> Optional[Fix]:
    src = ctx.source
    statement = ctx.parent
    (line, col), (end_line, end_col) = src.start(statement), src.end(statement)
    first, last = src.lines[line - 1], src.lines[end_line - 1]
    indent = first[:col]
    tail = last[end_col:].strip()
    if indent.strip() or tail and not tail.startswith("#"):
        return None  # (``if x: bn = ...``, ``a = 1; bn = ...; b = 2``)
    newline = "\r\n" if last.endswith("\r\n") else "\n"
    at = (end_line, len(last.rstrip("\r\n")))
    return Fix((Edit(at, at, f"{newline}{indent}{init}.uniform_({target}.weight)"),),
               UNSAFE, imports)
