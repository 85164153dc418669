"""TV111: APIs removed without a mechanical replacement."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from ..analysis.context import Context
from ..analysis.findings import SAFE, Fix, Report
from ..analysis.nodes import innermost
from ..analysis.project.importers import mentioned_by
from ..analysis.registry import rule
from ..source.text import shorten
from .shared.calls import rename

#: removed modules: name -> (what torch 2.13 does, what to use instead)
MODULES = {
    "torch.utils.ffi": "use torch.utils.cpp_extension (C++/CUDA extensions)",
    "torch.utils.trainer": "write the training loop yourself (or use a training library)",
    "torch.nn._functions": "it was 0.3's private implementation of torch.nn: use the "
                           "torch.nn.functional function that does the same, or write "
                           "the computation with torch operations",
    "torch.legacy": "use the torch.nn modules and torch.nn.functional for its nn, "
                    "torch.optim for its optim",
    # (the modules of ``torch.legacy``, each with its own successor; the longest name wins)
    "torch.legacy.nn": "use the torch.nn modules and torch.nn.functional",
    "torch.legacy.optim": (
        "use torch.optim: its functions (`adam(opfunc, x, config)`, `sgd(...)`: Lua's "
        "calling convention) have no drop-in counterpart, so port the update (the "
        "same arithmetic on `x`) or hold `x` in `torch.optim.Adam([x], "
        "lr=config['learningRate'])` with the gradient in `x.grad` (its eps enters "
        "after the bias correction: slightly other numbers)"),
}
#: what an import of a removed module should also say
_IMPORT_NOTES = {
    "torch.legacy.optim": "; the import alone stops the program, even where its functions "
                          "are never called",
}
#: private helpers of 0.3's modules that 0.3 code imported, gone since -> advice
PRIVATE = {
    "torch.nn.modules.loss._assert_no_grad": (
        "drop the import and its calls: it only asserted that a loss's target needs no "
        "gradient (today's losses take one)"),
}
#: removed torch functions (also as tensor methods): name -> replacement
FUNCTIONS = {
    "gels": "torch.linalg.lstsq(A, B).solution (note: arguments swapped)",
    "potrf": "torch.linalg.cholesky(A, upper=True) (0.3's potrf gave the upper factor "
             "by default; linalg.cholesky gives the lower)",
    "potrs": "torch.cholesky_solve(B, U, upper=True) (0.3's potrs took the upper "
             "factor by default; cholesky_solve takes the lower)",
    "potri": "torch.cholesky_inverse(U, upper=True) (0.3's potri took the upper "
             "factor by default; cholesky_inverse takes the lower)",
    "trtrs": "torch.linalg.solve_triangular(A, B, upper=...)",
    "symeig": "torch.linalg.eigh(A) (uses the lower triangle by default)",
    "eig": "torch.linalg.eig(A) (complex results)",
    "gesv": "torch.linalg.solve(A, B) (note: arguments swapped; it returns the solution only)",
    "btrifact": "torch.linalg.lu_factor(A) (returns LU, pivots)",
    "btrifact_with_info": "torch.linalg.lu_factor_ex(A) (returns LU, pivots, info)",
    "btrisolve": "torch.linalg.lu_solve(LU, pivots, B) (note: arguments reversed; "
                 "B of shape (*, n, k))",
}
#: removed attributes (resolved through imports) -> replacement
ATTRIBUTES = {
    "torch._TensorBase": "torch.Tensor (`isinstance(x, torch.Tensor)`)",
    "torch.distributed._backend": "torch.distributed.get_backend() (a string: 'gloo', 'nccl'...)",
    "torch.distributed.dist_backend": "torch.distributed.Backend (`Backend.GLOO == 'gloo'`)",
}
#: deprecated classes renamed to a drop-in successor (warn on 2.13; fixed by renaming)
RENAMED_CLASSES = {
    "torch.nn.NLLLoss2d": "NLLLoss",
    "torch.nn.modules.NLLLoss2d": "NLLLoss",
    "torch.nn.modules.loss.NLLLoss2d": "NLLLoss",
}
#: what calling a removed function does on torch 2.13
_FUNCTION_ERRORS = {
    "symeig": "RuntimeError",
    "eig": "RuntimeError",
}
_REINFORCE = (
    "sample from a torch.distributions object and backpropagate "
    "`-dist.log_prob(action) * reward`"
)
_BACKEND = ("call the torch.nn.functional function that does the same (check its "
            "arguments: they need not line up)")
#: 0.3's THNN ``Embedding`` and what replaces it
_EMBEDDING = (
    "`_backend.Embedding.apply(input, weight, padding_idx, max_norm, norm_type, "
    "scale_grad_by_freq, sparse)` is `F.embedding` with the same arguments, but 0.3's "
    "`padding_idx=-1` meant no padding row: pass `None` for it (F.embedding reads -1 as "
    "the last row, which would then never train)")
#: THNN criteria (0.3's ``torch/nn/_functions/thnn/auto.py``: their backward
#: returns no gradient for the target) and the functions that replace them
_CRITERIA = {
    "L1Loss": "l1_loss", "MSELoss": "mse_loss", "SmoothL1Loss": "smooth_l1_loss",
    "NLLLoss": "nll_loss", "NLLLoss2d": "nll_loss", "BCELoss": "binary_cross_entropy",
    "KLDivLoss": "kl_div", "SoftMarginLoss": "soft_margin_loss",
    "MultiLabelMarginLoss": "multilabel_margin_loss", "MultiMarginLoss": "multi_margin_loss",
}
#: handlers that make an import in a ``try`` body a guarded one
_TRY_BODY_IMPORT_ERRORS = ("ImportError", "ModuleNotFoundError", "Exception")


@rule("TV111")
def removed_apis(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags APIs that PyTorch removed without a mechanical replacement.

    ## What it does
    Flags ``E.reinforce(r)``; imports and uses of ``torch.utils.ffi``,
    ``torch.utils.trainer``, ``torch.legacy`` (``torch.legacy.optim`` with
    its own advice) and ``torch.nn._functions`` (0.3's private implementation
    of ``torch.nn``); imports of 0.3's private helpers that 0.3 code copied
    from torch (``from torch.nn.modules.loss import _assert_no_grad``);
    ``m._backend`` (the THNN
    backend of a module, read on ``self`` in an ``nn.Module`` subclass or used
    as ``X._backend.Name``); ``torch._TensorBase`` and
    ``torch.distributed._backend`` / ``dist_backend``; and ``torch.gels``, ``torch.potrf``,
    ``torch.potrs``, ``torch.potri``, ``torch.trtrs``, ``torch.symeig``, ``torch.eig``,
    ``torch.gesv``, ``torch.btrifact``, ``torch.btrifact_with_info``,
    ``torch.btrisolve``, resolved through imports, and their tensor-method
    forms (``A.potrf()``, ``A.btrifact()``) in files that import torch.  The
    message names the replacement: for a THNN criterion (``X._backend.L1Loss``,
    or ``getattr(self._backend, type(self).__name__)`` in a class whose
    subclasses in the file, or itself, are named after one) the function of
    ``torch.nn.functional`` with the target detached, since 0.3's THNN
    criteria passed the target no gradient (a 2017 GAN's own ``L1Loss``,
    written so to take a target that requires grad: without ``.detach()``
    the discriminator gets the generator loss's gradient through it, and
    other numbers); for ``X._backend.Embedding.apply(...)`` (awd-lstm's
    ``embedded_dropout``), ``F.embedding`` with the same arguments but
    ``None`` for 0.3's ``padding_idx=-1``, which meant no padding row
    (``F.embedding`` reads -1 as the last row, and that word's embedding would
    never train).  It also flags ``nn.NLLLoss2d``, which
    still exists but is deprecated in favour of ``nn.NLLLoss``, where it is
    called or subclassed (the uses that warn; a mere reference, as in a list
    of classes, is left alone), and renames it.
    Imports in a ``try`` whose handler catches ``ImportError`` (a fallback for
    new versions) and a project's own ``eig``/``gels`` (resolved elsewhere)
    are left alone.

    ## Why is this bad?
    On PyTorch 2.13 these stop the program: ``reinforce()`` raises
    ``RuntimeError: reinforce() was removed`` (stochastic functions were
    replaced by ``torch.distributions`` in 0.4); the modules raise
    ``ModuleNotFoundError`` (``import torch.legacy.optim`` raises
    ``ModuleNotFoundError: No module named 'torch.legacy'``: ``torch.legacy``
    was removed in 1.0, so the import alone stops the program; the functions of
    ``torch.legacy.optim``, ``adam(opfunc, x, config)``, ``sgd(...)``..., took
    a closure returning the loss and its gradient, and their successor
    ``torch.optim`` has classes over parameters with ``.grad`` instead);
    ``m._backend``, ``torch._TensorBase``, ``torch.distributed._backend`` and
    ``dist_backend``, ``torch.gels``, ``potrf``,
    ``potrs``, ``potri``, ``trtrs``, ``gesv``, ``btrifact`` and ``btrisolve`` raise
    ``AttributeError`` (``module 'torch' has no attribute 'gesv'``);
    ``torch.symeig`` and ``torch.eig`` raise ``RuntimeError: This function was
    deprecated since version 1.9 and is now removed``.  ``nn.NLLLoss2d(...)``
    runs but warns ``FutureWarning: `NLLLoss2d` has been deprecated. Please
    use `NLLLoss` instead as a drop-in replacement``.

    ## Example
    ```python
    action = probs.multinomial(1)
    action.reinforce(reward)
    eigvals, eigvecs = torch.symeig(A, eigenvectors=True)
    X, LU = torch.gesv(B, A)
    criterion = nn.NLLLoss2d(weight)
    ```

    Use instead:
    ```python
    dist = torch.distributions.Categorical(probs)
    action = dist.sample()
    (-dist.log_prob(action) * reward).backward()
    eigvals, eigvecs = torch.linalg.eigh(A)
    X = torch.linalg.solve(A, B)
    criterion = nn.NLLLoss(weight)
    ```

    ## Fix safety
    Renaming ``nn.NLLLoss2d`` to ``nn.NLLLoss`` is *safe*: on 2.13 the old
    class is a subclass of ``NLLLoss`` that only adds the warning, with the
    same arguments and results (a bare imported ``NLLLoss2d`` becomes
    ``NLLLoss`` and the fixer imports it).  No fix is given when the file or
    another file of its project names ``NLLLoss2d`` in a string (a test's
    ``mock.patch("torch.nn.NLLLoss2d")`` would break): the message says so.
    An import of a removed module under a name of its own that the file never
    reads (``import torch.nn._functions as tnnf``, left from 0.3 code) is deleted:
    *safe*, it raised, and nothing reads the name.  Otherwise the removed APIs
    get no automatic fix: each replacement has different
    arguments or semantics (``lstsq`` and ``solve`` swap their arguments,
    ``eigh`` reads the other triangle, the REINFORCE loss is a rewrite of the
    training step).
    """
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        if not _guarded_import(ctx, node):
            yield from _imports(ctx, node)
    elif isinstance(node, ast.Attribute):
        report = _attribute(ctx, node)
        if report is not None:
            yield report
    elif isinstance(node, ast.Call):
        report = _method(ctx, node)
        if report is not None:
            yield report


