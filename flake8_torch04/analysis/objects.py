"""Python objects and dict entries, for the value facts (:mod:`.values`).

An :data:`OBJECT` value is an instance of a Python class that is neither a tensor,
a number, a numpy array, a container, a string nor an ``nn.Module``; its ``name``
is the class.  Known where the code makes it evident: a call of one of
:data:`OBJECTS` (resolved through imports), what a method of such an object
returns (:data:`METHODS`): ``opt = parser.parse_args()`` where ``parser =
argparse.ArgumentParser(...)`` is an ``argparse.Namespace``; and a call of a plain
class of the project (:func:`plain_class`: ``vocab = Dictionary()``).

A dict literal whose keys are all strings keeps its entries: the value's
``parts`` are ``(key, entry)`` pairs (``{'settings': opt, 'epoch': 3}``; an
:class:`Entry`'s value is asked when read), at most :data:`MOST_KEYS` of them
(else, and for any other dict, ``None``).
"""
from __future__ import annotations

import ast
import weakref
from typing import Dict, List, Optional, Tuple

from .environments import ENVIRONMENT, environment_method
from .loaders import BATCHES, batches_method
from .hierarchy import PLAIN_BASES, hierarchy
from .lines import assigned_attributes
from .nodes import statements
from .resolve import key
from .options import namespace, option

OBJECT = "object"
#: callables (qualified names) that make an object: its class
OBJECTS = {
    "argparse.ArgumentParser": "argparse.ArgumentParser",
    "argparse.Namespace": "argparse.Namespace",
    "collections.defaultdict": "collections.defaultdict",
}
_NAMESPACE = "argparse.Namespace"
#: ``torch.distributions`` classes: the parameter that fixes the batch shape, the
#: dimensions it has beyond it (a ``Categorical``'s probabilities: one), and the
#: dtype family of a sample
DISTRIBUTIONS = {
    f"torch.distributions.{module}{name}": spec
    for name, spec in (("Categorical", (("probs", "logits"), 1, "int")),
                       ("Bernoulli", (("probs", "logits"), 0, "float")),
                       ("Normal", (("loc",), 0, "float")))
    for module in ("", name.lower() + ".")
}
#: (class, method) -> the class of the object the method returns
METHODS = {
    ("argparse.ArgumentParser", "parse_args"): _NAMESPACE,
}
#: the most entries of a dict literal kept
MOST_KEYS = 32
#: the builtin classes a plain class may derive from
_PLAIN_BASES = frozenset(("object", "dict", "list", "set"))
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def plain_class(ctx, name: str, depth: int = 0) -> bool:
    """Whether ``name`` is a class defined once at the top of ``ctx``'s file whose
    call evidently makes an instance of it: undecorated, without a metaclass or
    ``__new__``, on ``object``, ``dict``, ``list``, ``set`` or plain classes of the
    file (any other base may be a tensor's or a module's class, or make anything)."""
    defined = ctx.defined_once()
    cls = defined.get(name)
    if not isinstance(cls, ast.ClassDef) or cls.decorator_list or cls.keywords or depth > 8 \
            or any(isinstance(s, _FUNCTIONS) and s.name == "__new__" for s in cls.body):
        return False
    bound = ctx.scope.module().bindings
    return all(isinstance(base, ast.Name) and (
        plain_class(ctx, base.id, depth + 1) if base.id in defined
        else base.id in _PLAIN_BASES and base.id not in bound) for base in cls.bases)


def distribution(values, name: str, call: ast.Call, scope, depth: int):
    """A ``torch.distributions`` object (:data:`DISTRIBUTIONS`): an :data:`OBJECT`
    whose ``rank`` is its batch shape's, where the parameter that fixes it (the
    first argument, or its keyword) is a tensor of known rank."""
    from .values import TENSOR, Value

    keywords, extra, dtype = DISTRIBUTIONS[name]
    given = call.args[0] if call.args else next(
        (kw.value for kw in call.keywords if kw.arg in keywords), None)
    param = values.of(given, scope, depth) if given is not None and not isinstance(
        given, ast.Starred) else None
    rank = param.rank - extra if param is not None and param.kind == TENSOR and \
        param.rank is not None and param.rank >= extra and name.endswith(
            "Categorical") else None  # (a ``Normal``'s batch shape broadcasts its scale)
    return Value(OBJECT, rank, dtype, name=name)


