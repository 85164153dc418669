"""TV101: the keyword argument ``async=``, a syntax error since Python 3.7."""
from __future__ import annotations

import ast
from typing import Iterator

from ..analysis.context import Context
from ..analysis.findings import Report
from ..analysis.registry import rule


@rule("TV101")
def async_keyword(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``async=`` keyword arguments, which make the whole file a syntax error.

    ## What it does
    Flags the keyword argument ``async=`` in any call: ``x.cuda(async=True)``,
    ``x.to(device, async=True)``, ``dst.copy_(src, async=True)``.  Such a
    file cannot be parsed, so this rule works on tokens, not on the tree:
    ``torch04 check`` finds ``async`` followed by ``=`` (not ``==``) inside
    the parentheses of a call (not a ``def``), reports it, and, when the
    file parses once those keywords are renamed, checks the rest of the file
    with every other selected rule (positions are those of the original
    file).  Only torch's keywords are taken: the file works with torch (it
    imports torch, or uses ``Variable`` or ``.backward(``), or every
    ``async=`` is given to a method that took it in PyTorch 0.3 (``cuda``,
    ``type``, ``copy_``, and ``to``).  Another library's ``async=True``
    (``client.send(msg, async=True)`` in a file without torch) is not
    ``non_blocking``; such a file, and one that still does not parse, is
    reported as "cannot parse".  ``async`` as a parameter (``def f(x,
    async=False)``) is not rescued: renaming it would change what the callers
    must pass.

    Inside flake8 this rule never fires: flake8 reports such a file as
    ``E999 SyntaxError`` and never hands it to plugins.  Run
    ``torch04 check --fix --select TV101`` (or plain ``--fix``) to repair it.

    ## Why is this bad?
    PyTorch 0.3 spelled non-blocking copies ``async=True``.  ``async`` is a
    reserved word since Python 3.7, so the whole file is a ``SyntaxError``:
    nothing in it runs, and no linter can look inside it.  PyTorch 0.4
    renamed the argument ``non_blocking``.

    ## Example
    ```python
    target = target.cuda(async=True)
    ```

    Use instead:
    ```python
    target = target.cuda(non_blocking=True)
    ```

    ## Fix safety
    Renaming the keyword is *safe*: ``non_blocking`` is the same argument
    under its new name.  In a torch file, an ``async=`` given to the project's
    own function is renamed too: rename that function's parameter (whose
    ``def`` cannot be rescued) to ``non_blocking`` as well.  ``torch04 check
    --fix`` writes the renames together with the other fixes of the rescued
    file, in one run.
    """
    return iter(())  # a parsed file holds no ``async=``: see flake8_torch04.analysis.rescue
