"""TV003: ``loss.data[0]`` scalar extraction, and loss accumulation that keeps graphs alive."""
from __future__ import annotations

import ast
import re
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from .._core import SAFE, UNSAFE, Context, Fix, Report, rule
from .._flow import (
    Def, Flow, detaches, enclosing_loop, grad_disabled, key, lines_matching, plainly_not_tensor,
    walk_hits, words,
)
from .._resolve import Scope, builtin_call
from .._source import Edit, has_comment, needs_parens, one_line

# -- names ---------------------------------------------------------------

LOSS_WORDS = frozenset(("loss", "cost", "nll", "kl"))
_PLURALS = frozenset(("losses", "costs"))
#: words that make ``err`` a GAN loss (``errD``, ``err_real``, ``errG_fake``)
_ERR_PARTNERS = frozenset(("d", "g", "real", "fake", "gen", "dis", "disc"))
#: last words of names that hold something other than a loss value
_NOT_A_VALUE = frozenset((
    "fn", "func", "function", "functions", "weight", "weights", "mask", "masks", "list",
    "lst", "history", "hist", "dict", "map", "buffer", "buf", "meter", "meters", "module",
    "layer", "net", "criterion", "crit", "type", "types", "grad", "grads", "name", "names",
    "key", "keys", "idx", "index", "indices", "values", "vals", "log", "logs", "array",
    "arr", "shape", "size", "scale", "scales", "coef", "lambda", "lr", "weighting",
))


def _loss_words(ws: Sequence[str], plurals: bool = False) -> bool:
    vocabulary = LOSS_WORDS | _PLURALS if plurals else LOSS_WORDS
    if any(w in vocabulary for w in ws):
        return True
    return "err" in ws and any(w in _ERR_PARTNERS for w in ws)


def loss_name(node: ast.AST) -> bool:
    """A name or attribute that names a loss value: ``loss_l``, ``self.loss``, ``errD``."""
    k = key(node)
    if k is None:
        return False
    ws = words(k.rsplit(".", 1)[-1])
    return bool(ws) and ws[-1] not in _NOT_A_VALUE and _loss_words(ws)


#: last words of a callee named for what computes a loss (``loss_fn``, ``cost_func``)
_LOSS_FUNCTION_WORDS = frozenset(("fn", "func", "function", "fun", "criterion", "crit"))


def _by_name_through(value: ast.AST, by_name: bool) -> bool:
    """A name assigned a value counts by its name (``loss = ...``), except when
    the value is a ``*_function(...)`` call, which needs the evidence the
    extraction itself gives."""
    if isinstance(value, ast.Call) and _named_function(value.func):
        return by_name
    return True


def _named_function(func: ast.AST) -> bool:
    """``loss_function``: scipy's ``rho = loss_function(f)`` is a 2-D array, so such
    a callee is a loss call only where ``.data`` or ``.numpy()`` says tensor."""
    k = key(func)
    return k is not None and k.rsplit(".", 1)[-1].lower().endswith("function")


def _loss_callee(node: ast.AST) -> bool:
    """``criterion``, ``loss_fn``, ``compute_loss``, ``self.nll``: a callee named for a
    loss; not ``nll_loss_forward`` or ``select_min_cost_strategy``, whose last
    word says they compute something else."""
    k = key(node)
    if k is None:
        return False
    ws = words(k.rsplit(".", 1)[-1])
    if "criterion" in ws or "crit" in ws:
        return True
    return bool(ws) and _loss_words(ws) and (
        ws[-1] in LOSS_WORDS or ws[-1] in _LOSS_FUNCTION_WORDS or ws[-1] in _ERR_PARTNERS
        or ws[-1] == "err"
    )


# -- values --------------------------------------------------------------

#: method calls that keep a tensor's shape (``loss.data.cpu()`` is still 0-dim)
_TRANSPARENT = frozenset((
    "cpu", "cuda", "detach", "clone", "float", "double", "half", "contiguous", "squeeze",
    "numpy", "tolist",
))
#: reductions: method -> positional arguments that still reduce everything
_REDUCTIONS = {
    "sum": 0, "mean": 0, "prod": 0, "max": 0, "min": 0, "std": 0, "var": 0, "median": 0,
    "trace": 0, "norm": 1, "dot": 1, "dist": 2,
}
#: element-wise functions: a one-element input gives a one-element output
_ELEMENTWISE = frozenset((
    "exp", "log", "sqrt", "abs", "neg", "sigmoid", "tanh", "log1p", "expm1", "pow",
))
_DIM_KEYWORDS = frozenset(("dim", "axis"))
_F_LOSSES = frozenset((
    "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
))


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def peel(node: ast.AST) -> Tuple[ast.AST, List[str]]:
    """Strip ``.data``/``.cpu()``/``.numpy()``... off ``node``: the tensor and the steps."""
    steps: List[str] = []
    while True:
        if isinstance(node, ast.Attribute) and node.attr == "data":
            steps.append("data")
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _TRANSPARENT
            and not node.keywords
            and (not node.args or node.func.attr == "cuda")
        ):
            steps.append(node.func.attr)
            node = node.func.value
        else:
            return node, steps