def object_method(receiver, attr: str, call: ast.Call, ctx):
    """What ``receiver.attr(...)`` (``call``, in ``ctx``'s file) gives, for a numpy
    array or an :data:`OBJECT`: a distribution's ``sample()`` has its batch shape,
    a parser's ``parse_args()`` the file's options (:mod:`.options`)."""
    from .values import LIST, NDARRAY, TENSOR, TUPLE, UNKNOWN, Value

    if receiver.kind == NDARRAY:
        return Value(LIST) if attr == "tolist" else Value(NDARRAY)
    if receiver.name == ENVIRONMENT:
        return environment_method(receiver, attr, call)
    if receiver.name == BATCHES:  # (``data_iter.next()``)
        return batches_method(receiver, attr, call)
    if receiver.name in DISTRIBUTIONS:
        if attr in ("sample", "rsample") and not call.args and not call.keywords:
            return Value(TENSOR, receiver.rank, receiver.dtype)
        return Value(TENSOR, None, "float") if attr in ("log_prob", "entropy") else UNKNOWN
    made = METHODS.get((receiver.name, attr))
    if made == _NAMESPACE:
        return namespace(ctx, made)
    if made is not None:
        return Value(OBJECT, name=made)
    if (receiver.name, attr) == ("argparse.ArgumentParser", "parse_known_args"):
        return Value(TUPLE, parts=(namespace(ctx, _NAMESPACE), Value(LIST)))
    return UNKNOWN


class Entry:
    """A dict literal's entry: its :attr:`value` is asked only when read (few
    questions need a dict's entries, and a dict may hold many)."""

    __slots__ = ("_values", "_node", "_scope", "_depth")

    def __init__(self, values, node: ast.AST, scope, depth: int) -> None:
        # (weakly: the facts hold their values, and a cycle would keep the file's
        # tree alive until the collector runs, see ``run.collector_off``)
        self._values, self._node, self._scope, self._depth = \
            weakref.ref(values), node, scope, depth

    @property
    def value(self):
        from .values import UNKNOWN

        values = self._values()
        return values.of(self._node, self._scope, self._depth) if values is not None \
            else UNKNOWN


def keyed_parts(values, node: ast.AST, scope, depth: int) -> Optional[Tuple[tuple, ...]]:
    """The ``(key, entry)`` pairs of a dict literal with string keys (see
    :class:`Entry`), or ``None``."""
    if not isinstance(node, ast.Dict) or len(node.keys) > MOST_KEYS:
        return None
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        return None  # (``**other``: a ``None`` key)
    return tuple((k.value, Entry(values, v, scope, depth))
                 for k, v in zip(node.keys, node.values))


def self_attributes(cls: ast.ClassDef) -> Dict[str, Optional[List[tuple]]]:
    """Every ``self.NAME = value`` of the class's methods, by name: ``(value,
    method)`` pairs, or ``None`` for a name also written otherwise (``+=``, an
    annotation alone, unpacked into)."""
    found: Dict[str, Optional[List[tuple]]] = {}
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for stmt in statements(method):
            if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                        and t.value.id == "self":
                    if isinstance(stmt, ast.AugAssign) or stmt.value is None:
                        found[t.attr] = None
                    elif found.get(t.attr, ()) is not None:
                        found.setdefault(t.attr, []).append((stmt.value, method))
                elif not isinstance(t, (ast.Name, ast.Attribute, ast.Subscript)):
                    for sub in ast.walk(t):  # unpacked into self.x: not followed
                        if isinstance(sub, ast.Attribute):
                            found[sub.attr] = None
    return found