def _removed_module(name: str) -> Optional[str]:
    """The removed module ``name`` is or is in (the longest such name of :data:`MODULES`)."""
    found = None
    for module in MODULES:
        if (name == module or name.startswith(module + ".")) and (
                found is None or len(module) > len(found)):
            found = module
    return found


def _imports(ctx: Context, node: ast.AST) -> Iterator[Report]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            module = _removed_module(alias.name)
            if module is not None:
                report = _module_report(node, alias.name, module, "ModuleNotFoundError")
                yield _unused(ctx, node, report)
                return
        return
    if node.level or not node.module:
        return
    module = _removed_module(node.module)
    if module is not None:
        # ``from torch.legacy import optim``: the advice of the module it names
        inner = {_removed_module(f"{node.module}.{alias.name}") for alias in node.names}
        name = node.module
        if len(inner) == 1 and None not in inner:
            module = name = inner.pop()  # type: ignore[assignment]
        yield _module_report(node, name, module, "ModuleNotFoundError")
        return
    for alias in node.names:
        module = _removed_module(f"{node.module}.{alias.name}")
        if module is not None:
            yield _module_report(node, module, module, "ImportError")
            return
        private = PRIVATE.get(f"{node.module}.{alias.name}")
        if private is not None:
            yield Report(node, f"`{node.module}.{alias.name}` was removed from PyTorch "
                               f"(ImportError on 2.13); {private}")
            return
        if node.module == "torch" and alias.name in FUNCTIONS:
            yield _function_report(node, f"torch.{alias.name}", alias.name, "import")
            return