def _per_element(call: ast.Call) -> bool:
    """``reduce=False`` / ``reduction='none'``: one loss per element, not a scalar."""
    for kw in call.keywords:
        value = kw.value
        if kw.arg == "reduce" and isinstance(value, ast.Constant) and value.value is False:
            return True
        if kw.arg == "reduction" and isinstance(value, ast.Constant) and value.value == "none":
            return True
    return False


#: methods that return the module they are called on (``nn.MSELoss(...).cuda()``)
_SAME_MODULE = frozenset(("cuda", "cpu", "to", "float", "double", "half", "train", "eval"))


def _per_element_instance(value: ast.AST) -> bool:
    """``nn.CrossEntropyLoss(reduce=False)`` (or ``reduction='none'``), also
    through ``.cuda()``/``.to(device)``: a loss module giving one loss per element."""
    while (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
           and value.func.attr in _SAME_MODULE and not _per_element(value)):
        value = value.func.value
    return isinstance(value, ast.Call) and _per_element(value)


def _per_element_keys(ctx: Context) -> frozenset:
    """The keys the file assigns a per-element loss module anywhere
    (``criterion = nn.CrossEntropyLoss(reduce=False)``, ``self.crit = ...``):
    one walk of the file, only when it spells ``reduce`` at all."""
    return _per_element_facts(ctx)[0]


def _makes_per_element(ctx: Context) -> bool:
    """Whether the file computes per-element losses anywhere (``reduce=False``,
    ``reduction='none'``): then a loss is not a scalar by its name alone."""
    return _per_element_facts(ctx)[1]


_REDUC = re.compile("reduc")  # (``reduce=`` and ``reduction=``)


def _per_element_facts(ctx: Context) -> Tuple[frozenset, bool]:
    found = ctx.memo.get("TV003.per_element")
    if found is None:
        keys = set()
        any_call = False
        if "reduc" in ctx.text:  # (``reduce=`` and ``reduction=``)
            # (the parts whose lines do not spell it are not entered)
            for node in walk_hits(ctx.tree, lines_matching(ctx.text, _REDUC)):
                if isinstance(node, ast.Call) and _per_element(node):
                    any_call = True
                elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    if _per_element_instance(node.value):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        keys.update(k for k in map(key, targets) if k is not None)
        found = ctx.memo["TV003.per_element"] = (frozenset(keys), any_call)
    return found  # type: ignore[return-value]


