"""TV154: ``F.dropout(x, p)`` without ``training``: a no-op on 0.3, dropping since 1.0."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.era import file_is_legacy
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.registry import rule
from .shared.calls import append_arguments, argument, plain_arguments

#: the functions whose ``training`` defaulted to ``False`` on 0.3 and to ``True``
#: since 1.0 (``alpha_dropout``'s is still ``False``)
_FUNCTIONS = frozenset(f"torch.nn.functional.{name}"
                       for name in ("dropout", "dropout2d", "dropout3d"))


@rule("TV154")
def dropout_default(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``F.dropout(x, p)`` without ``training`` in PyTorch 0.3 code.

    ## What it does
    In 0.3 code (the file itself shows 0.3 idioms, or the configuration says
    so: see ``analysis/era.py``; another module's idioms do not count, as the
    fix changes what code written for 1.0 and later computes), flags calls of
    ``torch.nn.functional.dropout``, ``dropout2d`` and ``dropout3d``
    (resolved through imports) that pass no ``training``, by keyword or as
    the third argument.  Left alone: ``alpha_dropout`` (its default is still
    ``False``), a call with ``*args`` or ``**kwargs``, and the ``nn.Dropout``
    modules (which follow ``train()``/``eval()``).  Position: the call.

    ## Why is this bad?
    Until PyTorch 1.0 these functions took ``training=False`` by default:
    ``x = F.dropout(x, 0.3)`` in a ``forward`` returned ``x`` unchanged, in
    training as in evaluation (a bug of many 2017 models, which meant to drop
    but never did).  Since 1.0 the default is ``training=True``: the same
    line now zeroes 30% of the values and scales the rest on every call,
    also when the model is evaluated, with no warning: other losses, other
    accuracies, and results that change from run to run.

    ## Example
    ```python
    def forward(self, x):
        x = F.leaky_relu(self.fc1(x), 0.2)
        x = F.dropout(x, 0.3)
        return torch.sigmoid(self.fc2(x))
    ```

    Use instead:
    ```python
    def forward(self, x):
        x = F.leaky_relu(self.fc1(x), 0.2)
        x = F.dropout(x, 0.3, training=False)
        return torch.sigmoid(self.fc2(x))
    ```

    ## Fix safety
    ``training=False`` is 0.3's default written out: the function returns its
    input, as it did, so the numbers are 0.3's: *safe* in 0.3 code.  The
    message also names ``training=self.training``, the dropout the code
    probably meant, which changes the numbers.
    """
    if ctx.resolve(node.func) not in _FUNCTIONS or not plain_arguments(node) \
            or not node.args or argument(node, 2, "training") is not None \
            or not file_is_legacy(ctx):
        return
    edit = append_arguments(ctx, node, "training=False")
    name = ctx.source.quote(node.func, 30)
    yield Report(
        node,
        f"`{name}` without `training` returned its input on PyTorch 0.3 (`training` "
        f"defaulted to False until 1.0) and drops on every call since, also in evaluation; "
        f"pass `training=False` for 0.3's numbers (`training=self.training` for the dropout "
        f"the code seems to mean, with other numbers)",
        Fix((edit,), SAFE) if edit is not None else None,
    )
