"""TV134: ``dropout=`` given to a one-layer ``nn.RNN``/``nn.LSTM``/``nn.GRU``."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.constants import int_value, may_hold
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
    file and of the project's modules, see ``analysis/constants.py``).  Also where
    the count is evidently 1 in some run only: a binding of ``1`` among others
    (``depth = 1``, then ``depth = 3`` under a condition), a call passing 1 for the
    parameter that holds it, a parameter defaulting to 1 whose callers are not all
    in view, or a command-line option defaulting to 1 (``args.layers`` after
    ``add_argument('--layers', type=int, default=1)``, in this module or passed on
    to another); there the dropout given must be a name, an attribute or a
    number (an expression may already guard it: ``d if n > 1 else 0``).  A
    ``num_layers`` that is never evidently 1 (an attribute of an unknown object, a
    parameter every call passes 2 or an unknown value for) is not flagged.
    Position: the ``dropout`` argument.

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
    (or ``nn.Dropout`` on the outputs, if dropout was meant); and where the count
    is 1 in some runs only:
    ```python
    self.rnn = nn.GRU(size, size, n_layers, dropout=(dropout if n_layers > 1 else 0))
    ```

    ## Fix safety
    The fix removes the ``dropout`` argument: it is *safe* where the one layer
    is written at the call (no ``num_layers``, or ``1``), since with one layer the
    module computes the same with and without it; *unsafe* where the count is
    followed to a name's bindings (a later call passing 2 would lose its
    dropout).  Where the count is 1 in some runs only, the fix keeps the dropout
    for more layers, ``dropout=(d if n > 1 else 0)``, with the call's own
    ``num_layers`` and ``dropout`` read again (names or attributes): *safe*, the
    module computes the same for every count (its ``dropout`` attribute reads 0
    with one layer).  An argument next to a comment is left to a person.
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
        yield from _some_runs(ctx, node, given, layers)
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


def _some_runs(ctx: Context, node: ast.Call, given: ast.keyword,
               layers: ast.AST) -> Iterator[Report]:
    """A count of layers that is 1 in some run only: the dropout kept for more."""
    dropout = given.value
    if not (_read(dropout) or isinstance(dropout, ast.Constant)) or not _read(layers):
        return
    where = may_hold(ctx, layers, 1)
    if where is None:
        return
    src = ctx.source
    name = src.quote(node.func, 20).rsplit(".", 1)[-1]
    count, shown = src.quote(layers, 30), src.quote(dropout, 30)
    guarded = f"({shown} if {count} > 1 else 0)"
    written = f"({src.text(dropout)} if {src.text(layers)} > 1 else 0)"
    yield Report(
        given,
        f"`{name}` has one layer where `{count}` is 1 ({where}): its dropout acts "
        f"between layers only, so `dropout={shown}` then does nothing (on 0.3 too) and warns "
        f"since PyTorch 0.4; write `dropout={guarded}`",
        Fix((src.replace(dropout, written),), SAFE) if "\n" not in written else None,
    )


def _read(node: ast.AST) -> bool:
    """A name, or an attribute of one (``args.layers``): read again, the same."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)
