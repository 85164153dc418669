"""What an expression is, where the code makes it evident: the value facts rules ask.

:func:`value_of` answers, for an expression at its place in a file, a :class:`Value`:
its kind (a tensor, a Python number, a numpy array, a list, a tuple, a dict, a
string, or :data:`UNKNOWN`), and for tensors and arrays their rank (``0`` for a
0-dim value) and dtype family (``"int"``, ``"float"``, ``"bool"``, ``"uint8"``).

Values are followed through what one file makes evident:

- assignments, augmented assignments and tuple unpacking in the enclosing function
  (reaching definitions: every definition that reaches a read must agree);
- loop targets: ``for t in x`` (an element of ``x``), ``zip``, ``enumerate``;
- the torch operations that fix a rank or a dtype: constructors with sizes or data,
  reductions with and without ``dim``, ``max(d)``/``min(d)`` pairs, indexing,
  ``view``/``reshape``/``unsqueeze``/``squeeze(d)``/``t()``, ``multinomial``, casts
  (``.long()``, ``.byte()``, ...), comparisons, ``.data``, ``.item()``, ``.numpy()``,
  ``split``/``chunk`` (pieces of the tensor's rank, as a list: how many, only the sizes tell);
- the returns of functions defined in the file, ``self.x`` bound in the methods of
  the enclosing class, dict literals' entries, objects (:mod:`.objects`);
- a parameter, where every caller is in view (:mod:`.callers`, :mod:`.importing`).

What is not followed stays unknown, on purpose: a parameter some caller of which is
not in view, a name bound more than once with different facts, a call of anything
unresolved.  Rules ask, and say nothing (or offer no safe fix) where it is unknown.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence

from .accumulated import accumulated, loop_carried, self_update
from .appended import appended, builtin_of, comprehended
from .callers import passed_arguments
from .choices import chosen, defaulted, unwrapped
from .environments import MAKERS as ENVIRONMENT_MAKERS, environment
from .loaders import LOADER, MADE as LOADED, made as loaded
from .methods import method_value, sizes_rank
from .free import enclosing_bindings, free_name
from .hierarchy import on_modules
from .foreign import (
    FOREIGN_CLASS, assigned_value, class_value, module_context, project_function
)
from .nodes import body_nodes
from .objects import (
    DISTRIBUTIONS, NAMED, NAMED_CLASS, OBJECT, OBJECTS, crossed, dict_entry, distribution,
    instance_attribute, keyed_parts, named_field, named_instance, namedtuple_class,
    plain_instance, self_attribute, self_attributes, self_method, type_alias
)
from .reaching import target_path, unpack_path
from .remembered import forget_pending, remembered
from .saved import JUDGED, reloaded
from .sequential import sequential
from .resolve import key
from .wrappers import wrapped_argument
from .value_tables import (
    ARRAY_MODULES, BUILTINS, DICTS, DTYPES, ELEMENTWISE_FUNCTIONS, LIKE, LOSS_FUNCTIONS,
    MODULE_ITSELF, SIZED, TORCH_METHODS, MATH_INTS, MATH_TESTS, TYPED, dimensions, last_size,
    literal_last, literal_size, data_rank, list_rank, made_in_03, numpy_draw, numpy_dtype,
    numpy_shape, reduced_loss
)
from .value_tables import (  # noqa: F401  (the kinds: the rules take them from here)
    DICT, LIST, MODULE, NDARRAY, NUMBER, STRING, TENSOR, TUPLE, as_plain as _plain,
    binop_dtype as _binop_dtype, broadcast as _broadcast, multinomial_call, ranked as _ranked
)

from .value import (  # noqa: F401  (the record: the rules take it from here)
    BOTTOM, FILE_CLASS, SPELLED, UNKNOWN, Value, _FLOAT, _INT, _NUMBER, _tensor, combined,
    concatenated, join,
    unpacked as _unpacked
)


# ---------------------------------------------------------------------------
# the answers


class Values:
    """Value facts of one file, asked through a rule's :class:`Context`.

    Answers are remembered per node for the file (one instance per file: see
    :func:`values`)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._memo: Dict[int, Value] = {}
        self._returns: Dict[int, Value] = {}
        #: answers cut short, kept for the question under way (:mod:`.remembered`)
        self._pending: Dict[int, Value] = {}
        self._pending_returns: Dict[int, Value] = {}
        self._classes: Dict[int, dict] = {}

    # -- entry ---------------------------------------------------------------

    def of(self, node: ast.AST, scope: Optional[ast.AST] = None, depth: int = 0) -> Value:
        """The value of ``node``, read in ``scope`` (the innermost function around
        the node being visited by default)."""
        found = remembered(self._memo, self._pending, id(node), depth,
                           lambda: self._of(node, scope, depth + 1), UNKNOWN)
        if depth == 0:
            forget_pending()  # (this file's, and those of the modules it went through)
        return found

    def _flow(self, scope: Optional[ast.AST]):
        if scope is None:
            return self.ctx.flow()
        return self.ctx.flow_of(scope)

    def _of(self, node: ast.AST, scope, depth: int) -> Value:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or value is None:
                return UNKNOWN
            return _INT if isinstance(value, int) else _FLOAT if isinstance(value, float) \
                else Value(STRING) if isinstance(value, str) else UNKNOWN
        if isinstance(node, ast.JoinedStr):
            return Value(STRING)
        if isinstance(node, ast.List):
            return Value(LIST, parts=(self._elements(node.elts, scope, depth),))
        if isinstance(node, ast.Tuple):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return Value(TUPLE)
            return Value(TUPLE, parts=tuple(self.of(e, scope, depth) for e in node.elts))
        if isinstance(node, (ast.Dict, ast.DictComp)):
            return Value(DICT, parts=keyed_parts(self, node, scope, depth))
        if isinstance(node, ast.ListComp):
            return Value(LIST, parts=(comprehended(self, node, scope, depth),))
        if isinstance(node, ast.UnaryOp):
            inner = self.of(node.operand, scope, depth)
            if isinstance(node.op, ast.Not):
                return UNKNOWN
            return inner if inner.kind in (TENSOR, NUMBER, NDARRAY) else UNKNOWN
        if isinstance(node, ast.BinOp):
            return self._binop(node, scope, depth)
        if isinstance(node, (ast.IfExp, ast.BoolOp)):
            return join([self.of(e, scope, depth) for e in chosen(self._flow(scope), node)])
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            left = self.of(node.left, scope, depth)
            right = self.of(node.comparators[0], scope, depth)
            if isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                return UNKNOWN
            if left.tensor or right.tensor:
                return _tensor(_broadcast(left, right), "bool",
                               plain=left.plain or right.plain)
            return UNKNOWN
        if isinstance(node, ast.Subscript):
            return self._subscript(node, scope, depth)
        if isinstance(node, ast.Call):
            return self._call(node, scope, depth)
        if isinstance(node, ast.Attribute):
            if node.attr == "data":
                inner = self.of(node.value, scope, depth)
                if inner.tensor:  # (a Variable's 0-dim value had one element on 0.3:
                    return inner._replace(plain=inner.plain or inner.rank != 0)  # no number)
                if inner.kind is None:  # (``out.data``: 0.3's tensor, by the spelling only)
                    return Value(TENSOR, plain=True, name=SPELLED)
            if node.attr == "shape":
                inner = self.of(node.value, scope, depth)
                if inner.kind in (TENSOR, NDARRAY):
                    return Value(TUPLE)
            if key(node) is not None:
                return self._named(node, scope, depth)
            if isinstance(node.value, ast.Call):  # (``memory.sample(n).done``)
                inner = self.of(node.value, scope, depth)
                if inner.kind == TUPLE and (inner.name or "").startswith(NAMED):
                    return named_field(inner, node.attr)
            return UNKNOWN
        if isinstance(node, ast.Name):
            return self._named(node, scope, depth)
        return UNKNOWN

    def _elements(self, elts: Sequence[ast.AST], scope, depth: int) -> Value:
        if not elts or any(isinstance(e, ast.Starred) for e in elts):
            return UNKNOWN
        return join([self.of(e, scope, depth) for e in elts])

    # -- names ---------------------------------------------------------------

    def _named(self, node: ast.AST, scope, depth: int) -> Value:
        flow = self._flow(scope)
        defs = flow.reaching(node)
        if not defs:
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self":
                return self_attribute(self, node, flow.node, depth)
            if defs is not None and isinstance(node, ast.Name):
                return free_name(self, node, flow, depth)
            if defs is not None and isinstance(node, ast.Attribute) \
                    and isinstance(node.value, ast.Name):  # (``options.opt``)
                head = flow.reaching(node.value)
                found = assigned_value(self.ctx, f"{node.value.id}.{node.attr}", depth) \
                    if head is not None and all(d.kind == "import" for d in head) else UNKNOWN
                if found.kind is not None:
                    return found
            if defs is not None and isinstance(node, ast.Attribute):  # (``model.trans``)
                return instance_attribute(self, node, scope, depth)
            return UNKNOWN
        if len(defs) == 2:  # (``if x is None: x = make()``: what it makes, or what else x is)
            at = defaulted(self.ctx, defs)
            if at is not None:
                return join([self.binding(defs[at], scope, depth),
                             *self._not_none(defs[1 - at], scope, depth)])
        found = [self.binding(d, scope, depth) for d in defs]
        if len(defs) == 2 and all(v.kind is None or v.kind == TENSOR for v in found):
            at = unwrapped(self.ctx, defs, [v.tensor for v in found])
            if at is not None:
                return found[at]
        return join([b for b in found if b is not BOTTOM] if JUDGED else found)

    def _not_none(self, d, scope, depth: int) -> List[Value]:
        """The values the binding ``d`` gives that may not be ``None``: none for ``x =
        None``; for a parameter, what the calls that pass something else pass."""
        if d.kind == "assign" and isinstance(d.value, ast.Constant) and d.value.value is None:
            return []
        if d.kind != "param":
            return [self.binding(d, scope, depth)]
        passed = self._passed(d, scope, depth)
        if passed is None:
            return [UNKNOWN]
        return [value for expr, value in passed
                if not (isinstance(expr, ast.Constant) and expr.value is None)]

    def _passed(self, d, scope, depth: int) -> Optional[List[tuple]]:
        """``(expression, value)`` of what every call passes for the parameter ``d``
        (read in its module), or ``None`` where not every caller is in view."""
        sites = passed_arguments(self.ctx, d.node, self._flow(scope).node)
        if sites is None:
            return None
        return [(expr, self.of(expr, at, depth + 1) if c is self.ctx else crossed(
            values(c).of(expr, at, depth + 1), c)) for c, expr, at in sites]

    def binding(self, d, scope, depth: int) -> Value:
        """The value the binding ``d`` (a :class:`~.reaching.Def`) of ``scope`` gives."""
        kind = d.kind
        if kind == "assign" and isinstance(d.value, ast.List) and not d.value.elts or \
                kind == "augassign" and isinstance(d.value, ast.List) and all(
                    isinstance(o.value, ast.List) and not o.value.elts
                    for o in self._flow(scope).defs(d.key) if o.kind == "assign"):
            # (``res = []``, then appended)
            added = appended(self._flow(scope).node, d.key, self.ctx.resolve)
            return Value(LIST, parts=(self._elements(added or (), scope, depth),))
        if kind == "assign" and d.value is not None:
            if isinstance(d.value, ast.BinOp) and self_update(d) is not None and \
                    loop_carried(self._flow(scope), d):
                return accumulated(self, d, scope, depth)  # (``s = s + x`` in a loop)
            return self.of(d.value, scope, depth)
        if kind == "unpack" and d.value is not None:
            path = unpack_path(d)
            if path is None or dimensions(d.value):  # (``B, C, H, W = x.shape``)
                return UNKNOWN if path is None or len(path) > 1 else _INT
            return _unpacked(self.of(d.value, scope, depth), path)
        if kind == "augassign" and d.value is not None:
            return accumulated(self, d, scope, depth)  # (``step += 1``)
        if kind == "import" and isinstance(d.node, ast.ImportFrom):
            return assigned_value(self.ctx, d.key, depth)
        if kind == "param":
            passed = self._passed(d, scope, depth)
            return join([value for _, value in passed]) if passed else UNKNOWN
        if kind == "for" and d.value is not None or kind == "comp":
            return self._loop_element(d, scope, depth)
        return UNKNOWN

    def _loop_element(self, d, scope, depth: int) -> Value:
        """A variable of a ``for`` loop or of a comprehension: an element of what it
        iterates (also through ``zip`` and ``enumerate``)."""
        iterable = self.iterated(d)
        if iterable is None:  # (``for words, tags in pairs``: an element's items)
            loop = d.node
            path = target_path(getattr(loop, "target", None), d.key)
            iterable = d.value if d.kind == "for" else getattr(loop, "iter", None)
            return UNKNOWN if path is None or iterable is None else \
                _unpacked(self._iterated(iterable, scope, depth), path)
        if iterable is _COUNTED:
            return _INT
        return self._iterated(iterable, scope, depth)

    def iterated(self, d) -> Optional[ast.AST]:
        """What the loop or comprehension variable bound by ``d`` is an element of
        (through ``zip`` and ``enumerate``; ``_COUNTED`` for ``enumerate``'s count),
        or ``None``."""
        loop = d.node
        target = getattr(loop, "target", None)
        iterable = d.value if d.kind == "for" else getattr(loop, "iter", None)
        if target is None or iterable is None:
            return None
        if isinstance(target, ast.Name) and target.id == d.key:
            return iterable
        if isinstance(target, ast.Tuple) and isinstance(iterable, ast.Call):
            name = self._callee(iterable.func)
            position = next((i for i, e in enumerate(target.elts)
                             if isinstance(e, ast.Name) and e.id == d.key), None)
            if name == "zip" and len(iterable.args) == len(target.elts) and position is not None:
                return iterable.args[position]
            if name == "enumerate" and len(target.elts) == 2 and iterable.args and \
                    position is not None:
                return _COUNTED if position == 0 else iterable.args[0]
        return None

    def _iterated(self, iterable: ast.AST, scope, depth: int) -> Value:
        if isinstance(iterable, ast.Call) and iterable.args and self._callee(iterable.func) \
                == "enumerate":  # (``for i, (x, y) in enumerate(loader)``)
            return Value(TUPLE, parts=(_INT, self._iterated(iterable.args[0], scope, depth)))
        whole = self.of(iterable, scope, depth)
        if whole.kind in (TENSOR, NDARRAY, LIST):
            return whole.element()
        if whole.name == LOADER and whole.parts:  # (its batches: :mod:`.loaders`)
            return whole.parts[0]
        if isinstance(iterable, ast.Call) and self._callee(iterable.func) == "range":
            return _INT
        return UNKNOWN

    # -- operators -----------------------------------------------------------

    def _binop(self, node: ast.BinOp, scope, depth: int) -> Value:
        if isinstance(node.op, ast.Mod) and isinstance(node.left, (ast.Constant, ast.JoinedStr)) \
                and isinstance(getattr(node.left, "value", ""), str):
            return Value(STRING)  # (``'%d' % x`` formats whatever ``x`` is)
        return combined(node.op, self.of(node.left, scope, depth),
                        self.of(node.right, scope, depth))

    def _subscript(self, node: ast.Subscript, scope, depth: int) -> Value:
        index = node.slice
        if isinstance(index, ast.Index):  # (Python 3.8)
            index = index.value  # pragma: no cover
        if dimensions(node.value) and not isinstance(index, ast.Slice) and not (
                isinstance(node.value, ast.Attribute) and node.value.attr == "size"):
            return _INT  # (``x.size()[0]``, ``x.shape[1]``: a size, whatever ``x`` is)
        whole = self.of(node.value, scope, depth)
        if whole.kind == DICT:
            entry = dict_entry(self.ctx, whole, index)
            return entry if entry is not None else UNKNOWN
        if whole.kind == TUPLE and whole.parts is not None:
            if isinstance(index, ast.Constant) and type(index.value) is int \
                    and -len(whole.parts) <= index.value < len(whole.parts):
                return whole.parts[index.value]
            return UNKNOWN
        if whole.kind == LIST:
            return whole.element() if not isinstance(index, ast.Slice) else whole
        if whole.kind not in (TENSOR, NDARRAY):
            return UNKNOWN
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        rank = whole.rank
        if rank is None and len(items) == 2 and multinomial_call(self.ctx, node.value):
            rank = 2  # (samples are 1-D or 2-D: two indices read a 2-D one)
        for item in items:  # (``x[..., 0]``: each int drops a dimension, wherever it is)
            if isinstance(item, ast.Slice) or isinstance(item, ast.Constant) and item.value is ...:
                continue
            if isinstance(item, ast.Constant) and item.value is None:  # (a new axis)
                rank = rank + 1 if rank is not None else None
                continue
            at = self.of(item, scope, depth)
            if at.kind != NUMBER and not (at.tensor and at.rank == 0 and at.dtype == "int"):
                if whole.rank == 1 and len(items) == 1 and at.tensor and (
                        at.rank == 1 or at.dtype in ("bool", "uint8")):  # (``t[mask]``: 1-D)
                    return Value(whole.kind, 1, whole.dtype, plain=whole.plain)
                if len(items) == 1 and at.kind == LIST and at.parts == (_INT,) and whole.rank:
                    return Value(whole.kind, whole.rank, whole.dtype, last=whole.last if
                                 whole.rank > 1 else None, plain=whole.plain)  # (``a[[2, 0]]``)
                if len(items) == 1 and at.tensor and at.rank is not None and whole.rank and (
                        at.dtype in ("bool", "uint8", "int")) and whole.rank >= at.rank:
                    # (a mask takes its dimensions to one; indices put theirs for the first)
                    taken = at.rank if at.dtype != "int" else 1
                    return Value(whole.kind, whole.rank - taken + (at.rank if at.dtype == "int"
                                                                   else 1), whole.dtype,
                                 last=whole.last if whole.rank > taken else None,
                                 plain=whole.plain)
                return Value(whole.kind, None, whole.dtype, plain=whole.plain)  # any rank
            rank = rank - 1 if rank is not None else None
        if rank is not None and rank < 0:
            return UNKNOWN
        untouched = whole.rank is not None and len(items) < whole.rank and not any(
            isinstance(i, ast.Constant) and (i.value is None or i.value is ...) for i in items)
        # (``E[0]`` of a ``(1, 8, 1)`` ``E``: its last size, 1)
        return Value(whole.kind, rank, whole.dtype, last=whole.last if untouched else None,
                     plain=whole.plain)

    # -- calls ---------------------------------------------------------------

    def _callee(self, func: ast.AST) -> Optional[str]:
        """The qualified name a call resolves to, or the builtin it names."""
        name = self.ctx.resolve(func)
        if name is None and isinstance(func, ast.Name) and func.id in BUILTINS \
                and not self.ctx.scope.binds(func.id):
            return func.id
        return name

    def _call(self, node: ast.Call, scope, depth: int) -> Value:
        from .decided import call_returns

        func = node.func
        name = self._callee(func) or type_alias(self, func, scope)  # (``Tensor(n)``)
        if name is not None:
            return self._function(name, node, scope, depth)
        if isinstance(func, ast.Attribute):
            receiver = self.of(func.value, scope, depth)
            if receiver.kind is None and key(func) is not None:
                module = self.of(func, scope, depth)  # (``self.fc(x)``)
                if module.kind == MODULE:
                    return self._module_output(module, node, scope, depth)
            if isinstance(func.value, ast.Name) and func.value.id == "self":
                method = self_method(self, func.attr, self._flow(scope).node)
                if method is not None:  # (``self._features(x)`` of a module class)
                    return call_returns(self, self, method, node, scope, depth, True)
            if receiver.kind == MODULE:
                if func.attr in MODULE_ITSELF:
                    return receiver  # (``D = D.cuda()``: the module itself)
                found = self._method_def(receiver, func.attr)  # (``net.loss(x, y)``)
                return call_returns(self, found[0], found[1], node, scope, depth, True) \
                    if found else UNKNOWN
            return (receiver.kind is None and class_value(self.ctx, func)) or \
                self._method(func.attr, receiver, node, scope, depth)  # (``models.Net()``)
        if isinstance(func, ast.Name):
            module = self.of(func, scope, depth)
            if module.kind == MODULE:
                return self._module_output(module, node, scope, depth)
            if module.kind == OBJECT and (module.name or "").startswith(NAMED_CLASS):
                return named_instance(self, module, node, scope, depth)  # (``Batch(s, r)``)
            reaching = self._flow(scope).reaching(func) or ()
            if not any(d.kind != "def" for d in reaching):
                if func.id in self.module_classes():
                    return Value(MODULE, name=FILE_CLASS + func.id)  # (``D = Net()``)
                if (made := plain_instance(self.ctx, func.id)) is not None:
                    return made  # (``vocab = Dictionary()``)
            made = class_value(self.ctx, func.id) if func.id not in self.ctx.defined_once() \
                and all(d.kind == "import" for d in reaching) else None
            return made or self._returned(func, scope, depth, node)  # (``D = models.D()``)
        if isinstance(func, (ast.Call, ast.Subscript)):
            module = self.of(func, scope, depth)  # (``nn.BCELoss()(out, y)``, ``critics[i](s)``)
            if module.kind == MODULE:
                return self._module_output(module, node, scope, depth)
        return UNKNOWN

    def _module(self, name: str, node: ast.Call, scope, depth: int) -> Value:
        """The value of ``nn.<Name>(...)``: a module, with the output features of a
        ``Linear`` and the layers of a ``Sequential`` where they are evident."""
        if any(isinstance(a, ast.Starred) for a in node.args) or \
                any(kw.arg is None for kw in node.keywords):
            return Value(MODULE, name=name)
        if name.endswith("Loss"):  # (its output is 0-dim unless per element: rank 0)
            return Value(MODULE, 0 if reduced_loss(node, 1) else None, name=name)
        if name == "torch.nn.Linear":
            out = node.args[1] if len(node.args) > 1 else next(
                (kw.value for kw in node.keywords if kw.arg == "out_features"), None)
            return Value(MODULE, name=name, last=literal_size(out))
        if name == "torch.nn.Sequential":  # (its layers, given or added: :mod:`.sequential`)
            return sequential(self, node, scope, depth)
        return Value(MODULE, name=name)

    def attributes(self, cls: ast.ClassDef) -> dict:
        """``self.NAME = value`` of ``cls``'s methods (:func:`~.objects.self_attributes`)."""
        found = self._classes.get(id(cls))
        if found is None:
            found = self._classes[id(cls)] = self_attributes(cls)
        return found

    def module_classes(self) -> Dict[str, ast.ClassDef]:
        """The classes defined once at the top of the file on ``torch.nn.Module``, or on
        the project's own classes on it alone (``class VAE(Model)``: :mod:`.hierarchy`)."""
        found = self.ctx.memo.get("values module classes")
        if found is None:
            found = self.ctx.memo["values module classes"] = {
                name: d for name, d in self.ctx.defined_once().items()
                if isinstance(d, ast.ClassDef) and d.bases and (
                    any(self.ctx.resolve(b) == "torch.nn.Module" for b in d.bases)
                    or on_modules(self.ctx, d))}
        return found  # type: ignore[return-value]

    def _module_output(self, module: Value, node: ast.Call, scope, depth: int) -> Value:
        from .applied import module_output  # (what calling a module gives: see there)

        return module_output(self, module, node, scope, depth)

    def forward(self, name: str, depth: int) -> Value:
        """What the ``forward`` of a module class of the file returns (its
        argument is not followed: a parameter is unknown; see :mod:`.applied`)."""
        forward = self._forward_def(name)
        return self._returns_of(forward, depth) if forward is not None else UNKNOWN

    def _forward_def(self, name: str, method: str = "forward") -> Optional[ast.FunctionDef]:
        cls = self.module_classes().get(name)
        return next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == method
                     and not f.decorator_list), None) if cls is not None else None

    def _method_def(self, module: Value, method: str) -> Optional[tuple]:
        """The method ``method`` a module class of the file, or of another module of
        the project, defines itself, and the :class:`Values` of its module."""
        name, owner = module.name or "", self
        if name.startswith(FOREIGN_CLASS):  # (``path\0Class``: read where it is defined)
            path, _, name = name[len(FOREIGN_CLASS):].partition("\0")
            other = module_context(path)
            owner, name = (values(other), FILE_CLASS + name) if other is not None else (None, "")
        found = owner._forward_def(name[len(FILE_CLASS):], method) \
            if owner is not None and name.startswith(FILE_CLASS) else None
        return (owner, found) if found is not None else None

    def callee(self, call: ast.Call, scope=None) -> Optional[ast.AST]:
        """The definition ``call`` (read in ``scope``) evidently runs where the value
        facts can read it (a function of the file or the project, a method of a
        module class of the file), or ``None``."""
        func = call.func
        if isinstance(func, ast.Name):
            found = self._definition(func, scope)
            return found[1] if found is not None else None
        if isinstance(func, ast.Attribute):
            found = self._method_def(self.of(func.value, scope), func.attr)
            return found[1] if found is not None else None
        return None

    def _function(self, name: str, node: ast.Call, scope, depth: int) -> Value:
        result = self._function_value(name, node, scope, depth)
        if made_in_03(name, node):
            return _plain(result)  # (0.3's constructors made tensors, not Variables)
        return result

    def _function_value(self, name: str, node: ast.Call, scope, depth: int) -> Value:
        args = node.args
        if name in ("len", "int") or name == "round" and len(args) == 1:
            return _INT
        if name == "float":
            return _FLOAT
        if name in ("copy.deepcopy", "copy.copy") and len(args) == 1:
            return self.of(args[0], scope, depth)  # (``deepcopy(self.critics)``)
        if name.startswith("math.") and name.count(".") == 1:  # (numbers, whatever they take)
            return _INT if name[5:] in MATH_INTS else UNKNOWN if name[5:] in MATH_TESTS \
                else _FLOAT
        if name in ("abs", "round", "sum", "min", "max") and args:  # (``sum(t ** 2 for t in g)``)
            return builtin_of(self, name, node, scope, depth)
        if name in ("list", "sorted"):
            return Value(LIST, parts=(UNKNOWN,))
        if name == "str":
            return Value(STRING)
        if name in DICTS:  # (``dict(zip(keys, values))``: a dict, its entries unknown)
            return Value(DICT)
        if name in DISTRIBUTIONS:
            return distribution(self, name, node, scope, depth)
        if name in ENVIRONMENT_MAKERS:  # (``gym.make('CartPole-v0')``)
            return environment(node)
        if name == "torch.load":  # (what a save of the same path writes)
            return reloaded(self, node, scope)
        if name in LOADED:  # (a ``DataLoader``, its dataset, ``next(iter(loader))``)
            return loaded(self, name, node, scope, depth)
        if name.split(".")[0] in ARRAY_MODULES or name in OBJECTS:  # (``np.zeros(3)``)
            if numpy_draw(name, node):  # (``np.random.beta(1, 1)``: one number)
                return Value(NUMBER, dtype="int" if name.endswith("randint") else "float")
            if name in OBJECTS:
                return Value(OBJECT, name=OBJECTS[name])
            shape = numpy_shape(name, node)  # (``np.empty([n, 1], dtype=np.uint8)``)
            dtype = numpy_dtype(name, node, self.ctx.resolve)
            if name in ("numpy.array", "numpy.asarray") and len(args) == 1 and not shape:
                data = self.of(args[0], scope, depth)  # (``np.array(choices)`` of a list of
                return Value(NDARRAY, list_rank(data) if data.kind == LIST else  # numbers)
                             data.rank if data.kind in (NDARRAY, TENSOR) else None, dtype)
            return Value(NDARRAY, sizes_rank(self, shape, scope, depth) if shape else None,
                         dtype)
        if name in ("random.sample", "random.choices") and args:  # (elements of the first)
            pool = args[0]
            element = _INT if isinstance(pool, ast.Call) and self._callee(pool.func) == "range" \
                else self.of(pool, scope, depth).element()
            return Value(LIST, parts=(element,))
        if name in SIZED:
            dtype = self._dtype_keyword(node) or ("int" if name == "torch.randint_like"
                                                  else "float")
            sizes = args if name != "torch.full" else args[:1]
            return _tensor(sizes_rank(self, sizes, scope, depth), dtype, last_size(sizes))
        if name in ("torch.randint",):
            sizes = args[-1] if args else None
            rank = sizes_rank(self, [sizes], scope, depth) if sizes is not None else None
            return _tensor(rank, self._dtype_keyword(node) or "int")
        if name in TYPED:
            dtype = TYPED[name]
            if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
                return _tensor(data_rank(args[0], lambda e: self.of(e, scope, depth)), dtype,
                               literal_last(args[0]))
            data = self.of(args[0], scope, depth) if len(args) == 1 else UNKNOWN
            if data.kind == LIST:  # data, not sizes: a list of numbers is 1-D
                return _tensor(list_rank(data), dtype)
            if args and not node.keywords:
                return _tensor(sizes_rank(self, args, scope, depth), dtype, last_size(args))
            return _tensor(None, dtype)
        if name == "torch.tensor" and args:
            data = self.of(args[0], scope, depth)
            dtype = self._dtype_keyword(node)
            if data.kind == NUMBER:
                return _tensor(0, dtype)
            if isinstance(args[0], (ast.List, ast.Tuple)):
                return _tensor(data_rank(args[0], lambda e: self.of(e, scope, depth)), dtype,
                               literal_last(args[0]))
            return _tensor(None, dtype)
        if name == "collections.namedtuple":
            return namedtuple_class(node)
        if name in ("torch.cat", "torch.stack") and args:
            # the elements' rank (one more for ``stack``) where every element agrees;
            # for ``cat`` of a display, those known (the others must have it, or the
            # call raises; a 0-dim one had one element on 0.3, as 1-D)
            if name == "torch.cat" and isinstance(args[0], (ast.List, ast.Tuple)) \
                    and args[0].elts and not any(isinstance(e, ast.Starred) for e in args[0].elts):
                made = concatenated([self.of(e, scope, depth) for e in args[0].elts])
                if made is not None:
                    return made
            seq = self.of(args[0], scope, depth)
            if seq.kind == TUPLE and seq.parts:
                seq = Value(LIST, parts=(join(seq.parts),))
            part = seq.parts[0] if seq.kind == LIST and seq.parts else UNKNOWN
            if not part.tensor:
                return _tensor(None)
            rank = part.rank if name == "torch.cat" or part.rank is None else part.rank + 1
            return Value(TENSOR, rank, part.dtype, plain=part.plain)
        if name in ("torch.arange", "torch.randperm"):
            return _tensor(1, self._dtype_keyword(node) or (
                "int" if name.endswith("perm") else None))
        if name in ("torch.linspace", "torch.logspace"):
            return _tensor(1, self._dtype_keyword(node) or "float")
        if name == "torch.from_numpy" and args:
            inner = self.of(args[0], scope, depth)
            return _tensor(inner.rank, inner.dtype) if inner.kind == NDARRAY else _tensor(None)
        if name == "torch.autograd.Variable" and args:
            inner = self.of(args[0], scope, depth)  # (a Variable: not a plain tensor)
            return inner._replace(plain=False) if inner.tensor else _tensor(None)
        if name in TORCH_METHODS and args:
            # ``torch.max(x, 1)`` is ``x.max(1)``, and ``x`` is a tensor
            inner = self.of(args[0], scope, depth)
            if inner.kind is None:
                inner = _tensor(None)
            return self._method(name.split(".")[1], inner, node, scope, depth, args[1:])
        if name in ELEMENTWISE_FUNCTIONS:
            tensors = [self.of(a, scope, depth) for a in args[:2]]
            if tensors and tensors[0].tensor:
                rank, last = tensors[0].rank, tensors[0].last
                if len(tensors) > 1 and tensors[1].tensor:
                    rank = _broadcast(tensors[0], tensors[1])
                    last = last if tensors[1].last == last else None
                return _tensor(rank, None if name.endswith(("div", "softmax", "sigmoid"))
                               else tensors[0].dtype, last, plain=all(  # (of 0.3 tensors)
                                   t.plain for t in tensors if t.tensor)
                               and not name.startswith("torch.nn."))
            return _tensor(None) if name.startswith("torch.nn.functional.") else UNKNOWN
        if name in LOSS_FUNCTIONS:  # (``F.nll_loss(out, y)``: 0-dim unless per element)
            return _tensor(0 if reduced_loss(node, 3) else None, "float")
        if name == "torch.nn.Parameter" and args:  # (a Variable on 0.3: not plain)
            inner = self.of(args[0], scope, depth)
            return inner._replace(plain=False) if inner.tensor else _tensor(None)
        if name.startswith("torch.nn.") and name[9:10].isupper() and name.count(".") == 2:
            return self._module(name, node, scope, depth)  # (``nn.Linear(4, 2)``: a module)
        if name == "torch.nn.functional.linear" and args:
            inner = self.of(args[0], scope, depth)
            return _tensor(inner.rank if inner.tensor else None, "float")
        if name in LIKE:
            inner = self.of(args[0], scope, depth) if args else UNKNOWN
            return _tensor(inner.rank if inner.tensor else None)
        return UNKNOWN

    def _method(self, attr: str, receiver: Value, node: ast.Call, scope, depth: int,
                args: Optional[List[ast.AST]] = None) -> Value:
        result = method_value(self, attr, receiver, node, scope, depth, args)
        return _plain(result) if receiver.plain else result

    def _dtype_keyword(self, node: ast.Call) -> Optional[str]:
        for kw in node.keywords:
            if kw.arg == "dtype":
                return DTYPES.get(self.ctx.resolve(kw.value) or "")
        return None

    # -- functions of the file -----------------------------------------------

    def _definition(self, func: ast.Name, scope, hops: int = 0) -> Optional[tuple]:
        """The function ``func`` calls, defined once at the top of the file, in the
        function (a closure), or imported from another module of the project
        (:mod:`.foreign`), or passed for a parameter by every caller (a callback:
        one function for all), and the :class:`Values` of its module; ``None``
        where that is not evident."""
        definition = self.ctx.defined_once().get(func.id)
        reaching = self._flow(scope).reaching(func) or ()
        if definition is not None:
            if isinstance(definition, ast.ClassDef) or any(d.kind != "def" for d in reaching):
                return None
            return self, definition
        outer = enclosing_bindings(self.ctx, func, self._flow(scope)) if not reaching else None
        if outer and len(outer[1]) == 1 and outer[1][0].kind == "def":
            reaching = outer[1]  # (a function the enclosing one defines: a sibling closure)
        elif all(d.kind == "import" for d in reaching):  # (imported: read where it is defined)
            found = project_function(self.ctx, func.id)
            return (values(found[0]), found[1]) if found is not None else None
        return self._local_definition(reaching, scope, hops)

    def _local_definition(self, reaching, scope, hops: int) -> Optional[tuple]:
        """A function bound by one ``def`` in the scope, or the one function every
        caller passes for a parameter (``linesearch(model, get_loss, ...)``)."""
        if len(reaching) == 1 and reaching[0].kind == "def":
            node = reaching[0].node
            return (self, node) if isinstance(node, _FUNCTION_DEFS) \
                and not node.decorator_list else None
        if hops > 2 or len(reaching) != 1 or reaching[0].kind != "param":
            return None
        sites = passed_arguments(self.ctx, reaching[0].node, self._flow(scope).node)
        found = None
        for c, expr, at in sites or ():
            one = (self if c is self.ctx else values(c))._definition(expr, at, hops + 1) \
                if isinstance(expr, ast.Name) else None
            if one is None or found is not None and one[1] is not found[1]:
                return None
            found = one
        return found

    def passed_through(self, call: ast.Call, scope=None) -> Optional[ast.AST]:
        """The argument of ``call`` that the function it calls returns wrapped
        (``to_gpu(cuda, torch.FloatTensor([1]))``: the tensor), or ``None``."""
        found = self._definition(call.func, scope) if isinstance(call.func, ast.Name) else None
        return wrapped_argument(found[1], call, found[0].ctx.resolve) if found else None

    def _returned(self, func: ast.Name, scope, depth: int, call: ast.Call) -> Value:
        """What a function of the file or of the project (see :meth:`_definition`)
        returns (every ``return`` must agree; a ``yield``, a bare ``return`` or
        none: unknown)."""
        from .decided import call_returns

        found = self._definition(func, scope)
        if found is None:
            return UNKNOWN
        owner, definition = found
        value = call_returns(self, owner, definition, call, scope, depth, False)
        inner = wrapped_argument(definition, call, owner.ctx.resolve) if value.rank is None \
            else None
        inner = self.of(inner, scope, depth) if inner is not None else UNKNOWN  # (``to_var(x)``)
        return inner._replace(plain=False) if inner.tensor else value

    def _returns_of(self, definition: ast.AST, depth: int) -> Value:
        return remembered(self._returns, self._pending_returns, id(definition), 0,
                          lambda: self._read_returns(definition, depth), UNKNOWN)

    def _read_returns(self, definition: ast.AST, depth: int) -> Value:
        results: List[Value] = []
        yielded: List[ast.AST] = []
        for sub in body_nodes(definition):
            if isinstance(sub, ast.YieldFrom) or isinstance(sub, ast.Yield) and (
                    sub.value is None or yielded is None):
                yielded = None  # type: ignore[assignment]
            elif isinstance(sub, ast.Yield) and yielded is not None:
                yielded.append(sub.value)
            if isinstance(sub, ast.Return):
                if sub.value is None:
                    results = []
                    break
                results.append(self.of(sub.value, definition, depth))
        if yielded is None or yielded:  # (a generator: its items, as a list's)
            element = join([self.of(v, definition, depth) for v in yielded]) \
                if yielded else UNKNOWN
            return Value(LIST, parts=(element,)) if element.kind is not None else UNKNOWN
        return join(results)


_FUNCTION_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


#: what :meth:`Values.iterated` answers for ``i`` of ``for i, x in enumerate(xs)``
_COUNTED = ast.Constant(0)


def values(ctx) -> Values:
    """The file's :class:`Values` (made once per file)."""
    found = ctx.memo.get("values")
    if found is None:
        found = ctx.memo["values"] = Values(ctx)
    return found


def value_of(ctx, node: ast.AST) -> Value:
    """The value of ``node`` where the rule visiting it stands."""
    return values(ctx).of(node)