def _unused(ctx: Context, node: ast.Import, report: Report) -> Report:
    """``report``, for ``import torch.nn._functions as tnnf`` whose one name the
    file never reads: with the import removed (*safe*: it raised, and nothing
    reads what it would have bound)."""
    if len(node.names) != 1 or node.names[0].asname is None:
        return report  # (``import torch.legacy.nn`` binds ``torch``, which is read)
    name = node.names[0].asname
    if len(re.findall(rf"\b{re.escape(name)}\b", ctx.text)) != 1:
        return report  # (read somewhere, or named in a string such as ``__all__``)
    edit = ctx.source.remove_lines(node)
    if edit is None:
        return report
    return report._replace(
        message=report.message + f"; `{name}` is never read here: delete the import",
        fix=Fix((edit,), SAFE))


def _module_report(node: ast.AST, name: str, module: str, error: str) -> Report:
    note = _IMPORT_NOTES.get(module, "") if error != "AttributeError" else ""
    return Report(
        node,
        f"`{name}` was removed from PyTorch ({error} on 2.13); {MODULES[module]}{note}",
    )


def _function_report(node: ast.AST, quoted: str, name: str, how: str) -> Report:
    error = _FUNCTION_ERRORS.get(name, "AttributeError")
    return Report(
        node,
        f"`{quoted}` was removed from PyTorch ({error} on 2.13); use {FUNCTIONS[name]}",
    )


