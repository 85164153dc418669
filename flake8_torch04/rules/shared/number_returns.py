"""TV144's return forms: a function whose ``return`` gave a Python number on PyTorch 0.3
(read through ``.data`` in the function itself) gets the ``.item()`` there, for every caller."""
from __future__ import annotations

import ast
import os
from typing import Iterator, Optional

from ...analysis.context import Context
from ...analysis.findings import UNSAFE, Fix, Report
from ...analysis.nodes import body_nodes, innermost
from .numbers import (
    element_through_data, item_edit, literal_number, number_in_03, number_leaves, read_in,
    read_through_data,
)


def return_findings(ctx: Context, facts, node: ast.Return) -> Iterator[Report]:
    """``return reward`` where ``reward`` is computed from numbers 0.3 gave (and
    Python numbers) and the function returns a number literal elsewhere (``return
    0.``): it returned numbers on 0.3, and its callers (``np.mean`` of a list of
    them, ``json.dump``, arithmetic in double precision) now get a float32 tensor
    from this ``return``.  The fix puts
    ``.item()`` on each number 0.3 gave that the value is computed from
    (*unsafe*: a caller written for 0.4 may use the tensor)."""
    function = innermost(ctx.parents, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None or node.value is None or isinstance(node.value, ast.Constant):
        return
    if read_through_data(ctx, node.value) or element_through_data(node.value):
        return  # (an element read through ``.data`` gets its ``.item()`` where it is read)
    numeric = _numeric_return(ctx, function)
    used = None if numeric is not None else _number_function(ctx, facts, function)
    if numeric is None and used is None:
        return
    leaves = [leaf for leaf in number_leaves(ctx, facts, node.value, 0, set()) if leaf is not None]
    if not leaves:
        return  # (numbers alone, or a part neither a number nor one 0.3 gave)
    edits = [item_edit(ctx, leaf) for leaf in leaves]
    src = ctx.source
    why = (f"as `{function.name}` returns one at line {numeric}" if numeric is not None
           else f"and `{function.name}` returned that number ({used} uses it)")
    dtype = facts.of(node.value).dtype
    got = ("an int64 tensor (a dict key by identity; json refuses it)" if dtype == "int"
           else "a float32 tensor (numpy makes float32 of it, json refuses it)"
           if dtype == "float" else "a tensor (json refuses it)")
    yield Report(
        node.value,
        f"`{src.quote(node.value, 30)}` is a 0-dim tensor since PyTorch 0.4 where 0.3 gave "
        f"a Python number, {why}: its callers get {got}; add `.item()` where it is made",
        Fix(tuple(edits), UNSAFE) if all(e is not None for e in edits) else None,
    )


def _number_function(ctx: Context, facts, function: ast.AST) -> Optional[str]:
    """For a function of the file, undecorated, defined once, every ``return`` of
    which gives a value computed from numbers 0.3 gave (``return correct.sum() /
    n``) or a number literal, each with its ``.item()`` writable: where a call of it
    uses its result (not a statement of its own), ``line N`` of the file (or
    ``path:N`` of another module); else ``None``.  A function is one of the module,
    called by its name in the file or in the project's modules that import it; or
    a method of a class of the
    module (:func:`_method_class`), called on evident instances of the class, in
    the file or in the project's other modules (:mod:`~.analysis.method_sites`).
    Such a function gets its ``.item()`` at its returns (:func:`return_findings`), and a
    use of its result, not again (:func:`returned_number`)."""
    memo = ctx.memo.setdefault("TV144 number functions", {})
    if id(function) in memo:  # type: ignore[operator]
        return memo[id(function)]  # type: ignore[index]
    memo[id(function)] = None  # type: ignore[index]  (a recursive function: no)
    found = None
    name = getattr(function, "name", None)
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
            not function.decorator_list:
        owner = None if ctx.defined_once().get(name) is function else \
            _method_class(ctx, function)
        if owner is not None or ctx.defined_once().get(name) is function:
            returns = [n.value for n in body_nodes(function)
                       if isinstance(n, ast.Return) and n.value is not None]
            computed = [r for r in returns if not literal_number(r)]
            if computed and all(_returns_03_number(ctx, facts, r, function) for r in computed):
                # (a walk of the file, once: seldom reached)
                found = (_used_call(ctx, name) or _used_remote_call(ctx, function)) \
                    if owner is None else _used_method_call(ctx, owner, function)
    memo[id(function)] = found  # type: ignore[index]
    return found


def _method_class(ctx: Context, function: ast.AST) -> Optional[ast.ClassDef]:
    """The module-level class, defined once, whose body defines the method
    ``function`` once (not a special method, nor one ``nn.Module`` calls), or ``None``."""
    from ...analysis.callers import may_be_followed
    from ...analysis.objects import own_method

    owner = ctx.statement_parents().get(id(function))
    if not isinstance(owner, ast.ClassDef) or ctx.defined_once().get(owner.name) is not owner \
            or own_method(owner, function.name) is not function:  # type: ignore[attr-defined]
        return None
    return owner if may_be_followed(ctx, function, across=True) else None


def _used_method_call(ctx: Context, owner: ast.ClassDef, function: ast.AST) -> Optional[str]:
    """Where a call of the method ``function`` of ``owner`` on an evident instance
    uses its result: ``line N`` of the file, or ``path:N`` of another module."""
    from ...analysis.callers import some_method_sites
    from ...analysis.method_sites import method_sites
    from ...analysis.project.importers import named_elsewhere

    parents = ctx.file_parents()
    for call, _ in some_method_sites(ctx, function):
        if not isinstance(parents.get(id(call)), ast.Expr):
            return f"line {call.lineno}"
    name = function.name  # type: ignore[attr-defined]
    if not ctx.filename or not named_elsewhere(ctx.filename, name):
        return None
    for other, call, _ in method_sites(ctx, owner, function) or ():
        if not isinstance(other.file_parents().get(id(call)), ast.Expr):
            return f"`{os.path.basename(other.filename)}` line {call.lineno}"
    return None


def _used_remote_call(ctx: Context, function: ast.AST) -> Optional[str]:
    """Where a call of the module-level ``function`` in another module of the
    project that imports it (``utils.accuracy(out, y)``) uses its result:
    ``path:N``; else ``None``."""
    from ...analysis.importing import importing_sites
    from ...analysis.project.importers import named_elsewhere

    name = function.name  # type: ignore[attr-defined]
    if not ctx.filename or not named_elsewhere(ctx.filename, name, imported=True):
        return None
    for other, call, _ in importing_sites(ctx, function) or ():
        if not isinstance(other.file_parents().get(id(call)), ast.Expr):
            return f"`{os.path.basename(other.filename)}` line {call.lineno}"
    return None


def _returns_03_number(ctx: Context, facts, value: ast.AST, function: ast.AST) -> bool:
    if not number_in_03(facts.of(value, function)):
        return False
    leaves = [leaf for leaf in number_leaves(ctx, facts, value, 0, set(), function)
              if leaf is not None]
    return bool(leaves) and all(item_edit(ctx, leaf) is not None and
                                read_in(ctx, leaf, function) for leaf in leaves)


def _used_call(ctx: Context, name: str) -> Optional[str]:
    """The line of a call ``name(...)`` in the file whose result is used (the calls
    of the file's names read once per file)."""
    found = ctx.memo.get("TV144 used calls")
    if found is None:
        found = ctx.memo["TV144 used calls"] = {}
        parents = ctx.file_parents()
        for node in ast.walk(ctx.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and not isinstance(parents.get(id(node)), ast.Expr):
                found.setdefault(node.func.id, f"line {node.lineno}")  # type: ignore[union-attr]
    return found.get(name)  # type: ignore[union-attr]


def returned_number(ctx: Context, facts, value: ast.AST, scope=None) -> bool:
    """Whether ``value`` is what a call of a function of the file gives that gets its
    ``.item()`` at its returns (:func:`_number_function`): directly, or a name
    every binding of which that reaches it is such a call."""
    calls = [value]
    if isinstance(value, ast.Name):
        defs = (ctx.flow() if scope is None else ctx.flow_of(scope)).reaching(value)
        if not defs or not all(d.kind == "assign" for d in defs):
            return False
        calls = [d.value for d in defs]
    for call in calls:
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            if not _number_method(ctx, facts, call, scope):
                return False
            continue
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            return False
        function = ctx.defined_once().get(call.func.id)
        if function is None or _number_function(ctx, facts, function) is None:
            return False
    return True


def made_by_number_return(ctx: Context, node: ast.AST, scope=None, depth: int = 0) -> bool:
    """Whether every value that reaches ``node`` is what a call of a function or a
    method gets that has its ``.item()`` at its returns (:func:`_number_function`):
    the call itself, a name bound to it (:func:`returned_number`), or a parameter
    every caller of which passes one (read in the caller's module).  Another
    rule's ``.item()`` there would call it on a number."""
    from ...analysis.callers import passed_arguments
    from ...analysis.values import values

    if depth > 3:
        return False
    if returned_number(ctx, values(ctx), node, scope):
        return True
    if not isinstance(node, ast.Name):
        return False
    flow = ctx.flow() if scope is None else ctx.flow_of(scope)
    defs = flow.reaching(node)
    if not defs or len(defs) != 1 or defs[0].kind != "param":
        return False
    sites = passed_arguments(ctx, defs[0].node, flow.node)
    return bool(sites) and all(made_by_number_return(other, expr, at, depth + 1)
                               for other, expr, at in sites)


def _number_method(ctx: Context, facts, call: ast.Call, scope) -> bool:
    """Whether ``call`` calls, on an evident instance of a class of the project
    (``agent.act(s)``), a method that gets its ``.item()`` at its returns."""
    from ...analysis.objects import PLAIN, instance_class, own_method
    from ...analysis.values import FILE_CLASS, values

    receiver = facts.of(call.func.value, scope).name or ""  # type: ignore[attr-defined]
    if receiver.startswith(FILE_CLASS):
        found = (ctx, ctx.defined_once().get(receiver[len(FILE_CLASS):]))
    elif receiver.startswith(PLAIN):
        found = instance_class(ctx, receiver)
    else:
        return False
    if found is None or not isinstance(found[1], ast.ClassDef):
        return False
    other, cls = found
    method = own_method(cls, call.func.attr)  # type: ignore[attr-defined]
    return method is not None and _number_function(other, values(other), method) is not None


def _numeric_return(ctx: Context, function: ast.AST) -> Optional[int]:
    """The line of a ``return`` of a number literal (``return 0.``, ``return -1``) in
    ``function`` itself, or ``None`` (once per function)."""
    memo = ctx.memo.setdefault("TV144 numeric returns", {})
    if id(function) not in memo:  # type: ignore[operator]
        found = None
        for stmt in body_nodes(function):
            if isinstance(stmt, ast.Return) and literal_number(stmt.value):
                found = stmt.lineno
                break
        memo[id(function)] = found  # type: ignore[index]
    return memo[id(function)]  # type: ignore[index]
