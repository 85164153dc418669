"""Canonical qualified names of torch objects, and what star imports bind."""
from __future__ import annotations

from typing import Dict, Set

#: Spellings that name the same object, mapped to the one name rules match on.
CANONICAL: Dict[str, str] = {
    "torch.autograd.variable.Variable": "torch.autograd.Variable",
    "torch.nn.modules.container.Sequential": "torch.nn.Sequential",
    "torch.nn.modules.container.ModuleDict": "torch.nn.ModuleDict",
    "torch.nn.modules.container.ParameterDict": "torch.nn.ParameterDict",
    "torch.nn.modules.Sequential": "torch.nn.Sequential",
    "torch.nn.modules.ModuleDict": "torch.nn.ModuleDict",
    "torch.nn.modules.ParameterDict": "torch.nn.ParameterDict",
    "torch.nn.modules.module.Module": "torch.nn.Module",
    "torch.nn.parameter.Parameter": "torch.nn.Parameter",
}

_DTYPES = (
    "Float", "Double", "Half", "BFloat16", "Byte", "Char", "Short", "Int",
    "Long", "Bool",
)
LEGACY_TENSOR_TYPES = frozenset(
    f"{prefix}{dtype}Tensor"
    for prefix in ("torch.", "torch.cuda.", "torch.sparse.", "torch.cuda.sparse.")
    for dtype in _DTYPES
)

#: What ``from M import *`` binds, for the names the rules care about.  A star
#: import makes a name resolve only when nothing else binds it.
STAR_EXPORTS: Dict[str, Set[str]] = {
    "torch.autograd": {"Variable", "Function"},
    "torch.autograd.variable": {"Variable"},
    "torch": {"Tensor", "autograd", "nn", "cuda", "sparse"}
    | {name.split(".")[-1] for name in LEGACY_TENSOR_TYPES if name.count(".") == 1},
    "torch.nn": {
        "Sequential", "ModuleDict", "ParameterDict", "Module", "Parameter",
        "init", "functional",
    },
    "torch.cuda": {
        name.split(".")[-1] for name in LEGACY_TENSOR_TYPES if name.count(".") == 2
        and name.startswith("torch.cuda.")
    },
}


#: the one name ``Variable`` resolves to in every import spelling
VARIABLE = "torch.autograd.Variable"


def canonical(qualname: str) -> str:
    return CANONICAL.get(qualname, qualname)


#: names bound through the project's own modules start with this (see ``_project``)
PROJECT = "<project>"
