"""TV134: ``dropout=`` given to a one-layer ``nn.RNN``/``nn.LSTM``/``nn.GRU``."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.constants import int_value
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import argument, keyword, plain_arguments, remove_argument

#: the recurrent modules whose ``dropout`` acts between layers only
_RECURRENT = frozenset(("torch.nn.RNN", "torch.nn.LSTM", "torch.nn.GRU"))
#: where ``num_layers`` stands among their arguments
_NUM_LAYERS = 2


@rule("TV134")
def single_layer_dropout(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``dropout=`` given to a one-layer ``nn.RNN``, ``nn.LSTM`` or ``nn.GRU``.

    ## What it does
    Flags ``nn.RNN``, ``nn.LSTM`` and ``nn.GRU`` (torch's, resolved through
    imports) given a ``dropout=`` keyword that is not the literal ``0``, where the
    module evidently has one layer: ``num_layers`` not given (its default is 1),
    given as the literal ``1``, or held in a name every binding of which gives 1
    (``LAYERS = 1`` at the top of the module; a parameter every call of its
    function or class passes 1 for, or leaves at a default of 1: the calls of the
    file and of the project's modules, see ``analysis/constants.py``).  A
    ``num_layers`` that may be more than one (``args.layers``, a parameter a call
    passes 2 or an unknown value for) is not flagged.  Position: the ``dropout``
    argument.

    ## Why is this bad?
    Recurrent modules apply ``dropout`` to the outputs of every layer but the
    last, so with one layer it does nothing, on PyTorch 0.3 as today.  Since
    PyTorch 0.4 building such a module warns ``UserWarning: dropout option adds
    dropout after all but last recurrent layer, so non-zero dropout expects
    num_layers greater than 1, but got dropout=0.5 and num_layers=1``: a 0.3
    language model or char-RNN that set it warns on every run, and whoever reads
    the code believes the model is regularized.

    ## Example
    ```python
    self.rnn = nn.LSTM(emb_size, hidden_size, dropout=0.5)
    ```

    Use instead:
    ```python
    self.rnn = nn.LSTM(emb_size, hidden_size)
    ```
    (or ``nn.Dropout`` on the outputs, if dropout was meant)

    ## Fix safety
    The fix removes the ``dropout`` argument: it is *safe* where the one layer
    is written at the call (no ``num_layers``, or ``1``), since with one layer the
    module computes the same with and without it; *unsafe* where the count is
    followed to a name's bindings (a later call passing 2 would lose its
    dropout).  An argument next to a comment is left to a person.
    """
    if ctx.resolve(node.func) not in _RECURRENT or not plain_arguments(node):
        return
    given = keyword(node, "dropout")
    dropout = given.value if given is not None else None
    if dropout is None or isinstance(dropout, ast.Constant) and dropout.value in (0, 0.0, None):
        return
    layers = argument(node, _NUM_LAYERS, "num_layers")
    written = layers is None or isinstance(layers, ast.Constant)
    if layers is not None and int_value(ctx, layers) != 1:
        return
    src = ctx.source
    edit = remove_argument(ctx, node, given)
    name = src.quote(node.func, 20).rsplit(".", 1)[-1]
    shown = src.quote(given, 30)
    warns = "warns since PyTorch 0.4" if isinstance(dropout, ast.Constant) else \
        "warns since PyTorch 0.4 when it is not 0"
    one = "one layer" if written else f"one layer (`{src.quote(layers, 20)}` is 1 here)"
    yield Report(
        given,
        f"`{name}` has {one}: its dropout acts between layers only, so `{shown}` does "
        f"nothing (on 0.3 too) and {warns}; remove it (or apply `nn.Dropout` to the "
        f"outputs)",
        Fix((edit,), SAFE if written else UNSAFE) if edit is not None else None,
    )
