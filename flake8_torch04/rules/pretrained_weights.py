"""TV139: torchvision's ``pretrained=`` model builders, given ``weights=`` since 0.13."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit, has_comment, one_line
from .shared.calls import keyword

#: the classification builders that took ``pretrained`` (torchvision 0.2 to 0.12) ->
#: the weights their ``pretrained=True`` loads on torchvision 0.28
#: (``handle_legacy_interface(weights=("pretrained", ...))`` of each builder)
BUILDERS = {
    "alexnet": "AlexNet_Weights",
    **{f"vgg{n}{bn}": f"VGG{n}{bn.upper()}_Weights"
       for n in (11, 13, 16, 19) for bn in ("", "_bn")},
    **{f"resnet{n}": f"ResNet{n}_Weights" for n in (18, 34, 50, 101, 152)},
    "resnext50_32x4d": "ResNeXt50_32X4D_Weights",
    "resnext101_32x8d": "ResNeXt101_32X8D_Weights",
    "wide_resnet50_2": "Wide_ResNet50_2_Weights",
    "wide_resnet101_2": "Wide_ResNet101_2_Weights",
    "squeezenet1_0": "SqueezeNet1_0_Weights",
    "squeezenet1_1": "SqueezeNet1_1_Weights",
    **{f"densenet{n}": f"DenseNet{n}_Weights" for n in (121, 161, 169, 201)},
    "inception_v3": "Inception_V3_Weights",
    "googlenet": "GoogLeNet_Weights",
    "mobilenet_v2": "MobileNet_V2_Weights",
    "mobilenet_v3_large": "MobileNet_V3_Large_Weights",
    "mobilenet_v3_small": "MobileNet_V3_Small_Weights",
    **{f"shufflenet_v2_x{s}": f"ShuffleNet_V2_X{s}_Weights"
       for s in ("0_5", "1_0", "1_5", "2_0")},
    **{f"mnasnet{s}": f"MNASNet{s}_Weights" for s in ("0_5", "0_75", "1_0", "1_3")},
}
#: the modules a builder is read from (``torchvision.models.resnet18``, or its own
#: module: ``torchvision.models.resnet.resnet18``)
_MODULES = ("torchvision.models",)


def _builder(qualname: Optional[str]) -> Optional[str]:
    if not qualname or not qualname.startswith("torchvision.models."):
        return None
    module, _, name = qualname.rpartition(".")
    if name not in BUILDERS or not (module in _MODULES or module.count(".") == 2):
        return None
    return name


@rule("TV139")
def pretrained_weights(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``pretrained=`` given to a torchvision model builder.

    ## What it does
    Flags ``models.resnet18(pretrained=True)``, ``models.vgg19(pretrained=False)``,
    ``models.densenet121(pretrained=args.pretrained)`` and the positional form
    ``models.resnet18(True)``: a call of one of torchvision's classification
    builders that took ``pretrained`` (``alexnet``, ``vgg*``, ``resnet*``,
    ``resnext*``, ``wide_resnet*``, ``squeezenet*``, ``densenet*``,
    ``inception_v3``, ``googlenet``, ``mobilenet_v2``/``v3``, ``shufflenet_v2_*``,
    ``mnasnet*``), resolved through imports (``import torchvision.models as
    models``, ``from torchvision import models``, ``from torchvision.models
    import vgg19``, ``torchvision.models.resnet.resnet50``).  A builder of the
    project's own, another library's ``resnet18``, a call that already passes
    ``weights=``, and a ``pretrained`` hidden in ``**kwargs`` are left alone.

    ## Why is this bad?
    torchvision 0.13 replaced ``pretrained`` by ``weights``.  With the
    torchvision of PyTorch 2.13 (0.28) ``models.vgg19(pretrained=True)`` still
    loads the old ImageNet weights, with two warnings: ``UserWarning: The
    parameter 'pretrained' is deprecated since 0.13 and may be removed in the
    future, please use 'weights' instead.`` and ``UserWarning: Arguments other
    than a weight enum or `None` for 'weights' are deprecated since 0.13 and may
    be removed in the future. The current behavior is equivalent to passing
    `weights=VGG19_Weights.IMAGENET1K_V1`.`` (a positional ``True`` warns that
    ``weights`` is used as a positional parameter instead of the first).

    ## Example
    ```python
    import torchvision.models as models

    vgg = models.vgg19(pretrained=True).features
    net = models.resnet18(pretrained=False)
    ```

    Use instead:
    ```python
    import torchvision.models as models

    vgg = models.vgg19(weights=models.VGG19_Weights.IMAGENET1K_V1).features
    net = models.resnet18(weights=None)
    ```

    ## Fix safety
    ``pretrained=True`` becomes ``weights=<Builder>_Weights.IMAGENET1K_V1``,
    the weights torchvision itself loads for it (not ``DEFAULT``, which may be
    newer weights with other numbers), ``pretrained=False`` becomes
    ``weights=None`` and ``pretrained=flag`` becomes ``weights=... if flag else
    None``: what torchvision 0.28 does with the old argument, so the fix is
    *safe*.  The weights are spelled through the module the builder is called
    on (``models.VGG19_Weights``), or as ``torchvision.models.VGG19_Weights``
    (adding ``import torchvision.models``) for a builder imported by name.
    *Unsafe* where the edit would drop a comment.
    """
    name = _builder(ctx.resolve(node.func))
    if name is None or keyword(node, "weights") is not None \
            or any(kw.arg is None for kw in node.keywords):
        return
    given = keyword(node, "pretrained")
    if given is not None:
        value, where = given.value, given
    elif len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
        value = where = node.args[0]
    else:
        return
    src = ctx.source
    func = node.func
    imports: tuple = ()
    if isinstance(func, ast.Attribute):
        module = one_line(src.text(func.value))
    else:
        module, imports = "torchvision.models", ("torchvision.models",)
    weights = f"{module}.{BUILDERS[name]}.IMAGENET1K_V1"
    if isinstance(value, ast.Constant) and value.value in (True, False):
        new = f"weights={weights}" if value.value else "weights=None"
    else:
        flag = one_line(src.text(value))
        if isinstance(value, (ast.IfExp, ast.Lambda, ast.NamedExpr)):
            flag = f"({flag})"
        new = f"weights={weights} if {flag} else None"
    old = src.text(where)
    safety = UNSAFE if has_comment(old) or "\n" in old else SAFE
    start, end = src.start(where), src.end(where)
    yield Report(
        where,
        f"`pretrained` is deprecated since torchvision 0.13 (two UserWarnings on "
        f"PyTorch 2.13's torchvision); use `{new}`",
        Fix((Edit(start, end, new),), safety, imports),
    )
