"""A function of the file that only wraps its argument: ``to_var(x)`` is ``x`` again.

0.3 code defines such helpers everywhere (``to_var``, ``cuda_variable``): every
``return`` gives the first parameter, through ``Variable(...)``, device moves and
conditional expressions only, and the parameter is never rebound.  At a call, the
result then has the rank and dtype of the argument given by position, which the
helper's own returns cannot say when its callers pass different ranks.
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, Optional, Tuple

#: what keeps a tensor's shape and dtype: ``Variable(t, ...)`` and device moves
_VARIABLE = "torch.autograd.Variable"
_MOVES = frozenset(("cuda", "cpu"))


def wrapped_argument(definition: ast.AST, call: ast.Call,
                     resolve: Callable[[ast.AST], Optional[str]]) -> Optional[ast.AST]:
    """The argument of ``call`` that ``definition`` returns wrapped, or None: the
    one given for the parameter every ``return`` gives (``to_gpu(gpu, var)``
    returns ``var``), by position or by keyword."""
    if any(isinstance(a, ast.Starred) for a in call.args) \
            or any(kw.arg is None for kw in call.keywords):
        return None
    found = _WRAPPED.get(id(definition))
    if found is None or found[0] is not definition:
        if len(_WRAPPED) > 4096:
            _WRAPPED.clear()
        found = _WRAPPED[id(definition)] = (definition, _wrapped(definition, resolve))
    if found[1] is None:
        return None
    i, name = found[1]
    if i < len(call.args):
        return call.args[i]
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


#: ``id(definition) -> (definition, its wrapped parameter)``: a function's text
#: decides it (read once; a new tree is a new definition)
_WRAPPED: Dict[int, Tuple[ast.AST, Optional[Tuple[int, str]]]] = {}


def _wrapped(definition: ast.AST, resolve: Callable[[ast.AST], Optional[str]]
             ) -> Optional[Tuple[int, str]]:
    """The position and name of the parameter every ``return`` of ``definition``
    gives wrapped, or None."""
    params = getattr(definition, "args", None)
    if params is None:
        return None
    positional = [p.arg for p in params.posonlyargs + params.args]
    if not positional:
        return None
    returns = []
    rebound = set()
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    for node in ast.walk(definition):
        if isinstance(node, (ast.Yield, ast.YieldFrom)) or \
                node is not definition and isinstance(node, nested):
            return None
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            rebound.add(node.id)  # (rebound: not the argument any more)
        elif isinstance(node, ast.Return):
            returns.append(node.value)
    if not returns:
        return None
    for i, name in enumerate(positional):
        if name not in rebound and all(_wraps(r, name, resolve) for r in returns):
            return i, name
    return None


def _wraps(node: Optional[ast.AST], name: str,
           resolve: Callable[[ast.AST], Optional[str]]) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.IfExp):
        return _wraps(node.body, name, resolve) and _wraps(node.orelse, name, resolve)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _MOVES:
        return _wraps(func.value, name, resolve)
    if resolve(func) == _VARIABLE and len(node.args) == 1:
        return _wraps(node.args[0], name, resolve)
    return False
