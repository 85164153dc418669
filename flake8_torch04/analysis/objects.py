"""Python objects and dict entries, for the value facts (:mod:`.values`).

An :data:`OBJECT` value is an instance of a Python class that is neither a tensor,
a number, a numpy array, a container, a string nor an ``nn.Module``; its ``name``
is the class.  Known where the code makes it evident: a call of one of
:data:`OBJECTS` (resolved through imports), what a method of such an object
returns (:data:`METHODS`): ``opt = parser.parse_args()`` where ``parser =
argparse.ArgumentParser(...)`` is an ``argparse.Namespace``; and a call of a plain
class of the project (:func:`plain_class`: ``vocab = Dictionary()``), named by its
module and itself (:data:`PLAIN`), so that the instance keeps its class wherever
it goes (``b = collect(rows)`` of a function that returns one, of the file or of
another module) and ``b.rewards`` is what the class's methods bind to
``self.rewards`` (:func:`instance_attribute`).

A dict literal whose keys are all strings keeps its entries: the value's
``parts`` are ``(key, entry)`` pairs (``{'settings': opt, 'epoch': 3}``; an
:class:`Entry`'s value is asked when read), at most :data:`MOST_KEYS` of them
(else, and for any other dict, ``None``).  ``d['key']`` of such a dict is its entry
(:func:`dict_entry`), unless the file writes that key of some dict
(``d['key'] = v``, ``+=``, ``del``, ``d.update(key=...)``) or updates a dict from
something else (``d.update(vars(args))``): then no entry is read.
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
NAMESPACE = "argparse.Namespace"
#: torchvision datasets that hold their images and labels as tensors (0.3's
#: ``train_data``/``train_labels`` and ``test_*``, today's ``data``/``targets``): a
#: ``(N, H, W)`` uint8 tensor and a 1-D int64 one (QMNIST's targets are 2-D: not here);
#: their objects are named by the class (:mod:`.loaders` makes them)
TENSOR_DATASETS = {f"torchvision.datasets.{module}{name}": f"torchvision.datasets.{name}"
                   for name in ("MNIST", "FashionMNIST", "KMNIST", "EMNIST")
                   for module in ("", "mnist.")}
#: their attributes: the rank and dtype family of each
DATASET_ATTRIBUTES = {
    **{attr: (1, "int") for attr in ("train_labels", "test_labels", "targets")},
    **{attr: (3, "uint8") for attr in ("train_data", "test_data", "data")},
}
_DATASET_CLASSES = frozenset(TENSOR_DATASETS.values())
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
    ("argparse.ArgumentParser", "parse_args"): NAMESPACE,
}
#: the most entries of a dict literal kept
MOST_KEYS = 32
#: the ``name`` of an instance of a plain class of the project (:func:`plain_class`):
#: ``PLAIN + the path of its module + "\0" + the class's name``
PLAIN = "<plain class>"
#: methods that may give an instance attributes its methods do not bind to ``self``
_DYNAMIC = frozenset(("__getattr__", "__getattribute__", "__setattr__", "__setstate__"))
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
            or class_binds(cls, "__new__"):
        return False
    bound = ctx.scope.module().bindings
    return all(isinstance(base, ast.Name) and (
        plain_class(ctx, base.id, depth + 1) if base.id in defined
        else base.id in _PLAIN_BASES and base.id not in bound) for base in cls.bases)


def plain_instance(ctx, name: str):
    """The :data:`OBJECT` a call of ``name`` makes where it is a plain class of
    ``ctx``'s file (:func:`plain_class`), or ``None``."""
    from .values import Value

    return Value(OBJECT, name=f"{PLAIN}{ctx.filename}\0{name}") if plain_class(ctx, name) \
        else None


#: the ``name`` of a class ``collections.namedtuple`` makes, then of its instances (a
#: :data:`~.values.TUPLE` with its items' values): each followed by the field names
NAMED_CLASS = "<namedtuple class>"
NAMED = "<namedtuple>"