def self_attribute(values, node: ast.Attribute, function: ast.AST, depth: int):
    """``self.x`` read in ``function``: what every ``self.x = value`` in the class's
    methods makes it (for the value facts: ``values`` asks)."""
    from .nodes import enclosing
    from .values import UNKNOWN

    ctx = values.ctx
    if isinstance(function, ast.Lambda):
        cls = enclosing(ctx.file_parents(), node, ast.ClassDef)
    else:
        cls = enclosing(ctx.statement_parents(), function, ast.ClassDef)
    if cls is None:
        return UNKNOWN
    return _attribute_value(values, cls, node.attr, depth)


def _attribute_value(values, cls: ast.ClassDef, attr: str, depth: int):
    """What every ``self.attr = value`` in the methods of ``cls`` and of the
    project's classes it derives from makes ``attr``; unknown where a class
    outside the project it derives from (but ``nn.Module`` and ``object``) may
    bind it, or a class of the file that derives from ``cls`` binds it."""
    from .values import UNKNOWN, join, values as values_of

    ctx = values.ctx
    chain = ((ctx, cls),)
    if not all(ctx.resolve(b) in PLAIN_BASES or key(b) == "object" for b in cls.bases):
        found = hierarchy(ctx, cls)
        if found is None or not found.outside <= PLAIN_BASES:
            return UNKNOWN
        chain = found.classes
    if any(attr in values.attributes(c) for c in _derived_in_file(ctx, cls)):
        return UNKNOWN  # (``self`` may be an instance of the subclass)
    found_values = []
    for owner_ctx, owner in chain:
        facts = values if owner_ctx is ctx else values_of(owner_ctx)
        bound = facts.attributes(owner).get(attr, ())
        if bound is None:  # (written so that it is not followed)
            return UNKNOWN
        found_values.extend(facts.of(value, method, depth) for value, method in bound)
    return join(found_values)


def _derived_in_file(ctx, cls: ast.ClassDef) -> List[ast.ClassDef]:
    """The classes at the top of the file that name ``cls`` as a base (they may
    override what ``cls`` defines or binds)."""
    return [c for c in ctx.tree.body if isinstance(c, ast.ClassDef) and any(
        isinstance(b, ast.Name) and b.id == cls.name for b in c.bases)]


def _made_here(values, name: ast.AST, scope, attr: str) -> Optional[ast.ClassDef]:
    """The plain class of the file (:func:`plain_class`) every binding of ``name``
    that reaches it calls (``b = Batch()``), where the file assigns ``attr`` only
    through ``self`` (``b.rewards = ...`` elsewhere may change it)."""
    ctx = values.ctx
    defs = values._flow(scope).reaching(name) if isinstance(name, ast.Name) else None
    if not defs or not all(d.kind == "assign" and isinstance(d.value, ast.Call)
                           and isinstance(d.value.func, ast.Name) for d in defs):
        return None
    called = {d.value.func.id for d in defs}
    cls = ctx.defined_once().get(called.pop()) if len(called) == 1 else None
    if not isinstance(cls, ast.ClassDef) or not plain_class(ctx, cls.name):
        return None
    outside = ctx.memo.get("objects assigned outside")
    if outside is None:
        outside = ctx.memo["objects assigned outside"] = frozenset(
            attr for owner, attr in assigned_attributes(ctx.text) if owner != "self")
    return None if attr in outside else cls


