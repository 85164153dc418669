"""TV161: a cell of the project's own derived from ``RNNCellBase``, 0.3's bare base."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.registry import rule
from .data_inplace import spelled

_BASES = frozenset(("torch.nn.modules.rnn.RNNCellBase", "torch.nn.RNNCellBase",
                    "torch.nn.modules.RNNCellBase"))
#: the arguments today's ``RNNCellBase.__init__`` requires
_REQUIRED = 4


@rule("TV161")
def rnn_cell_base(ctx: Context, node: ast.ClassDef) -> Iterator[Report]:
    """Flags a class derived from ``RNNCellBase`` whose ``__init__`` calls it without arguments.

    ## What it does
    Flags a class whose base is ``torch.nn.RNNCellBase`` (resolved through
    imports, ``from torch.nn.modules.rnn import RNNCellBase``, or bound by nothing
    but a star import of that module, ``torch.nn`` or ``torch.nn.modules``) and
    whose ``__init__`` calls the base's with fewer than four arguments
    (``super(Cell, self).__init__()``, ``RNNCellBase.__init__(self)``).
    Position: the base.

    ## Why is this bad?
    In PyTorch 0.3, ``RNNCellBase`` was a bare ``nn.Module`` with a ``__repr__``:
    2017 code derived its own cells (a layer-normalized LSTM cell) from it and
    built their weights itself.  Since then its ``__init__`` takes
    ``(input_size, hidden_size, bias, num_chunks)`` and registers ``weight_ih``,
    ``weight_hh`` and the biases: on 2.13 the cell stops with ``TypeError:
    RNNCellBase.__init__() missing 4 required positional arguments: 'input_size',
    'hidden_size', 'bias', and 'num_chunks'``.  Passing them would not help:
    the cell would get parameters it never uses, drawn from the random
    generator before its own (every later layer starts from other numbers),
    listed in ``parameters()`` and saved in its ``state_dict``.

    ## Example
    ```python
    class LayerNormLSTMCell(RNNCellBase):
        def __init__(self, input_size, hidden_size):
            super(LayerNormLSTMCell, self).__init__()
            self.ih = nn.Linear(input_size, 4 * hidden_size)
    ```

    Use instead:
    ```python
    class LayerNormLSTMCell(nn.Module):
        def __init__(self, input_size, hidden_size):
            super(LayerNormLSTMCell, self).__init__()
            self.ih = nn.Linear(input_size, 4 * hidden_size)
    ```

    ## Fix safety
    The fix derives the class from ``nn.Module``, which is what 0.3's base was:
    the same parameters, drawn in the same order.  It is *unsafe*: the class
    loses 0.3's ``__repr__`` (``print(model)`` shows it as a plain module), and
    an ``isinstance(m, RNNCellBase)`` elsewhere no longer holds.
    """
    base = next((b for b in node.bases if ctx.resolve(b) in _BASES or _starred(ctx, b)), None)
    if base is None:
        return
    init = next((s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and s.name == "__init__"), None)
    call = _base_init(init, node, base) if init is not None else None
    if call is None:
        return
    given = len(call.args) + len(call.keywords) - (0 if _via_super(call) else 1)
    if given >= _REQUIRED or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return
    module, imports = spelled(ctx, "torch.nn")
    src = ctx.source
    yield Report(
        base,
        f"`{node.name}` derives from `{src.quote(base, 30)}`, whose `__init__` now requires "
        f"input_size, hidden_size, bias and num_chunks (0.3's was a bare Module: TypeError); "
        f"use `{module}.Module`",
        Fix((src.replace(base, f"{module}.Module"),), UNSAFE, imports),
    )


#: the modules whose star import gives ``RNNCellBase``, in 0.3 as today
_STARRED = frozenset(("torch.nn", "torch.nn.modules", "torch.nn.modules.rnn"))


def _starred(ctx: Context, base: ast.AST) -> bool:
    """``RNNCellBase`` that only a star import of torch can have bound: the file's
    star imports are all of :data:`_STARRED` and it binds no such name itself."""
    if not (isinstance(base, ast.Name) and base.id == "RNNCellBase") \
            or ctx.resolve(base) is not None:
        return False
    starred = False
    for n in ast.walk(ctx.tree):  # (one walk: the star imports, and a binding of its own)
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            if n.level or n.module not in _STARRED:
                return False
            starred = True
        elif isinstance(n, ast.ClassDef) and n.name == base.id or isinstance(n, ast.Name) \
                and n.id == base.id and not isinstance(n.ctx, ast.Load):
            return False
    return starred


def _via_super(call: ast.Call) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) \
        and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"


def _base_init(init: ast.AST, cls: ast.ClassDef, base: ast.AST) -> Optional[ast.Call]:
    """The call of the base's ``__init__`` in ``init``: ``super(...).__init__(...)``
    or ``Base.__init__(self, ...)``."""
    for node in ast.walk(init):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "__init__"):
            continue
        if _via_super(node):
            return node
        if ast.dump(node.func.value) == ast.dump(base):
            return node
    return None