def namedtuple_class(call: ast.Call):
    """The class ``namedtuple('T', ('a', 'b'))`` (or ``'a b'``, ``'a, b'``) makes."""
    from .values import UNKNOWN, Value

    spec = call.args[1] if len(call.args) > 1 else next(
        (kw.value for kw in call.keywords if kw.arg == "field_names"), None)
    if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        fields = spec.value.replace(",", " ").split()
    elif isinstance(spec, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in spec.elts):
        fields = [e.value for e in spec.elts]  # type: ignore[attr-defined]
    else:
        return UNKNOWN
    if any(kw.arg == "rename" for kw in call.keywords) or not all(
            f.isidentifier() for f in fields):
        return UNKNOWN
    return Value(OBJECT, name=NAMED_CLASS + " ".join(fields))


def named_instance(values, cls, call: ast.Call, scope, depth: int):
    """``T(a, b)`` or ``T(a=a, b=b)`` of a :data:`NAMED_CLASS` ``cls``: the values of
    its fields (unknown ones where a field is left to a default or unpacked)."""
    from .values import TUPLE, UNKNOWN, Value

    fields = cls.name[len(NAMED_CLASS):].split()
    given: List[Optional[ast.AST]] = [None] * len(fields)
    starred = any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(fields)
    for i, arg in enumerate([] if starred else call.args):
        given[i] = arg
    for kw in call.keywords:
        if kw.arg in fields:
            given[fields.index(kw.arg)] = kw.value
        else:
            starred = True
    parts = None if starred else tuple(
        values.of(g, scope, depth) if g is not None else UNKNOWN for g in given)
    return Value(TUPLE, parts=parts, name=NAMED + " ".join(fields))


def plain_method(values, name: str, attr: str, call: ast.Call, scope, depth: int):
    """What ``obj.attr(...)`` (``call``, read in ``scope``) returns for an instance
    ``obj`` of a plain class of the project (:data:`PLAIN` ``name``): the returns
    of the method the class itself defines, undecorated and once (one it inherits
    is not followed), read for this call (``dev.to_device(idxs)`` of a method
    that returns its argument moved: ``idxs``'s rank; :mod:`.decided`)."""
    from .decided import call_returns
    from .values import UNKNOWN, values as values_of

    found = instance_class(values.ctx, name)
    if found is None:
        return UNKNOWN
    other, cls = found
    method = own_method(cls, attr)
    if method is None:
        return UNKNOWN
    owner = values if other is values.ctx else values_of(other)
    return call_returns(values, owner, method, call, scope, depth + 1, True)


def own_method(cls: ast.ClassDef, name: str) -> Optional[ast.AST]:
    """The method ``name`` the body of ``cls`` defines, once and undecorated, or ``None``."""
    methods = [s for s in cls.body if isinstance(s, _FUNCTIONS) and s.name == name]
    return methods[0] if len(methods) == 1 and not methods[0].decorator_list else None


def named_field(owner, attr: str):
    """``t.a`` of a namedtuple ``t`` (:data:`NAMED`)."""
    from .values import UNKNOWN

    fields = owner.name[len(NAMED):].split()
    return owner.parts[fields.index(attr)] if attr in fields and owner.parts else UNKNOWN


def shown_class(name: str) -> str:
    """An :data:`OBJECT`'s class as a message shows it (``Batch``)."""
    return name.rsplit("\0", 1)[-1] if name.startswith(PLAIN) else name


def instance_class(ctx, name: str) -> Optional[Tuple[object, ast.ClassDef]]:
    """The context of the module and the class a :data:`PLAIN` name names (``ctx``
    itself for its own file), or ``None`` where the module cannot be read."""
    from .foreign import module_context

    path, _, cls_name = name[len(PLAIN):].rpartition("\0")
    other = ctx if path == ctx.filename else module_context(path)
    cls = other.defined_once().get(cls_name) if other is not None else None
    return (other, cls) if isinstance(cls, ast.ClassDef) else None


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
    if made == NAMESPACE:
        return namespace(ctx, made)
    if made is not None:
        return Value(OBJECT, name=made)
    if (receiver.name, attr) == ("argparse.ArgumentParser", "parse_known_args"):
        return Value(TUPLE, parts=(namespace(ctx, NAMESPACE), Value(LIST)))
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


def dict_entry(ctx, whole, index: ast.AST):
    """The value of ``whole[index]``, ``whole`` a dict literal's value with its entries,
    ``index`` a string constant; ``None`` where unknown (see the module's docstring)."""
    if not whole.parts or not isinstance(index, ast.Constant) \
            or not isinstance(index.value, str):
        return None
    written = ctx.memo.get("dict keys written", False)
    if written is False:
        written = ctx.memo["dict keys written"] = _dict_keys_written(ctx.tree)
    if written is None or index.value in written:
        return None
    for name, entry in whole.parts:
        if name == index.value:
            return entry.value
    return None