def _guarded_import(ctx: Context, node: ast.AST) -> bool:
    """An import in the body of a ``try`` that catches ``ImportError``."""
    child = node
    for parent in reversed(ctx.parents):
        if isinstance(parent, ast.Try) and child in parent.body:
            for handler in parent.handlers:
                types = handler.type
                elts = types.elts if isinstance(types, ast.Tuple) else [types]
                if types is None or any(
                    isinstance(t, ast.Name) and t.id in _TRY_BODY_IMPORT_ERRORS for t in elts
                ):
                    return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            break
        child = parent
    return False


def _attribute(ctx: Context, node: ast.Attribute) -> Optional[Report]:
    if not isinstance(node.ctx, ast.Load):
        return None
    name = ctx.resolve(node)
    if name in ATTRIBUTES:
        return Report(node, f"`{ctx.source.quote(node)}` was removed from PyTorch "
                            f"(AttributeError on 2.13); use {ATTRIBUTES[name]}")
    if name in RENAMED_CLASSES:
        return _renamed_class(ctx, node, name) if _constructed(ctx, node) else None
    if node.attr == "_backend":
        return _backend(ctx, node)
    if name is None:
        return None
    module = _removed_module(name)
    if module is not None:
        # report the module itself, once per chain: ``torch.legacy`` in ``torch.legacy.nn.X``
        # (``torch.legacy.optim`` in ``torch.legacy.optim.adam``: it has its own advice)
        parent = ctx.parent
        if name == module and not (
                isinstance(parent, ast.Attribute) and parent.value is node
                and _removed_module(f"{name}.{parent.attr}") != module):
            return _module_report(node, ctx.source.quote(node), module, "AttributeError")
        return None
    if name.startswith("torch.") and name[6:] in FUNCTIONS:
        return _function_report(node, ctx.source.quote(node), name[6:], "attribute")
    return None


def _backend(ctx: Context, node: ast.Attribute) -> Optional[Report]:
    """``self._backend`` in an ``nn.Module`` subclass, or ``X._backend.Name``."""
    if not ctx.uses_torch:
        return None
    parent = ctx.parent
    thnn_use = (
        isinstance(parent, ast.Attribute) and parent.value is node and parent.attr[:1].isupper()
    )
    if not thnn_use and not (
        isinstance(node.value, ast.Name) and node.value.id == "self" and _in_module_class(ctx)
    ):
        return None
    names = [parent.attr] if thnn_use else _named_by_class(ctx, parent)  # type: ignore
    losses = [(n, _CRITERIA[n]) for n in names if n in _CRITERIA]
    advice = _EMBEDDING if names == ["Embedding"] else _BACKEND
    if losses and len(losses) == len(names):
        advice = "; ".join(f"`{n}`: `F.{f}(input, target.detach())`" for n, f in losses) + (
            " (0.3's THNN criteria passed the target no gradient: keep it so with "
            "`.detach()`; `size_average=False` is `reduction='sum'`)")
    return Report(
        node,
        f"`{ctx.source.quote(node)}` (the THNN backend) was removed from PyTorch "
        f"(AttributeError on 2.13); {advice}",
    )


