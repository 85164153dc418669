"""TV167: 0.3's typed storage classes (``torch.ByteStorage.from_buffer(b)``)."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule

#: the typed storage classes, by the dtype their elements have
STORAGES = {f"torch.{kind}Storage": dtype for kind, dtype in (
    ("Byte", "uint8"), ("Char", "int8"), ("Short", "int16"), ("Int", "int32"),
    ("Long", "int64"), ("Float", "float32"), ("Double", "float64"), ("Half", "float16"),
    ("Bool", "bool"))}


@rule("TV167")
def typed_storage(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags 0.3's typed storages: ``torch.ByteStorage.from_buffer(b)``, ``torch.FloatStorage(n)``.

    ## What it does
    Flags a call of ``torch.ByteStorage``, ``CharStorage``, ``ShortStorage``,
    ``IntStorage``, ``LongStorage``, ``FloatStorage``, ``DoubleStorage``,
    ``HalfStorage`` or ``BoolStorage`` (resolved through imports), or of their
    ``from_buffer``; ``torch.ByteTensor(torch.ByteStorage.from_buffer(b))`` is
    reported once, at the outer call.  Position: the call.

    ## Why is this bad?
    The typed storages are deprecated: on 2.13 the first one a program makes warns
    ``UserWarning: TypedStorage is deprecated. It will be removed in the future
    and UntypedStorage will be the only storage class.``  2017's image
    transforms (torchvision's ``ToTensor`` copied into a repository) read a PIL
    image with ``torch.ByteTensor(torch.ByteStorage.from_buffer(pic.tobytes()))``.

    ## Example
    ```python
    img = torch.ByteTensor(torch.ByteStorage.from_buffer(pic.tobytes()))
    ```

    Use instead:
    ```python
    img = torch.frombuffer(bytearray(pic.tobytes()), dtype=torch.uint8)
    ```

    ## Fix safety
    ``torch.ByteTensor(torch.ByteStorage.from_buffer(b))`` becomes
    ``torch.frombuffer(bytearray(b), dtype=torch.uint8)``: *safe*, the same
    1-D ``uint8`` tensor of the bytes, over a copy of them as before (the
    ``bytearray``), so writing to it changes nothing else.  Other uses of a
    typed storage (a storage of a size, ``from_buffer`` of another type and
    its byte order) are left to the message: ``torch.frombuffer`` or
    ``tensor.untyped_storage()`` replace them, case by case.
    """
    name = ctx.resolve(node.func) or ""
    src = ctx.source
    if name == "torch.ByteTensor" and len(node.args) == 1 and not node.keywords:
        inner = _from_buffer(ctx, node.args[0])
        if inner == "torch.ByteStorage":
            buffer = node.args[0].args[0]  # type: ignore[attr-defined]
            new = f"torch.frombuffer(bytearray({src.text(buffer)}), dtype=torch.uint8)"
            fix = Fix((src.replace(node, new),), SAFE) if "\n" not in src.text(node) else None
            yield Report(node, f"`{src.quote(node)}` makes a typed storage, deprecated "
                               f"(UserWarning on 2.13); use `{new}`", fix)
        return
    storage = _from_buffer(ctx, node, False) or (name if name in STORAGES else None)
    if storage is None or _from_buffer(ctx, node) == "torch.ByteStorage" and \
            _inside_byte_tensor(ctx, node):
        return
    dtype = f"dtype=torch.{STORAGES[storage]}"
    instead = (f"read the bytes with `torch.frombuffer(bytearray(...), {dtype})`"
               if _from_buffer(ctx, node, False) else
               f"make the tensor itself (`torch.empty(n, {dtype})`; `torch.empty(0, ...)` "
               f"for none)")
    yield Report(node, f"`{src.quote(node)}` makes a typed storage ({storage}), deprecated "
                       f"(UserWarning on 2.13); {instead}, or use `tensor.untyped_storage()`")


def _from_buffer(ctx: Context, node: ast.AST, plain: bool = True) -> Optional[str]:
    """The storage class of ``S.from_buffer(b)`` (``plain``: one argument, no byte
    order), or ``None``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "from_buffer" and (
                not plain or len(node.args) == 1 and not node.keywords):
        name = ctx.resolve(node.func.value)
        return name if name in STORAGES else None
    return None


def _inside_byte_tensor(ctx: Context, node: ast.AST) -> bool:
    """``node`` is the argument of ``torch.ByteTensor(...)`` (reported there)."""
    parent = ctx.parent
    return isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords \
        and ctx.resolve(parent.func) == "torch.ByteTensor"
