"""TV131: ``torch.set_default_tensor_type``, deprecated since PyTorch 2.1."""
from __future__ import annotations

import ast
from typing import Iterator, Optional, Tuple

from ..analysis.canonical import LEGACY_TENSOR_TYPES
from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import has_comment
from .shared.calls import argument, plain_arguments
from .type_comparison import torch_name

_FUNCTION = "torch.set_default_tensor_type"
#: the floating tensor types a default may be, by the dtype name they stand for
DTYPES = {
    "FloatTensor": "float32",
    "DoubleTensor": "float64",
    "HalfTensor": "float16",
    "BFloat16Tensor": "bfloat16",
}


def _tensor_type(ctx: Context, arg: ast.AST) -> Optional[str]:
    """``torch.DoubleTensor`` / ``'torch.cuda.FloatTensor'`` -> that dotted name."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        name = arg.value
    else:
        name = ctx.resolve(arg) or ""
    return name if name in LEGACY_TENSOR_TYPES else None


def _call_type(ctx: Context, node: ast.Call) -> Tuple[bool, Optional[str]]:
    """Whether ``node`` calls ``set_default_tensor_type``, and the type it sets."""
    if ctx.resolve(node.func) != _FUNCTION or not plain_arguments(node):
        return False, None
    arg = argument(node, 0, "t")
    if arg is None or len(node.args) + len(node.keywords) != 1:
        return True, None
    return True, _tensor_type(ctx, arg)


def _sets_other_device(ctx: Context, node: ast.Call) -> Optional[int]:
    """The line of another call in the file that sets a CUDA (or an unknown)
    default type, or a default device: a CPU type set here then also switched
    back to the CPU."""
    memo = ctx.memo.get("TV131.devices")
    if memo is None:
        memo = []
        for sub in ast.walk(ctx.tree):
            if not isinstance(sub, ast.Call):
                continue
            qualname = ctx.resolve(sub.func)
            if qualname == "torch.set_default_device":
                memo.append(sub)
            elif qualname == _FUNCTION:
                name = _call_type(ctx, sub)[1]
                if name is None or name.rsplit(".", 1)[0] != "torch":
                    memo.append(sub)
        ctx.memo["TV131.devices"] = memo
    for other in memo:  # type: ignore[attr-defined]
        if other is not node:
            return other.lineno  # type: ignore[no-any-return]
    return None


@rule("TV131")
def default_tensor_type(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.set_default_tensor_type(...)``.

    ## What it does
    Flags calls that resolve to ``torch.set_default_tensor_type`` through the
    file's imports, whatever their argument: a tensor type
    (``torch.DoubleTensor``), its name as a string (``'torch.DoubleTensor'``),
    a CUDA type (``'torch.cuda.FloatTensor'``) or anything else.  Position:
    the call.  ``torch.set_default_dtype`` and a project's own
    ``set_default_tensor_type`` are left alone.

    ## Why is this bad?
    PyTorch 2.1 deprecated it: on 2.13 the first call warns ``UserWarning:
    torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please
    use torch.set_default_dtype() and torch.set_default_device() as
    alternatives.``  For a CPU floating type, ``torch.set_default_dtype`` with
    that type's dtype has exactly the same effect (``torch.Tensor(2)``,
    ``torch.tensor([1.])``, ``torch.randn``, ``nn.Linear`` weights all get it).
    A CUDA type also made new tensors CUDA tensors: the replacement is
    ``torch.set_default_dtype(...)`` with ``torch.set_default_device('cuda')``,
    under which the legacy constructors (``torch.Tensor(3)``,
    ``torch.FloatTensor(3)``) still make CPU tensors (checked with the
    ``meta`` device on 2.13).

    ## Example
    ```python
    torch.set_default_tensor_type('torch.DoubleTensor')
    ```

    Use instead:
    ```python
    torch.set_default_dtype(torch.float64)
    ```

    ## Fix safety
    The fix is *safe* for a CPU floating type (``torch.FloatTensor``,
    ``DoubleTensor``, ``HalfTensor``, ``BFloat16Tensor``, as a type or its
    string): the call becomes ``torch.set_default_dtype(torch.<dtype>)``.
    It is *unsafe* when the file also sets a CUDA or an unknown default type,
    or a default device: ``set_default_tensor_type(torch.FloatTensor)`` also
    switched new tensors back to the CPU, which ``set_default_dtype`` does
    not.  A CUDA type gets the message only (the device is a decision for a
    machine with CUDA), as does an integer type (``TypeError: only
    floating-point types are supported as the default type``).
    """
    calls, name = _call_type(ctx, node)
    if not calls:
        return
    src = ctx.source
    quoted = src.quote(node, 60)
    why = "is deprecated since PyTorch 2.1 (UserWarning on 2.13)"
    if name is None:
        yield Report(node, f"`{quoted}` {why}; use `torch.set_default_dtype(...)` "
                           f"and `torch.set_default_device(...)`")
        return
    prefix, kind = name.rsplit(".", 1)
    dtype = DTYPES.get(kind)
    if dtype is None:
        yield Report(node, f"`{quoted}` {why}, and the default type must be a floating type "
                           f"(TypeError on 2.13); remove it, or use `torch.set_default_dtype(...)`")
        return
    torch, imports = torch_name(ctx)
    new = f"{torch}.set_default_dtype({torch}.{dtype})"
    if prefix != "torch":  # a CUDA (or sparse) type
        device = "'cuda'" if ".cuda" in prefix else "..."
        yield Report(node, f"`{quoted}` {why}; use `{new}` and "
                           f"`{torch}.set_default_device({device})` (legacy constructors "
                           f"such as `{torch}.Tensor(n)` then still make CPU tensors)")
        return
    other = _sets_other_device(ctx, node)
    fix = None
    if not has_comment(src.text(node)):
        fix = Fix((src.replace(node, new),), SAFE if other is None else UNSAFE, imports)
    note = "" if other is None else (
        f" (line {other} also sets a CUDA or unknown default, which "
        f"`set_default_dtype` does not switch back to the CPU)")
    yield Report(node, f"`{quoted}` {why}; use `{new}`{note}", fix)