def _named_by_class(ctx: Context, parent: Optional[ast.AST]) -> list:
    """``getattr(self._backend, type(self).__name__)``: the names of the classes
    of the file that derive from the class around it, or its own where none
    does (the class the call runs in); else none."""
    if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
            and parent.func.id == "getattr" and len(parent.args) == 2
            and ast.unparse(parent.args[1]) in ("type(self).__name__",
                                                "self.__class__.__name__")):
        return []
    cls = innermost(ctx.parents, ast.ClassDef)
    if cls is None:
        return []
    derived = [c.name for c in ctx.tree.body if isinstance(c, ast.ClassDef) and any(  # type: ignore
        isinstance(b, ast.Name) and b.id == cls.name for b in c.bases)]  # type: ignore
    return derived or [cls.name]  # type: ignore[attr-defined]


def _in_module_class(ctx: Context) -> bool:
    cls = innermost(ctx.parents, ast.ClassDef)
    return cls is not None and any(
        (ctx.resolve(base) or "").startswith("torch.nn.") for base in cls.bases)  # type: ignore


def _method(ctx: Context, node: ast.Call) -> Optional[Report]:
    func = node.func
    if isinstance(func, ast.Name):  # ``NLLLoss2d(...)`` imported by name
        name = ctx.resolve(func)
        return _renamed_class(ctx, func, name) if name in RENAMED_CLASSES else None
    if not isinstance(func, ast.Attribute):
        return None
    src = ctx.source
    if func.attr == "reinforce":
        if len(node.args) != 1 or node.keywords or not ctx.uses_torch:
            return None
        if ctx.resolve(func.value) is not None or _own_method(ctx, func):
            return None  # a module's or a class's own ``reinforce``
        return Report(
            node,
            f"`{shorten(src.text(node), 40)}` raises RuntimeError since PyTorch 0.4 "
            f"(reinforce() was removed); {_REINFORCE}",
        )
    if func.attr in FUNCTIONS and ctx.imports_torch and ctx.resolve(func.value) is None:
        if _own_method(ctx, func):
            return None
        return _function_report(node, shorten(src.text(node), 40), func.attr, "method")
    return None


def _own_method(ctx: Context, func: ast.Attribute) -> bool:
    """``self.reinforce(...)``, or a method the file defines itself."""
    if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return True
    defined = ctx.memo.setdefault("TV111 defined", {})  # (a search of the file per name)
    found = defined.get(func.attr)  # type: ignore[union-attr]
    if found is None:
        found = defined[func.attr] = f"def {func.attr}(" in ctx.text  # type: ignore[index]
    return found  # type: ignore[no-any-return]


def _constructed(ctx: Context, node: ast.AST) -> bool:
    """``node`` is called, or is a base of a class (whose ``__init__`` calls it):
    the uses that warn (a mere reference, as in a list of classes, does not)."""
    parent = ctx.parent
    if isinstance(parent, ast.Call):
        return parent.func is node
    return isinstance(parent, ast.ClassDef) and node in parent.bases


def _named_in_a_string(ctx: Context, old: str, fixable: bool) -> Optional[str]:
    """Where a string names the class ``old``: ``this file``, or (``fixable``) a
    module of the project; once per name (a search of the file per finding)."""
    cache = ctx.memo.setdefault("TV111 strings", {})
    found = cache.get((old, fixable), False)  # type: ignore[union-attr]
    if found is False:
        pattern = re.compile(r"""["'][\w.]*\b""" + re.escape(old) + r"\b")
        found = None
        if pattern.search(ctx.text):
            found = "this file"
        elif fixable:
            found = mentioned_by(ctx.filename, pattern, old)
        cache[(old, fixable)] = found  # type: ignore[index]
    return found  # type: ignore[return-value]


def _renamed_class(ctx: Context, node: ast.AST, name: str) -> Report:
    """``nn.NLLLoss2d``: renamed, with a fix unless a string names the old class."""
    old = name.rsplit(".", 1)[1]
    new = RENAMED_CLASSES[name]
    src = ctx.source
    spelled = src.quote(node)
    module = name.rsplit(".", 1)[0]
    made = rename(ctx, node, new, module)
    why = "is deprecated (FutureWarning on 2.13)"
    use = spelled[:len(spelled) - len(old)] + new
    where = _named_in_a_string(ctx, old, made is not None)
    if where is not None:
        return Report(node, f"`{spelled}` {why}; use `{use}` (a drop-in replacement); "
                            f"no automatic fix: {where} names `{old}` in a string "
                            f"(a mock.patch target?), rename it there too")
    fix = Fix((made[0],), SAFE, made[1]) if made is not None else None
    return Report(node, f"`{spelled}` {why}; use `{use}` (a drop-in replacement)", fix)
