"""Evidence that a value is a scalar: a loss by its name or by the call that made it,
a reduction, a value that reaches ``backward()`` (TV003's evidence, which TV103 and
the accumulation checks read too), followed through assignments in one function."""
from __future__ import annotations

import ast
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .context import Context
from .flow import Flow
from .lines import lines_matching
from .nodes import walk_hits, words
from .reaching import Def
from .reads import detaches, plainly_not_tensor
from .resolve import key

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


def is_zero(node: ast.AST) -> bool:
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


def _own_size_average(ctx: Context, call: ast.Call) -> bool:
    """``size_average=False`` given to a call that is not torch's (a torch loss
    sums then: one number)."""
    return any(kw.arg == "size_average" and isinstance(kw.value, ast.Constant)
               and kw.value.value is False for kw in call.keywords) and not (
        ctx.resolve(call.func) or "").startswith("torch.")


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

    def plain_number(self, node: ast.AST) -> bool:
        """``node`` (a key read) is a Python number: every binding that reaches it
        is a number literal (``loss = 0``) or a loop over ``range(...)``."""
        defs = self.flow.reaching(node)
        return bool(defs) and all(self._number_def(d) for d in defs)

    def _number_def(self, d: Def) -> bool:
        value = d.value
        if d.kind == "assign":
            return (isinstance(value, ast.Constant) and not isinstance(value.value, bool)
                    and isinstance(value.value, (int, float)))
        return (d.kind == "for" and isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name) and value.func.id == "range")

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
            return not exact or self._named_loss(call)
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

    def _named_loss(self, call: ast.Call) -> bool:
        """A call of a callee named for a loss: its name decides, unless the
        function or method it runs is in view (the file's, the project's), where
        the value facts must find a 0-dim value (a model's own ``loss(x, y,
        size_average=False)`` may give one loss per sample), or it is given
        ``size_average=False`` (then it may keep one loss per sample too)."""
        from .values import values

        facts = values(self.ctx)
        if facts.callee(call) is None:
            # (not torch's: ``size_average=False`` may keep one loss per sample, as
            # the project's own ``model.loss`` of a model passed in may do)
            return not _own_size_average(self.ctx, call)
        value = facts.of(call)
        return value.tensor and value.rank == 0

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
            return (self.scalar(node.left, by_name) or self.scalar(node.right, by_name)) \
                and not self._has_dimensions(node)
        if isinstance(node, ast.Call):
            inner = self._elementwise_input(node)
            if inner is not None:
                return self.scalar(inner, by_name)
            return self.reduction(node) or (
                self.loss_call(node) and (by_name or not _named_function(node.func)))
        if isinstance(node, ast.Subscript):
            return self._by_name(by_name) and (_element_of_losses(node) or _loss_key(node))
        k = key(node)
        if k is None or self.not_tensor(node):
            return False
        if (self._by_name(by_name) and loss_name(node) and not self.own_size_average(node)) \
                or k in self.flow.backward_plain or k in self.flow.backward_terms:
            return True
        defs = self.reaching(node)
        relevant = [d for d in defs or () if not _initial(d)]
        return bool(relevant) and all(
            d.kind in ("assign", "augassign", "walrus")
            and d.value is not None
            and self.scalar(d.value, _by_name_through(d.value, by_name))
            for d in relevant
        )

    def own_size_average(self, node: ast.AST) -> bool:
        """``node`` is bound (or unpacked) from a call that is not torch's given
        ``size_average=False``: the project's own ``model.loss(out, y,
        size_average=False)`` may keep one loss per sample, so its name is no
        evidence."""
        spelled = self.ctx.memo.get("TV003.size_average")
        if spelled is None:
            spelled = self.ctx.memo["TV003.size_average"] = "size_average" in self.ctx.text
        if not spelled:
            return False
        return any(d.kind in ("assign", "unpack") and isinstance(d.value, ast.Call)
                   and _own_size_average(self.ctx, d.value)
                   for d in self.flow.reaching(node) or ())

    def _has_dimensions(self, node: ast.BinOp) -> bool:
        """An operand the value facts make a tensor of one dimension or more, or a
        tensor of unknown rank with no evidence of its own that it held one element:
        the result broadcasts to at least as many (``shs / max_kl`` with ``shs`` of
        ``.sum(0, keepdim=True)`` is 1-D, whatever the name ``max_kl`` says)."""
        from .values import values

        facts = values(self.ctx)
        for operand in (node.left, node.right):
            value = facts.of(operand)
            if value.tensor and value.rank is not None and value.rank >= 1:
                return True
            if value.tensor and value.rank is None and not self.scalar(operand, False):
                return True  # (``nll / lens.float()``: a tensor of any rank, lengths)
        return False

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
            return self._by_name(by_name) and (_element_of_losses(node) or _loss_key(node)), []
        k = key(node)
        if k is None:
            return False, []
        if (self._by_name(by_name) and loss_name(node)) or k in self.flow.backward_plain \
                or k in self.flow.backward_terms:
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
        return k in self.flow.backward and not self._rebound_to_non_tensors(relevant)

    def _rebound_to_non_tensors(self, defs: Sequence[Def]) -> bool:
        """Every definition is an assignment of what the value facts make a
        Python number or another object that is no tensor (``loss = scalar(loss) / n``
        after ``loss.backward()``, ``scalar`` returning ``x.data.tolist()[0]``;
        ``loss = run_epoch(...)`` returning ``math.exp(...)``): the name's
        ``.backward()`` was called on another value."""
        if not defs or any(d.kind not in ("assign", "walrus") or d.value is None for d in defs):
            return False
        from .values import TENSOR, values

        facts = values(self.ctx)
        return all(facts.of(d.value).kind not in (None, TENSOR) for d in defs)


def _element_of_losses(node: ast.Subscript) -> bool:
    """``losses[name]``: an element of a collection of losses."""
    index = node.slice
    base = key(node.value)
    return (
        base is not None
        and isinstance(index, (ast.Name, ast.Attribute, ast.Constant))
        and _loss_words(words(base.rsplit(".", 1)[-1]), plurals=True)
    )


def _loss_key(node: ast.Subscript) -> bool:
    """``state['loss']``, ``logs["train_loss"]``: a string key that names a loss
    value, as an attribute would (``state.loss``)."""
    index = node.slice
    if not (isinstance(index, ast.Constant) and isinstance(index.value, str)):
        return False
    ws = words(index.value)
    return bool(ws) and ws[-1] not in _NOT_A_VALUE and _loss_words(ws)


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