def _dict_keys_written(tree: ast.AST) -> Optional[frozenset]:
    """The string keys the file writes into some dict, or ``None`` where it updates a
    dict with keys it does not spell."""
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                keys.add(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("update", "setdefault", "pop", "__setitem__"):
            if node.func.attr == "update" and \
                    any(not isinstance(a, ast.Dict) for a in node.args):
                return None
            for a in node.args:
                for k in getattr(a, "keys", ()):
                    if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                        return None
                    keys.add(k.value)
            if node.func.attr != "update" and node.args:
                first = node.args[0]
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    if node.func.attr != "pop":
                        return None
                else:
                    keys.add(first.value)
            for kw in node.keywords:
                if kw.arg is None:
                    return None
                keys.add(kw.arg)
    return frozenset(keys)


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
    from .value_tables import MODULE_ITSELF
    from .values import MODULE, UNKNOWN, join, values as values_of

    ctx = values.ctx
    chain = ((ctx, cls),)
    if not all(ctx.resolve(b) in PLAIN_BASES or key(b) == "object" for b in cls.bases):
        found = hierarchy(ctx, cls)
        if found is None or not found.outside <= PLAIN_BASES:
            return UNKNOWN
        chain = found.classes
    if any(attr in values.attributes(c) for c in _derived_in_file(ctx, cls)):
        return UNKNOWN  # (``self`` may be an instance of the subclass)
    found_values, remade = [], []
    for owner_ctx, owner in chain:
        facts = values if owner_ctx is ctx else values_of(owner_ctx)
        bound = facts.attributes(owner).get(attr, ())
        if bound is None:  # (written so that it is not followed)
            return UNKNOWN
        for value, method in bound:
            calls = _remade(value, attr)
            if calls is not None:
                remade.append((facts, owner_ctx, calls, method))
            else:
                found_values.append(facts.of(value, method, depth) if facts is values
                                    else crossed(facts.of(value, method, depth), owner_ctx))
    if remade and found_values:
        made = join(found_values)
        for facts, owner_ctx, calls, method in remade:
            value = made
            for call in calls:  # (innermost first: ``self.w.float().cuda()``)
                value = (value if call.func.attr in MODULE_ITSELF else UNKNOWN) \
                    if value.kind == MODULE else \
                    facts._method(call.func.attr, value, call, method, depth)
            found_values.append(value if facts is values else crossed(value, owner_ctx))
    return join(found_values) if not remade or found_values else UNKNOWN


def _remade(value: ast.AST, attr: str) -> Optional[List[ast.Call]]:
    """The method calls of ``self.attr = self.attr.cuda()`` (``.float().cuda()``),
    innermost first: a value made from the attribute's own other values (their value
    is known without asking the attribute again, which would meet itself); else ``None``."""
    calls: List[ast.Call] = []
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        calls.append(value)
        value = value.func.value
    if calls and isinstance(value, ast.Attribute) and value.attr == attr and \
            isinstance(value.value, ast.Name) and value.value.id == "self":
        return calls[::-1]
    return None


def _derived_in_file(ctx, cls: ast.ClassDef) -> List[ast.ClassDef]:
    """The classes at the top of the file that name ``cls`` as a base (they may
    override what ``cls`` defines or binds)."""
    return [c for c in ctx.tree.body if isinstance(c, ast.ClassDef) and any(
        isinstance(b, ast.Name) and b.id == cls.name for b in c.bases)]


def _outside(ctx) -> Optional[frozenset]:
    """The attributes ``ctx``'s file assigns through another name than ``self``
    (``b.rewards = ...``, ``other.moved = None``); ``None`` for any, where it calls
    ``setattr``."""
    memo = ctx.memo
    if "objects assigned outside" not in memo:
        memo["objects assigned outside"] = None if "setattr(" in ctx.text else frozenset(
            attr for owner, attr in assigned_attributes(ctx.text) if owner != "self")
    return memo["objects assigned outside"]  # type: ignore[return-value]


def _instance_chain(ctx, cls: ast.ClassDef) -> Optional[tuple]:
    """The classes of the project an instance of the plain class ``cls`` takes its
    attributes from (``cls`` and the classes it derives from), each with the context
    of its module; ``None`` where one may make them otherwise: a class outside the
    project (but ``object``), a method of :data:`_DYNAMIC`, ``setattr``, ``vars``
    or ``__dict__`` in a class's body."""
    memo = ctx.memo.setdefault("objects instance chains", {})
    if id(cls) not in memo:  # type: ignore[operator]
        found = hierarchy(ctx, cls)
        chain = found.classes if found is not None and found.outside <= PLAIN_BASES \
            else None
        if chain is not None and any(
                isinstance(n, _FUNCTIONS) and n.name in _DYNAMIC or
                isinstance(n, ast.Name) and n.id in ("setattr", "vars") or
                isinstance(n, ast.Attribute) and n.attr == "__dict__"
                for _, c in chain for n in ast.walk(c)):
            chain = None
        memo[id(cls)] = chain  # type: ignore[index]
    return memo[id(cls)]  # type: ignore[index,no-any-return]


def _class_level(chain: tuple, attr: str) -> bool:
    """Whether a class of ``chain`` binds ``attr`` in its own body (a class
    attribute, a method, a property): what an instance has before a method binds it."""
    return any(class_binds(cls, attr) for _, cls in chain)


def class_binds(cls: ast.ClassDef, name: str) -> bool:
    """Whether the body of ``cls`` binds ``name`` itself (a method, a nested class,
    an assignment)."""
    for stmt in cls.body:
        if isinstance(stmt, (*_FUNCTIONS, ast.ClassDef)) and stmt.name == name:
            return True
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else ()
        if any(isinstance(n, ast.Name) and n.id == name for t in targets
               for n in ast.walk(t)):
            return True
    return False


def plain_attribute(values, name: str, attr: str, depth: int):
    """``b.rewards`` where ``b`` is an instance of a plain class of the project
    (``name``: :data:`PLAIN`): what every ``self.rewards = value`` in the methods of
    the class and of the classes it derives from makes it, read in their modules
    (:func:`_attribute_value`).  Unknown where the file asking or the class's module
    assigns ``.rewards`` through another name (or calls ``setattr``), a class of the
    chain binds it in its body or may make attributes otherwise
    (:func:`_instance_chain`), or the class's module cannot be read."""
    from .values import UNKNOWN, values as values_of

    ctx = values.ctx
    found = instance_class(ctx, name)
    if found is None:
        return UNKNOWN
    owner_ctx, cls = found
    chain = _instance_chain(owner_ctx, cls)
    if chain is None or _class_level(chain, attr):
        return UNKNOWN
    modules = {id(c): c for c in (ctx, *(c for c, _ in chain))}.values()
    if any(_outside(c) is None or attr in _outside(c) for c in modules):
        return UNKNOWN  # (``b.rewards = ...`` in a module that reads it or defines the class)
    if owner_ctx is ctx:
        return _attribute_value(values, cls, attr, depth)
    return crossed(_attribute_value(values_of(owner_ctx), cls, attr, depth), owner_ctx)


def crossed(value, ctx):
    """``value``, read in ``ctx``'s module for another module: an instance of a plain
    class (also an item of a tuple or a list) loses its class where ``ctx``'s file
    assigns one of the attributes the class binds through another name than
    ``self`` (``traj.rewards = ...`` in the function that returns ``traj``), or
    calls ``setattr``."""
    from .values import DICT, LIST, TUPLE, values as values_of

    outside = _outside(ctx)
    if outside is not None and not outside or not value.parts and value.kind != OBJECT:
        return value  # (cheap first: most modules assign no attribute outside ``self``)
    if value.kind in (TUPLE, LIST) and value.parts:
        parts = tuple(crossed(p, ctx) for p in value.parts)
        return value._replace(parts=parts) if parts != value.parts else value
    if value.kind == DICT and value.parts:  # (its entries, when read)
        return value._replace(parts=tuple((k, _Crossed(e, ctx)) for k, e in value.parts))
    name = value.name
    if value.kind != OBJECT or not name or not name.startswith(PLAIN):
        return value
    if outside is None:
        return value._replace(name=None)
    found = instance_class(ctx, name)
    chain = _instance_chain(*found) if found is not None else None
    if chain is None or any(attr in outside for c_ctx, c in chain
                            for attr in values_of(c_ctx).attributes(c)):
        return value._replace(name=None)
    return value


class _Crossed:
    """A dict's :class:`Entry` read in another module: its value :func:`crossed`."""

    __slots__ = ("_entry", "_ctx")

    def __init__(self, entry, ctx) -> None:
        self._entry, self._ctx = entry, weakref.ref(ctx)

    @property
    def value(self):
        from .values import UNKNOWN

        ctx = self._ctx()
        return crossed(self._entry.value, ctx) if ctx is not None else UNKNOWN


def instance_attribute(values, node: ast.Attribute, scope, depth: int):
    """``model.trans`` where ``model`` is an instance of a module class of the file:
    what every ``self.trans = value`` in the class's methods makes it, where no
    class of the file derives from it (a subclass may bind it otherwise); and
    ``args.x0`` of a namespace (:func:`.options.option`); ``b.rewards`` of an
    instance of a plain class of the project (:func:`plain_attribute`).  Only an
    attribute some module class of the file binds, or one of a name, has its owner
    asked about."""
    from .values import FILE_CLASS, MODULE, TENSOR, TUPLE, UNKNOWN, Value

    bound_names = values.ctx.memo.get("values instance attributes")
    if bound_names is None:
        bound_names = values.ctx.memo["values instance attributes"] = frozenset(
            attr for cls in values.module_classes().values()
            for attr in values.attributes(cls))
    attr = node.attr
    if attr not in bound_names and not isinstance(node.value, ast.Name) \
            and attr not in DATASET_ATTRIBUTES:
        return UNKNOWN
    owner = values.of(node.value, scope, depth)
    name = owner.name or ""
    if owner.kind == OBJECT and name in _DATASET_CLASSES:  # (``mnist.train_labels``)
        rank, dtype = DATASET_ATTRIBUTES.get(attr, (None, None))
        return Value(TENSOR, rank, dtype, plain=True) if rank is not None else UNKNOWN
    if owner.kind == TUPLE and name.startswith(NAMED):  # (``batch.done`` of a namedtuple)
        return named_field(owner, attr)
    if owner.kind == OBJECT and name == NAMESPACE:
        return option(owner, attr)  # (``args.x0``)
    if owner.kind == OBJECT:  # (``b = Batch()`` or ``b = collect(rows)``, then ``b.rewards``)
        return plain_attribute(values, name, attr, depth) if name.startswith(PLAIN) \
            else UNKNOWN
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
    module class (or plain class, :func:`plain_class`) around it defines itself,
    undecorated, where no class of the file derives from that class (a subclass
    may override it)."""
    from .nodes import enclosing

    ctx = values.ctx
    cls = enclosing(ctx.statement_parents(), function, ast.ClassDef)
    if cls is None or _derived_in_file(ctx, cls):
        return None
    if values.module_classes().get(cls.name) is cls:
        return values._forward_def(cls.name, name)
    if ctx.defined_once().get(cls.name) is not cls or not plain_class(ctx, cls.name):
        return None
    return own_method(cls, name)  # type: ignore[return-value]


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
    a name, an attribute or a conditional expression, and those a function binds to
    an attribute named ``...Tensor`` or a choice of two (``ByteTensor =
    th.cuda.ByteTensor if self.use_cuda else th.ByteTensor`` in a method): the
    tensor type aliases :func:`type_alias` may find among them."""
    found = ctx.memo.get("objects.aliased")
    if found is None:
        names = set()
        todo = [(stmt, True) for stmt in ctx.tree.body]
        while todo:
            stmt, top = todo.pop()
            if isinstance(stmt, ast.Assign) and isinstance(
                    stmt.value, (ast.Attribute, ast.Name, ast.IfExp)) and (
                    top or _names_tensor_type(stmt.value)):
                names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
            elif isinstance(stmt, _BLOCKS):
                inner = top and isinstance(stmt, (ast.If, ast.Try))
                todo += [(s, inner) for field in ("body", "orelse", "finalbody", "handlers")
                         for s in getattr(stmt, field, ()) or ()]
        found = ctx.memo["objects.aliased"] = frozenset(names)
    return found  # type: ignore[return-value]


_BLOCKS = (ast.If, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For,
           ast.While, ast.With, ast.ExceptHandler)


def _names_tensor_type(value: ast.AST) -> bool:
    branches = (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,)
    return all(isinstance(b, ast.Attribute) and b.attr.endswith("Tensor") for b in branches)
