"""TV165: ``Fn().apply(x)``: an autograd Function instantiated to call its ``apply``."""
from __future__ import annotations

import ast
from typing import Iterator, Optional, Tuple

from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.registry import rule
from ..source.text import Edit
from .shared.functions import FUNCTION_BASES, function_subclass, static


@rule("TV165")
def function_instance(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``Fn().apply(x)``: a new-style autograd Function called through an instance.

    ## What it does
    Flags ``C(...).apply(...)`` where ``C`` is a subclass of
    ``torch.autograd.Function`` (directly or through other classes, of the file
    or of a project module it imports) that defines a static ``forward``: the
    new style, whose ``apply`` is a class method.  (A ``forward`` that is not
    static is TV104's: the instance call itself raises.)  Position: the call of
    ``C``.

    ## Why is this bad?
    Late-2017 code moving to static ``forward``/``backward`` often kept the
    instance: ``NearestEmbed().apply(x, emb)``.  It computes the same, but
    PyTorch 2.13 warns at each call (``DeprecationWarning: <class
    'NearestEmbed'> should not be instantiated. Methods on autograd functions
    are all static, so you should invoke them on the class itself.
    Instantiating an autograd function will raise an error in a future
    version of PyTorch.``).

    ## Example
    ```python
    def square(x):
        return Square().apply(x)
    ```

    Use instead:
    ```python
    def square(x):
        return Square.apply(x)
    ```

    ## Fix safety
    The fix drops the call of the class: *safe* where it takes no argument and
    the class (and the classes of the file it derives from) defines no
    ``__init__``, so that making the instance did nothing; otherwise *unsafe*
    (what ``__init__`` did is no longer done).
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "apply"
            and isinstance(func.value, ast.Call)):
        return
    made = func.value
    found = _new_style(ctx, made.func)
    if found is None:
        return
    src = ctx.source
    name = src.text(made.func)
    plain = not made.args and not made.keywords and not found[1]
    fix = None
    if "\n" not in src.text(made) and src.text(made).startswith(name):
        fix = Fix((Edit(src.end(made.func), src.end(made), ""),), SAFE if plain else UNSAFE)
    yield Report(
        made,
        f"`{src.quote(made)}` makes an instance of the autograd Function `{name}`, whose "
        f"`apply` is static: PyTorch 2.13 warns (DeprecationWarning, an error to come); "
        f"use `{name}.apply(...)`",
        fix,
    )


def _new_style(ctx: Context, func: ast.AST) -> Optional[Tuple[ast.ClassDef, bool]]:
    """The Function class ``func`` names, with a static ``forward``, and whether
    it or a class of its file it derives from defines ``__init__``; ``None``
    for anything else."""
    if not isinstance(func, ast.Name):
        return None
    cls = ctx.defined_once().get(func.id)
    owner = ctx
    if cls is None:
        from ..analysis.foreign import project_class

        found = project_class(ctx, func.id)
        if found is None:
            return None
        owner, cls = found
    if not isinstance(cls, ast.ClassDef) or not function_subclass(owner, cls, 0, owner is ctx):
        return None
    forward = _forward(owner, cls, 0)
    if forward is None or not static(forward):
        return None
    return cls, _initialises(owner, cls, 0)


def _forward(ctx: Context, cls: ast.ClassDef, depth: int) -> Optional[ast.FunctionDef]:
    """The ``forward`` ``cls`` defines, or inherits from a class of its file."""
    own = [s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "forward"]
    if own:
        return own[0] if len(own) == 1 else None
    for base in cls.bases:
        parent = ctx.defined_once().get(base.id) if isinstance(base, ast.Name) else None
        if isinstance(parent, ast.ClassDef) and parent is not cls and depth < 4:
            return _forward(ctx, parent, depth + 1)
    return None


def _initialises(ctx: Context, cls: ast.ClassDef, depth: int) -> bool:
    """Whether ``cls`` or a class of its file it derives from defines ``__init__``
    (a base of another module: maybe)."""
    if any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in cls.body):
        return True
    for base in cls.bases:
        own = ctx.defined_once().get(base.id) if isinstance(base, ast.Name) else None
        if isinstance(own, ast.ClassDef) and own is not cls and depth < 4:
            if _initialises(ctx, own, depth + 1):
                return True
        elif ctx.resolve(base) not in FUNCTION_BASES:
            return True
    return False