class Evidence:
    """Questions about the values of one function, answered from its flow."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._flow: Optional[Flow] = None
        #: answers so far, by question and node; a question met again while it is
        #: being answered (a cycle through loop bindings) counts as no evidence
        self._memo: Dict[Tuple[str, int, bool], bool] = {}

    @property
    def flow(self) -> Flow:
        """The function's data flow, built when a question first needs it (many
        are answered from the expression alone: ``i += 1``, ``x.item()``)."""
        if self._flow is None:
            self._flow = self.ctx.flow()
        return self._flow

    def _cached(self, question: str, node: ast.AST, flag: bool,
                answer: Callable[[], bool]) -> bool:
        memo_key = (question, id(node), flag)
        if memo_key not in self._memo:
            self._memo[memo_key] = False
            self._memo[memo_key] = answer()
        return self._memo[memo_key]

    # -- not tensors at all ---------------------------------------------
    def foreign(self, node: ast.AST) -> bool:
        """A value built by numpy/pandas/math, a builtin container or a literal."""
        return plainly_not_tensor(node, self.ctx.resolve)

    def _not_tensor_def(self, d: Def) -> bool:
        value = d.value
        if d.kind not in ("assign", "augassign", "walrus") or value is None:
            return False
        if isinstance(value, ast.Call) and self.per_element_call(value):
            return True  # one loss per sample, not a scalar
        if isinstance(value, ast.Subscript) and peel(value.value)[1]:
            return True  # ``x.data[0]``: a Python number under 0.3
        return self.foreign(value)

    def _may_not_tensor(self, value: ast.AST) -> bool:
        """Whether :meth:`_not_tensor_def` can hold for a binding to ``value``,
        whatever the answer about a loss call."""
        if isinstance(value, ast.Call) and self._may_be_per_element(value):
            return True
        if isinstance(value, ast.Subscript) and peel(value.value)[1]:
            return True
        return self.foreign(value)

    def assignments(self, node: ast.AST) -> Optional[List[ast.AST]]:
        """Every value the function assigns to ``node``'s key (``=``, ``+=``,
        ``:=``), or ``None`` when too many (see :meth:`Flow.assignments_to`)."""
        return self.flow.assignments_to(key(node))

    def reaching(self, node: ast.AST) -> Optional[Tuple[Def, ...]]:
        """The bindings of ``node``'s key that reach it, as :meth:`Flow.reaching`,
        but ``()`` without any analysis when the function never assigns the key.

        The evidence below comes only from assignments (``=``, ``+=``, ``:=``),
        and treats ``None`` (not known) like ``()``.
        """
        if self.assignments(node) == []:
            return ()
        return self.flow.reaching(node)

    def not_tensor(self, node: ast.AST) -> bool:
        """``node`` (a key read) is visibly not a scalar tensor: a list, an array, a
        Python number, a per-element loss."""
        values = self.assignments(node)
        if values is not None and not any(self._may_not_tensor(value) for value in values):
            return False
        defs = self.reaching(node)
        return bool(defs) and any(self._not_tensor_def(d) for d in defs)

    # -- calls ------------------------------------------------------------
    def per_element_call(self, call: ast.Call) -> bool:
        """A call giving one loss per element: ``reduce=False`` or
        ``reduction='none'`` given to it, or its callee built so
        (``nn.CrossEntropyLoss(reduce=False)(a, b)``; ``criterion(a, b)`` where
        the function, or else the file, assigns ``criterion`` such a module)."""
        if not self._may_be_per_element(call):
            return False
        if _per_element(call) or isinstance(call.func, ast.Call):
            return True
        local = self.assignments(call.func)
        if local:  # the function's own module decides
            return any(_per_element_instance(value) for value in local)
        return True  # assigned so elsewhere in the file (module level, ``__init__``)

    def _may_be_per_element(self, call: ast.Call) -> bool:
        """:meth:`per_element_call` without the function's assignments (an upper bound)."""
        if _per_element(call):
            return True
        func = call.func
        if isinstance(func, ast.Call):
            return _per_element_instance(func)
        keys = _per_element_keys(self.ctx)
        return bool(keys) and key(func) in keys

    def loss_call(self, call: ast.Call, exact: bool = True) -> bool:
        """``criterion(...)``, ``F.nll_loss(...)``, ``loss_fn(...)``, an ``nn.*Loss`` instance.

        ``exact=False`` takes every assignment of the callee for one that
        reaches: an upper bound that needs no reaching definitions.
        """
        if self.per_element_call(call):
            return False
        func = call.func
        if isinstance(func, ast.Call):  # nn.MSELoss()(a, b)
            return self._loss_class(func)
        name = self.ctx.resolve(func) or ""
        if name.startswith("torch.nn.functional."):
            last = name.rsplit(".", 1)[-1]
            return last.endswith("_loss") or last in _F_LOSSES
        if name.startswith(("torch.", "numpy.", "math.")):
            return False
        if _loss_callee(func):
            return True
        values = self.assignments(func)
        if values is not None and not any(
            isinstance(value, ast.Call) and self._loss_class(value) for value in values
        ):
            return False
        if not exact:
            return True
        defs = self.reaching(func)
        return bool(defs) and any(
            d.kind == "assign" and isinstance(d.value, ast.Call) and self._loss_class(d.value)
            for d in defs
        )

    def _loss_class(self, call: ast.Call) -> bool:
        name = self.ctx.resolve(call.func) or ""
        return name.startswith("torch.nn.") and name.endswith("Loss") and not _per_element(call)

    def reduction(self, call: ast.Call, exact: bool = True) -> bool:
        """A reduction over every element: ``x.sum()``, ``x.norm(2)``, ``torch.mean(x)``
        (``exact=False``: without asking whether the receiver is visibly not a tensor)."""
        if any(kw.arg in _DIM_KEYWORDS or kw.arg is None for kw in call.keywords):
            return False
        if any(isinstance(a, ast.Starred) for a in call.args):
            return False
        func = call.func
        name = self.ctx.resolve(func) or ""
        if name.startswith("torch.") and name.count(".") == 1:
            extra = _REDUCTIONS.get(name[6:])
            return extra is not None and 1 <= len(call.args) <= extra + 1
        if not isinstance(func, ast.Attribute) or func.attr not in _REDUCTIONS:
            return False
        if len(call.args) > _REDUCTIONS[func.attr] or self.foreign(func.value):
            return False
        receiver = func.value
        return not (exact and key(receiver) and self.not_tensor(receiver))

    # -- TV003 (a): the value is a scalar under 0.3 ------------------------
    def _by_name(self, by_name: bool) -> bool:
        """Whether a loss-like name counts on its own: not in a file that
        computes per-sample losses (``sample_loss, loss = model(x, y)``)."""
        return by_name and not _makes_per_element(self.ctx)

    def scalar(self, node: ast.AST, by_name: bool) -> bool:
        """Evidence that ``node`` held a one-element tensor under PyTorch 0.3.

        ``by_name`` lets a loss-like name count on its own.
        """
        return self._cached("scalar", node, by_name, lambda: self._scalar(node, by_name))

    def _scalar(self, node: ast.AST, by_name: bool) -> bool:
        node = peel(node)[0]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.scalar(node.operand, by_name)
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)
        ):
            return self.scalar(node.left, by_name) or self.scalar(node.right, by_name)
        if isinstance(node, ast.Call):
            inner = self._elementwise_input(node)
            if inner is not None:
                return self.scalar(inner, by_name)
            return self.reduction(node) or (
                self.loss_call(node) and (by_name or not _named_function(node.func)))
        if isinstance(node, ast.Subscript):
            return self._by_name(by_name) and _element_of_losses(node)
        k = key(node)
        if k is None or self.not_tensor(node):
            return False
        if (self._by_name(by_name) and loss_name(node)) or k in self.flow.backward_plain:
            return True
        defs = self.reaching(node)
        relevant = [d for d in defs or () if not _initial(d)]
        return bool(relevant) and all(
            d.kind in ("assign", "augassign", "walrus")
            and d.value is not None
            and self.scalar(d.value, _by_name_through(d.value, by_name))
            for d in relevant
        )

    def may_be_scalar(self, node: ast.AST, by_name: bool) -> bool:
        """Whether :meth:`scalar` can hold, cheaply: the same search for evidence,
        through every assignment of a key rather than the ones that reach, and
        without the evidence against (``not_tensor``, "all assignments")."""
        return _search((node, by_name), self._scalar_steps)

    def _scalar_steps(self, node: ast.AST, by_name: bool) -> Tuple[bool, List[_State]]:
        node = peel(node)[0]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return False, [(node.operand, by_name)]
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)
        ):
            return False, [(node.left, by_name), (node.right, by_name)]
        if isinstance(node, ast.Call):
            inner = self._elementwise_input(node)
            if inner is not None:
                return False, [(inner, by_name)]
            found = self.reduction(node, exact=False) or (
                self.loss_call(node, exact=False)
                and (by_name or not _named_function(node.func)))
            return found, []
        if isinstance(node, ast.Subscript):
            return self._by_name(by_name) and _element_of_losses(node), []
        k = key(node)
        if k is None:
            return False, []
        if (self._by_name(by_name) and loss_name(node)) or k in self.flow.backward_plain:
            return True, []
        values = self.assignments(node)
        if values is None:
            return True, []  # too many to look through: cannot rule it out
        return False, [(value, _by_name_through(value, by_name)) for value in values]

    def _elementwise_input(self, call: ast.Call) -> Optional[ast.AST]:
        """``x`` in ``x.exp()``, ``torch.log(x)``, ``x.pow(2)``."""
        func = call.func
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        name = self.ctx.resolve(func) or ""
        if name.startswith("torch.") and name[6:] in _ELEMENTWISE and call.args:
            return call.args[0]
        if isinstance(func, ast.Attribute) and func.attr in _ELEMENTWISE and not name:
            if len(call.args) <= (func.attr == "pow"):
                return func.value
        return None

    # -- TV003 (b): the value carries autograd history --------------------
    def history(self, node: ast.AST) -> bool:
        """Evidence that ``node`` carries autograd history: a loss call's result
        (not through ``.item()``/``.detach()``/``.data``/``float()``), or a key
        that ``.backward()`` is called on."""
        return self._cached("history", node, False, lambda: self._history(node))

    def may_carry_history(self, node: ast.AST) -> bool:
        """Whether :meth:`history` can hold, cheaply (see :meth:`may_be_scalar`)."""
        return _search((node, False), self._history_steps)

    def _history_steps(self, node: ast.AST, _: bool) -> Tuple[bool, List[_State]]:
        if detaches(node):
            return False, []
        if isinstance(node, ast.UnaryOp):
            return False, [(node.operand, False)]
        if isinstance(node, ast.BinOp):
            return False, [(node.left, False), (node.right, False)]
        if isinstance(node, ast.Call):
            if self.loss_call(node, exact=False):
                return True, []
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _REDUCTIONS and not node.args:
                return False, [(func.value, False)]
            return False, []
        k = key(node)
        if k is None:
            return False, []
        values = self.assignments(node)
        if values is None or k in self.flow.backward:
            return True, []
        return False, [(value, False) for value in values]

    def _history(self, node: ast.AST) -> bool:
        if detaches(node):
            return False
        if isinstance(node, ast.UnaryOp):
            return self.history(node.operand)
        if isinstance(node, ast.BinOp):
            return self.history(node.left) or self.history(node.right)
        if isinstance(node, ast.Call):
            if self.loss_call(node):
                return True
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _REDUCTIONS:
                return not node.args and self.history(func.value)
            return False
        k = key(node)
        if k is None:
            return False
        if self.assignments(node) == []:
            # no assignment can reach: only the backward call is evidence, unless
            # the analysis does not know (``None``)
            return k in self.flow.backward and self.flow.reaching(node) is not None
        defs = self.flow.reaching(node)
        if defs is None:
            return False
        relevant = [d for d in defs if not _initial(d)]
        if relevant and all(_detached(d) for d in relevant):
            return False
        if any(
            d.value is not None and d.kind in ("assign", "walrus") and self.history(d.value)
            for d in relevant
        ):
            return True
        return k in self.flow.backward


