"""Compatibility code: tests of the torch version whose branches the walker skips."""
from __future__ import annotations

import ast
from typing import Optional

from .context import Context

# ---------------------------------------------------------------------------
# compatibility code

#: (regular expressions used only now and then are left to ``re``'s cache:
#: compiling them all at import would cost every editor save)
MODERN_IN_TRY = (
    r"\.item\(|no_grad|set_grad_enabled|\.detach\(|\.requires_grad_\(|"
    r"torch\.tensor\(|reduction\s*=|isinstance\([^)]*Tensor|\.to\(|"
    # the in-place ``nn.init`` names and ``clip_grad_norm_`` (0.4; TV121, TV122),
    # ``F.interpolate`` (0.4.1; TV124): ``try: init.xavier_uniform_(w)``
    # ``except AttributeError: init.xavier_uniform(w)`` is compatibility code
    r"\b(?:xavier_(?:uniform|normal)_|kaiming_(?:uniform|normal)_|orthogonal_|constant_|"
    r"dirac_|sparse_|clip_grad_norm_|clip_grad_value_|interpolate)\(|"
    r"\binit\.(?:normal|uniform|eye|zeros|ones)_\(|"
    # torchvision's ``make_grid(..., value_range=...)`` (0.9; TV138)
    r"\bvalue_range\s*="
)
EXC_IMPORT = {"ImportError", "ModuleNotFoundError"}


def _mentions_version(node: ast.AST, ctx: "Context") -> bool:
    if not ctx.version_flags and not ctx.has_version:
        return False
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == "__version__":
            # (torchvision's version goes with torch's: each release pins one torch)
            if ctx.resolve(sub.value) in ("torch", "torchvision"):
                return True
        elif isinstance(sub, ast.Name) and sub.id in ctx.version_flags:
            return True
    return False


_OLD_IF_LEFT = {ast.Lt: -1, ast.LtE: -1, ast.Gt: 1, ast.GtE: 1, ast.Eq: -1, ast.NotEq: 1}


def version_polarity(test: ast.AST, ctx: "Context") -> Optional[int]:
    """``1`` if ``test`` is true on modern PyTorch, ``-1`` if true on old PyTorch,
    ``0`` if it tests the version in a way this cannot tell, ``None`` if it does not.
    Besides comparisons of the version, a test that it starts with or holds a
    release before 1.0 (``torch.__version__.startswith('0.3')``, ``'0.3' in
    torch.__version__``) is true on old PyTorch only."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = version_polarity(test.operand, ctx)
        return -inner if inner else inner
    if isinstance(test, ast.Name) and test.id in ctx.version_flags:
        return ctx.version_flags[test.id]
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        if test.func.id == "hasattr" and len(test.args) == 2:
            attr = test.args[1]
            if isinstance(attr, ast.Constant) and attr.value in (
                "item", "no_grad", "set_grad_enabled", "detach", "requires_grad_",
            ):
                return 1
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and \
            test.func.attr == "startswith" and len(test.args) == 1 and not test.keywords \
            and _old_releases(test.args[0]) and _mentions_version(test.func.value, ctx):
        return -1  # (``torch.__version__.startswith('0.3')``)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
            isinstance(test.ops[0], (ast.In, ast.NotIn)) and _old_releases(test.left) and \
            _mentions_version(test.comparators[0], ctx):
        return -1 if isinstance(test.ops[0], ast.In) else 1  # (``'0.3' in torch.__version__``)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left_v = _mentions_version(test.left, ctx)
        right_v = _mentions_version(test.comparators[0], ctx)
        sign = _OLD_IF_LEFT.get(type(test.ops[0]))
        if left_v and not right_v and sign:
            return sign
        if right_v and not left_v and sign:
            return sign if type(test.ops[0]) in (ast.Eq, ast.NotEq) else -sign
    if _mentions_version(test, ctx):
        return 0
    return None


def _old_releases(node: ast.AST) -> bool:
    """A string literal (or a tuple of them) naming releases before 1.0 only:
    ``'0.3'``, ``('0.2', '0.3.')``; a test that a version starts with, or
    holds, one is true on old PyTorch only."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    return bool(items) and all(isinstance(i, ast.Constant) and isinstance(i.value, str)
                               and i.value.startswith("0.") for i in items)
