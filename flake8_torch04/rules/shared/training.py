"""Whether code trains: a backward pass, an optimizer step, a function of the file
that does, or one named so (TV002 keeps such code out of ``no_grad``)."""
from __future__ import annotations

import ast
import re
from typing import List, Set, Tuple

from ...analysis.context import Context
from ...analysis.lines import lines_matching
from ...analysis.nodes import every_node, spans_hit, words
from ...analysis.resolve import key
from ...analysis.values import MODULE, value_of

#: methods whose call means the function trains (or manages grad mode itself)
_TRAINING_METHODS = frozenset(("backward", "step", "zero_grad", "requires_grad_"))
_TRAINING_FUNCTIONS = frozenset((
    "torch.autograd.backward", "torch.autograd.grad", "torch.enable_grad",
    "torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.enable_grad",
))
#: words of a callee's name that say it trains
_TRAINING_WORDS = frozenset(("train", "fit", "optimize", "backward", "step", "update"))


def trains(ctx: Context, node: ast.AST) -> bool:
    """Whether ``node`` trains or may: calls ``.backward()``, ``.step()``, a
    function of the file that does or one named so (``train_epoch``), or
    turns ``requires_grad`` on."""
    trainers = _training_functions(ctx)
    nodes = list(every_node(node))
    # (``model.eval()`` ... ``model.train()``: a module's mode, set back, not training)
    evaluated = {key(sub.func.value) for sub in nodes if isinstance(sub, ast.Call)
                 and isinstance(sub.func, ast.Attribute) and sub.func.attr == "eval"
                 and not sub.args and not sub.keywords}
    evaluated.discard(None)
    for sub in nodes:  # (the order does not matter: any one says yes)
        if isinstance(sub, ast.keyword) and sub.arg == "requires_grad":
            if not (isinstance(sub.value, ast.Constant) and sub.value.value is False):
                return True
        if isinstance(sub, ast.Attribute) and sub.attr == "requires_grad" and isinstance(
                sub.ctx, ast.Store):
            return True
        if not isinstance(sub, ast.Call):
            continue
        func = sub.func
        if isinstance(func, ast.Attribute) and func.attr in _TRAINING_METHODS:
            return True
        if ctx.resolve(func) in _TRAINING_FUNCTIONS:
            return True
        callee = key(func)
        if callee is not None:
            last = callee.rsplit(".", 1)[-1]
            if last == "train" and len(sub.args) + len(sub.keywords) <= 1 and isinstance(
                    func, ast.Attribute) and key(func.value) in evaluated and \
                    value_of(ctx, func.value).kind == MODULE:
                continue
            if last in trainers:
                return True
            # (``meter.update(v)``, ``metrics.update(gt, pred)``: a method named
            # ``update`` alone is a dict's or a meter's, not training)
            if set(words(last)) & _TRAINING_WORDS and not (
                    isinstance(func, ast.Attribute) and last == "update"):
                return True
    return False


def _training_functions(ctx: Context) -> Set[str]:
    """Names of the file's functions and methods that train (call ``.backward()``,
    ``.step()``...)."""
    found = ctx.memo.get("TV002-trainers")
    if found is None:
        # one walk, each such call naming every function around it; the parts
        # whose lines spell no training method are not entered
        found = set()
        hits = lines_matching(ctx.text, _TRAINING_TEXT)
        stack: List[Tuple[ast.AST, Tuple[str, ...]]] = [(ctx.tree, ())]
        while stack:
            node, around = stack.pop()
            if not spans_hit(node, hits):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                around = around + (node.name,)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _TRAINING_METHODS):
                found.update(around)
            stack.extend((child, around) for child in ast.iter_child_nodes(node))
        ctx.memo["TV002-trainers"] = found
    return found


#: text every line spelling one of :data:`_TRAINING_METHODS` holds
_TRAINING_TEXT = re.compile("|".join(sorted(_TRAINING_METHODS)))