def instance_attribute(values, node: ast.Attribute, scope, depth: int):
    """``model.trans`` where ``model`` is an instance of a module class of the file:
    what every ``self.trans = value`` in the class's methods makes it, where no
    class of the file derives from it (a subclass may bind it otherwise); and
    ``args.x0`` of a namespace (:func:`.options.option`); ``b.rewards`` of an
    instance of a plain class of the file (:func:`_made_here`).  Only an attribute
    some module class of the file binds, or one of a name, has its owner asked about."""
    from .values import FILE_CLASS, MODULE, UNKNOWN

    bound_names = values.ctx.memo.get("values instance attributes")
    if bound_names is None:
        bound_names = values.ctx.memo["values instance attributes"] = frozenset(
            attr for cls in values.module_classes().values()
            for attr in values.attributes(cls))
    attr = node.attr
    if attr not in bound_names and not isinstance(node.value, ast.Name):
        return UNKNOWN
    owner = values.of(node.value, scope, depth)
    name = owner.name or ""
    if owner.kind == OBJECT and name == _NAMESPACE:
        return option(owner, attr)  # (``args.x0``)
    if owner.kind == OBJECT:  # (``b = Batch()`` then ``b.rewards``)
        cls = _made_here(values, node.value, scope, attr)
        return _attribute_value(values, cls, attr, depth) if cls is not None else UNKNOWN
    if attr not in bound_names:
        return UNKNOWN
    if owner.kind != MODULE or not name.startswith(FILE_CLASS):
        return UNKNOWN
    cls = values.module_classes().get(name[len(FILE_CLASS):])
    if cls is None or _derived_in_file(values.ctx, cls):
        return UNKNOWN
    return _attribute_value(values, cls, attr, depth)


def self_method(values, name: str, function: ast.AST) -> Optional[ast.FunctionDef]:
    """The method ``name`` that ``self.name(...)`` in ``function`` calls: one the
    module class around it defines itself, undecorated, where no class of the
    file derives from that class (a subclass may override it)."""
    from .nodes import enclosing

    ctx = values.ctx
    cls = enclosing(ctx.statement_parents(), function, ast.ClassDef)
    if cls is None or values.module_classes().get(cls.name) is not cls \
            or _derived_in_file(ctx, cls):
        return None
    return values._forward_def(cls.name, name)


def type_alias(values, func: ast.AST, scope) -> Optional[str]:
    """The tensor type a name is bound to, where every binding of it that reaches
    names one of the same dtype: ``Tensor = torch.cuda.FloatTensor if cuda else
    torch.FloatTensor`` (a 2017 GAN script's alias, at the top of the module: see
    :func:`_aliased`) gives ``torch.FloatTensor``'s facts to ``Tensor(n)``."""
    from .value_tables import TYPED

    if not isinstance(func, ast.Name) or func.id not in _aliased(values.ctx):
        return None
    flow = values._flow(scope)
    defs = flow.reaching(func)
    if not defs and defs is not None and func.id not in flow.bound:
        defs = values.ctx.flow_of(values.ctx.tree).defs(func.id)  # (bound at the top)
    if not defs or any(d.kind != "assign" or d.value is None for d in defs):
        return None
    named = []
    for d in defs:
        value = d.value
        branches = (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,)
        named += [values.ctx.resolve(b) if isinstance(b, (ast.Name, ast.Attribute)) else None
                  for b in branches]
    if None in named or any(n not in TYPED for n in named) or \
            len({TYPED[n] for n in named}) != 1:
        return None
    return named[-1]


def _aliased(ctx) -> frozenset:
    """The names the module binds at its top (or in a top-level ``if``/``try``) to
    a name, an attribute or a conditional expression: the tensor type aliases
    :func:`type_alias` may find among them."""
    found = ctx.memo.get("objects.aliased")
    if found is None:
        names = set()
        todo = list(ctx.tree.body)
        while todo:
            stmt = todo.pop()
            if isinstance(stmt, (ast.If, ast.Try)):
                todo += [*stmt.body, *stmt.orelse, *getattr(stmt, "finalbody", ())]
            elif isinstance(stmt, ast.Assign) and isinstance(
                    stmt.value, (ast.Attribute, ast.Name, ast.IfExp)):
                names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        found = ctx.memo["objects.aliased"] = frozenset(names)
    return found  # type: ignore[return-value]