def _element_of_losses(node: ast.Subscript) -> bool:
    """``losses[name]``: an element of a collection of losses."""
    index = node.slice
    base = key(node.value)
    return (
        base is not None
        and isinstance(index, (ast.Name, ast.Attribute, ast.Constant))
        and _loss_words(words(base.rsplit(".", 1)[-1]), plurals=True)
    )


#: a question about a node: the node, and a flag (``by_name``)
_State = Tuple[ast.AST, bool]


#: questions a search asks before it gives up (and answers "maybe")
_SEARCH_LIMIT = 64


def _search(start: _State, steps: Callable[[ast.AST, bool], Tuple[bool, List[_State]]]) -> bool:
    """Whether evidence may be reached from ``start``: ``steps(node, flag)`` tells
    whether a question is answered yes by itself, and the questions its answer
    may come from.  Each question is asked once, so cycles end; after
    :data:`_SEARCH_LIMIT` questions the answer is yes (not ruled out)."""
    seen = {(id(start[0]), start[1])}
    todo = [start]
    while todo:
        found, following = steps(*todo.pop())
        if found:
            return True
        for state in following:
            state_id = (id(state[0]), state[1])
            if state_id not in seen:
                if len(seen) == _SEARCH_LIMIT:
                    return True
                seen.add(state_id)
                todo.append(state)
    return False


def _initial(d: Def) -> bool:
    """``total = 0``, ``best = None``: the start of an accumulation, no evidence either way."""
    value = d.value
    return (
        d.kind == "assign"
        and isinstance(value, ast.Constant)
        and (value.value is None or type(value.value) in (int, float))
    )


def _detached(d: Def) -> bool:
    value = d.value
    if d.kind not in ("assign", "walrus") or value is None:
        return False
    if isinstance(value, ast.Subscript):
        value = value.value
    return detaches(value) or isinstance(value, ast.Constant)


# -- the rule --------------------------------------------------------------

@rule("TV003")
def scalar_extraction(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags ``loss.data[0]`` and loss accumulation that keeps every graph alive.

    ## What it does
    Form (a): flags ``E.data[0]``, ``E[0]``, ``E.data.cpu().numpy()[0]``,
    ``E.cpu().data.numpy()[0]``, ``E.data.tolist()[0]``, ``E.data.cpu()[0]`` and the
    like, where ``E`` held a one-element tensor under PyTorch 0.3: a loss by name
    (a word of the name, split on ``_`` and case changes, is ``loss``, ``cost``,
    ``nll``, ``kl``, or GAN code's ``errD``/``err_real``), a full reduction
    (``x.sum()``, ``x.norm(2)``, ``torch.mean(x)``), a loss call (``criterion(...)``,
    ``F.nll_loss(...)``, an ``nn.*Loss`` instance), a key assigned or accumulated
    from one of those in the same function (``total_loss += loss.data``), or a key
    ``.backward()`` is called on.  The name alone is enough only for the forms
    that go through ``.data``, ``.numpy()`` or ``.tolist()``; a bare ``E[0]`` needs
    evidence from the code, because ``losses[0]`` on a Python list is common,
    and a ``*_function(...)`` callee (scipy's ``loss_function``) is a loss call
    only through ``.data``/``.numpy()``/``.tolist()``.  A bare ``E[0]`` and form
    (b) need torch in the file (an import, ``Variable`` or ``.backward(``).

    Form (b): inside a ``for``/``while`` body, flags ``acc += E``,
    ``acc = acc + E`` and ``accs.append(E)`` (also ``E * n``, ``E / n``) where
    ``acc`` lives across iterations and ``E`` carries autograd history: it is a
    loss call's result (not through ``.item()``, ``.detach()``, ``.data``,
    ``float()``), or ``E.backward()`` is called in the same function.

    Not flagged: ``output.data[0]`` (the first sample of a batch),
    ``self.data[0]``, ``x.shape[0]``, ``x.size()[0]``, the results of callees
    whose last word names something else (``nll_loss_forward(...)[0]``,
    ``select_min_cost_strategy(...)``; ``loss_fn``, ``compute_loss`` and
    ``criterion`` are loss calls), per-element losses, read or accumulated
    (``reduce=False`` or ``reduction='none'`` given to the call, or to the
    loss module it calls: ``criterion = nn.CrossEntropyLoss(reduce=False)`` in
    the function, else anywhere in the file, ``self.criterion`` in
    ``__init__``), in a file that computes per-element losses a value whose
    only evidence is its name (``sample_loss, loss = model(x, y)``), values
    visibly built as lists or numpy arrays, a bare ``E[0]`` where an enclosing
    test says ``E`` is a tuple or list (``r[0] if type(r) in (tuple, list) else
    r``, the body of ``if isinstance(r, tuple):``), an accumulator that is itself
    backpropagated, or returned while its terms are not backpropagated one by
    one in the loop (``total += crit(...)`` then ``total.backward()`` or
    ``return total`` builds a loss on purpose), and loops under
    ``with torch.no_grad():`` or in a function decorated with it.

    ## Why is this bad?
    Since PyTorch 0.4 a loss, like any full reduction, is a 0-dim tensor:
    ``loss.data[0]`` and ``loss[0]`` raise ``IndexError: invalid index of a 0-dim
    tensor``, ``loss.data.cpu().numpy()[0]`` raises ``IndexError`` (a 0-dim
    array) and ``loss.data.tolist()[0]`` raises ``TypeError`` (it is a float).
    Accumulating the tensor itself (``total_loss += loss``, the usual "fix" for
    the ``IndexError``) keeps every iteration's autograd graph alive until the
    accumulator dies.

    ## Example
    ```python
    for data, target in loader:
        loss = criterion(model(data), target)
        loss.backward()
        print(loss.data[0])
        total_loss += loss
    ```

    Use instead:
    ```python
    for data, target in loader:
        loss = criterion(model(data), target)
        loss.backward()
        print(loss.item())
        total_loss += loss.item()
    ```

    ## Fix safety
    ``E.data[0]`` (and the other forms of (a)) -> ``E.item()`` is *safe*: it
    gives the same number ``E.data[0]`` gave under 0.3 (a Python float where the
    old numpy path gave a numpy scalar).  ``acc += E`` -> ``acc += E.item()`` is
    *unsafe*: the accumulator becomes a Python float, and ``.item()`` raises if
    ``E`` has more than one element; the same fix turns the accumulator's later
    ``acc.item()`` and ``acc.data[0]`` into ``acc`` (a float has no ``.item()``),
    and there is no automatic fix when another use needs a tensor
    (``acc.cpu()``).  A fix whose removed text holds a comment is unsafe.
    """
    if isinstance(node, ast.Subscript):
        report = _extraction(ctx, node)
    else:
        report = _accumulation(ctx, node)
    if report is not None:
        yield report


def _extraction(ctx: Context, node: ast.Subscript) -> Optional[Report]:
    if not isinstance(node.ctx, ast.Load) or not _is_zero(node.slice):
        return None
    tensor, steps = peel(node.value)
    by_name = any(step in ("data", "numpy", "tolist") for step in steps)
    if not by_name and not ctx.uses_torch:
        return None  # scipy's ``rho[0]``, sklearn's ``loss_[0]``: not tensors
    evidence = Evidence(ctx)
    if not (evidence.may_be_scalar(tensor, by_name) and evidence.scalar(tensor, by_name)):
        return None
    if not by_name and (_indexed_as_sequence(evidence.flow, tensor)
                        or _tested_as_sequence(ctx, node, tensor)):
        return None
    src = ctx.source
    text = src.text(tensor)
    if needs_parens(tensor, ast.Attribute, src):
        text = f"({text})"
    fixed = f"{text}.item()"
    if "tolist" in steps:
        why = "raises TypeError since PyTorch 0.4 (`.tolist()` gives a float)"
    elif "numpy" in steps:
        why = "raises IndexError since PyTorch 0.4 (a 0-dim array)"
    else:
        why = "raises IndexError on a 0-dim tensor since PyTorch 0.4"
    dropped = src.between(src.start(node), src.start(tensor)) + src.between(
        src.end(tensor), src.end(node))
    safety = UNSAFE if has_comment(dropped) else SAFE
    return Report(
        node,
        f"`{src.quote(node)}` {why}; use `{one_line(fixed)}`",
        Fix((src.replace(node, fixed),), safety),
    )


def _indexed_as_sequence(flow: Flow, tensor: ast.AST) -> bool:
    """``out[0]`` next to ``out[1]`` or ``out[0].backward()``: a tuple, not a tensor."""
    k = key(tensor)
    used = flow.subscripts.get(k, ()) if k else ()
    return any(index != 0 for index in used)


#: the builtin types a test may name to say that a value is a sequence
_SEQUENCE_TYPES = frozenset(("tuple", "list"))


def _tested_as_sequence(ctx: Context, node: ast.AST, tensor: ast.AST) -> bool:
    """``E[0]`` where an enclosing test says ``E`` is a tuple or list: the body of
    ``if isinstance(E, (tuple, list)):``, the ``x if type(E) in (tuple, list)``
    branch of a conditional expression, the ``else`` of ``if not isinstance(E,
    tuple):``, what follows ``isinstance(E, list) and``."""
    k = key(tensor)
    if k is None:
        return False
    child = node
    for parent in reversed(ctx.parents):
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)):
            body = parent.body if isinstance(parent.body, list) else [parent.body]
            orelse = parent.orelse if isinstance(parent.orelse, list) else [parent.orelse]
            if any(c is child for c in body):
                if _says_sequence(parent.test, k, ctx.scope) is True:
                    return True
            elif any(c is child for c in orelse):
                if _says_sequence(parent.test, k, ctx.scope) is False:
                    return True
            elif parent.test is not child:
                return False  # not the walker's chain of ancestors
        elif isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And):
            for value in parent.values:
                if value is child:
                    break
                if _says_sequence(value, k, ctx.scope) is True:
                    return True
        elif isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef, ast.Module)):
            return False
        child = parent
    return False


def _says_sequence(test: ast.AST, k: str, scope: Scope) -> Optional[bool]:
    """``True`` when ``test`` holding means ``k`` is a tuple or list, ``False``
    when it failing does, ``None`` when it tells nothing about that (the
    builtins ``isinstance`` and ``type``, not rebound in ``scope``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _says_sequence(test.operand, k, scope)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return True if any(_says_sequence(v, k, scope) is True for v in test.values) else None
    if builtin_call(test, scope, "isinstance", 2):
        if key(test.args[0]) == k and _sequence_types(test.args[1]):  # type: ignore[attr-defined]
            return True
        return None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if not _type_of(left, k, scope):
            left, right = right, left
            if not _type_of(left, k, scope):
                return None
        op = test.ops[0]
        if not _sequence_types(right):
            return None
        if isinstance(op, (ast.In, ast.Eq, ast.Is)):
            return True
        if isinstance(op, (ast.NotIn, ast.NotEq, ast.IsNot)):
            return False
    return None


def _type_of(node: ast.AST, k: str, scope: Scope) -> bool:
    """``type(k)``."""
    return builtin_call(node, scope, "type", 1) and key(node.args[0]) == k  # type: ignore


def _sequence_types(node: ast.AST) -> bool:
    """``tuple``, ``list``, or a tuple/list/set of them."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_sequence_types(e) for e in node.elts)
    return isinstance(node, ast.Name) and node.id in _SEQUENCE_TYPES


def _accumulation(ctx: Context, node: ast.AST) -> Optional[Report]:
    parts = _accumulation_parts(node)
    if parts is None:
        return None
    acc_read, added = parts
    if not ctx.uses_torch:
        return None  # TensorFlow's ``average_loss += batch_loss``
    loop = enclosing_loop(ctx.parents, node)
    if loop is None:
        return None
    acc = key(acc_read)
    if acc is None:
        return None
    evidence = Evidence(ctx)
    if not evidence.may_carry_history(added):
        return None  # decided without the reaching definitions
    leak = _leaking_part(evidence, added)
    flow = evidence.flow
    if leak is None or not flow.carried(acc_read, loop):
        return None
    if key(leak) is not None and evidence.not_tensor(leak):
        return None  # one loss per sample: ``.item()`` would raise
    if acc in flow.sinks and not _backpropagated_in(loop, leak, acc, flow):
        return None  # a loss built on purpose
    if grad_disabled(ctx.parents, ctx.resolve):
        return None
    src = ctx.source
    text = src.text(leak)
    if needs_parens(leak, ast.Attribute, src):
        text = f"({text})"
    fixed = f"{text}.item()"
    whole = src.between(src.start(node), src.start(leak)) + fixed + src.between(
        src.end(leak), src.end(node))
    message = (f"`{src.quote(node)}` keeps every iteration's autograd graph alive (losses "
               f"are tensors since PyTorch 0.4); use `{one_line(whole)}`")
    fix: Optional[Fix] = None
    if isinstance(node, (ast.AugAssign, ast.Assign)):
        later = _tensor_uses(ctx, flow.node, acc, node)
        if later is not None:
            fix = Fix((src.replace(leak, fixed), *later), UNSAFE)
        else:
            message += f" (no automatic fix: `{acc}` is used as a tensor)"
    else:
        fix = Fix((src.replace(leak, fixed),), UNSAFE)
    return Report(node, message, fix)


def _backpropagated_in(loop: ast.AST, leak: ast.AST, acc: str, flow: Flow) -> bool:
    """Whether each term is backpropagated in the loop (``loss.backward()`` there)
    while the accumulator is not: then a returned accumulator only reports."""
    k = key(leak)
    if k is None or acc in flow.backward:
        return False
    for sub in ast.walk(loop):
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                and sub.func.attr == "backward" and key(sub.func.value) == k):
            return True
    return False


#: what turns a one-element tensor into a number (also on a number, after the fix)
_TO_NUMBER = ("item",)


def _tensor_uses(ctx: Context, scope: ast.AST, acc: str, node: ast.AST):
    """The edits that keep the accumulator's later uses working once it holds a
    float: ``acc.item()`` and ``acc.data[0]`` become ``acc``.  ``None`` when
    another use needs a tensor (``acc.cpu()``, ``acc.data``, ``acc[1]``).
    (The uses of every name are indexed in one walk of the scope.)"""
    cache = ctx.memo.setdefault("TV003.uses", {})
    entry = cache.get(id(scope))
    if entry is None or entry[0] is not scope:
        entry = cache[id(scope)] = (scope, _index_uses(scope))
    numbers, others = entry[1]
    src = ctx.source
    rewritten = [(src.start(n), src.end(n)) for n in numbers.get(acc, ())
                 if not _within(src, n, node)]
    for use in others.get(acc, ()):
        if _within(src, use, node):
            continue
        start, end = src.start(use), src.end(use)
        if not any(a <= start and end <= b for a, b in rewritten):
            return None
    return tuple(Edit(a, b, acc) for a, b in rewritten)


def _within(src, inner: ast.AST, outer: ast.AST) -> bool:
    return src.start(outer) <= src.start(inner) and src.end(inner) <= src.end(outer)


def _index_uses(scope: ast.AST):
    """``(numbers, others)``: by key, the expressions that turn it into a number
    (``k.item()``, ``k.data[0]``, ``k.data.cpu().numpy()[0]``), and every
    attribute or subscript taken of it."""
    numbers: Dict[str, List[ast.AST]] = {}
    others: Dict[str, List[ast.AST]] = {}
    for sub in ast.walk(scope):
        if isinstance(sub, ast.Subscript):
            if isinstance(sub.ctx, ast.Load) and _is_zero(sub.slice):
                base, steps = peel(sub.value)
                k = key(base)
                if k is not None and all(s in ("data", "cpu", "numpy", "tolist") for s in steps):
                    numbers.setdefault(k, []).append(sub)
        elif isinstance(sub, ast.Call):
            func = sub.func
            if (isinstance(func, ast.Attribute) and func.attr in _TO_NUMBER
                    and not sub.args and not sub.keywords):
                k = key(func.value)
                if k is not None:
                    numbers.setdefault(k, []).append(sub)
        if isinstance(sub, (ast.Attribute, ast.Subscript)):
            k = key(sub.value)
            if k is not None:
                others.setdefault(k, []).append(sub)
    return numbers, others


def _accumulation_parts(node: ast.AST) -> Optional[Tuple[ast.AST, ast.AST]]:
    """``(accumulator read, added value)`` for ``acc += E``, ``acc = acc + E``,
    ``accs.append(E)``."""
    if isinstance(node, ast.AugAssign):
        if isinstance(node.op, ast.Add) and isinstance(node.target, (ast.Name, ast.Attribute)):
            return node.target, node.value
        return None
    if isinstance(node, ast.Assign):
        value = node.value
        if len(node.targets) != 1 or not isinstance(value, ast.BinOp):
            return None
        if not isinstance(value.op, ast.Add):
            return None
        target = key(node.targets[0])
        if target is None:
            return None
        if key(value.left) == target:
            return value.left, value.right
        if key(value.right) == target:
            return value.right, value.left
        return None
    if isinstance(node, ast.Call):
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "append"
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], ast.Starred)
            and key(func.value) is not None
        ):
            return func.value, node.args[0]
    return None


def _leaking_part(evidence: Evidence, added: ast.AST) -> Optional[ast.AST]:
    """The part of ``added`` that carries history: ``loss`` in ``loss * n``."""
    if isinstance(added, ast.BinOp) and isinstance(added.op, (ast.Mult, ast.Div)):
        left, right = evidence.history(added.left), evidence.history(added.right)
        if left and not right:
            return _leaking_part(evidence, added.left)
        if right and not left:
            return _leaking_part(evidence, added.right)
        return added if left else None
    return added if evidence.history(added) else None
