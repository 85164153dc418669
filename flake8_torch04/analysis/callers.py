"""Who calls a function of the file, and with what: the arguments that reach a
parameter (for the value facts, :mod:`.values`).

A parameter's value is known only where every caller is in view: the function
is defined once at the top of the module, undecorated, and its name is never
read but as the callee of a plain call (not passed as a callback, stored, or
rebound), and no other file of the project that can import from the module
spells its name (asked of :func:`~.project.importers.named_elsewhere`: a file
that spells the module's name, or a re-exporter's).  For the value facts
(:func:`passed_arguments`), the files that do may call it too, where each shows
all its uses as plain calls (:mod:`.importing`): their calls are read in their
own modules.

A function defined in the body of another has its callers in view where the
enclosing function names it only as the callee of plain calls (it cannot be
named anywhere else).

The parameters of a module-level class's ``__init__`` have the arguments of
the class's calls (``Trainer(g, d)``), where the class's name is read only as
the callee of plain calls and no other file spells it, or (the value facts) the
files that do only call it (:func:`_constructed`).

A method's callers are in view where it is called only as ``self.method(...)``
from the methods of its own class, or on a receiver every binding of which
makes an instance of the class (``w = Walker(g)``, then ``w.degrees(ids)``;
``Walker(g).degrees(ids)``) (:class:`MethodCallers`): any other ``obj.method(...)``
may call another class's, and a base class may call a method its subclasses
define (``nn.Module`` calls ``forward``), so the class derives from nothing
but ``object`` or ``torch.nn.Module``, the method is none of ``nn.Module``'s,
and its name is spelled in no other file (a subclass there that calls it, or
overrides it, spells it; one that does neither calls it only through the
class's own methods).
"""
from __future__ import annotations

import ast
import re
from typing import Dict, List, Optional, Set, Tuple

from .lines import lines_matching
from .nodes import (
    COMPREHENSIONS, children, comprehension_targets, defined_once, reads_any, spans_hit
)
from .reaching import params_of
from .hierarchy import PLAIN_BASES
from .importing import Remote, importing_sites
from .method_sites import method_sites
from .resolve import key

#: one call site: (the call, the scope the call is read in: a function or the module)
Site = Tuple[ast.Call, ast.AST]
#: what a call passes: (the context of its module, the expression, the scope it is read in)
Passed = Tuple[object, ast.AST, ast.AST]
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: scopes whose calls are not followed
_OPAQUE = (ast.Lambda,)  # (a comprehension's calls are read around it: see
#: :func:`.callers.comprehension_names`)


class Callers:
    """The call sites of the file's module-level functions (one walk of the lines
    that spell a function's name, when it is first asked of)."""

    def __init__(self, tree: ast.AST, defined: Dict[str, ast.AST], text: str = "") -> None:
        self.tree = tree
        self.defined = defined  # (the file's functions and classes defined once)
        self.text = text
        self._sites: Dict[str, Optional[List[Site]]] = {}

    def sites(self, func: ast.AST) -> Optional[List[Site]]:
        """Every call of the module-level function ``func``, or ``None`` when not
        every use of its name is in view as a plain call."""
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or func.decorator_list or self.defined.get(func.name) is not func:
            return None
        name = func.name
        if name not in self._sites:
            self._sites[name] = self._index(name)
        return self._sites[name]

    def class_sites(self, cls: ast.ClassDef) -> Optional[List[Site]]:
        """Every call of the module-level class ``cls`` (its constructor's
        calls), or ``None`` when not every use of its name is in view as a plain
        call (a subclass names it as a base, ``isinstance`` reads it)."""
        if cls.decorator_list or self.defined.get(cls.name) is not cls:
            return None
        if cls.name not in self._sites:
            self._sites[cls.name] = self._index(cls.name)
        return self._sites[cls.name]

    def _index(self, name: str) -> Optional[List[Site]]:
        found: List[Site] = []
        tree = self.tree
        hits = lines_matching(self.text, name) if self.text else None
        # (node, its parent, the function or module a call in it is read in:
        # ``None`` inside a lambda or a class body, scopes the value facts do not
        # follow; a comprehension's, read around it: see :func:`comprehension_names`)
        stack: List[tuple] = [(tree, None, tree)]
        while stack:
            node, parent, scope = stack.pop()
            cls = node.__class__
            if cls is ast.Name:
                if node.id != name:
                    continue
                if node.ctx.__class__ is ast.Load and parent.__class__ is ast.Call \
                        and parent.func is node and scope is not None:
                    found.append((parent, scope))
                    continue
                if parent.__class__ is ast.Call and parent.args and parent.args[0] is node \
                        and parent.func.__class__ is ast.Name and parent.func.id == "super":
                    continue  # (``super(Net, self)``, Python 2's ``super()``: no call of it)
                return None  # (read otherwise, or rebound)
            if hits is not None and isinstance(node, ast.stmt) and not spans_hit(node, hits):
                continue
            if cls is ast.arg:
                if node.arg == name:
                    return None  # (a parameter of that name: its calls call something else)
                continue
            if cls is ast.alias:
                if (node.asname or node.name).split(".")[0] == name:
                    return None  # (an import rebinds it)
                continue
            if cls is ast.Global or cls is ast.Nonlocal:
                if name in node.names:
                    return None
            elif cls in _DEFINITIONS:
                if node.name == name and parent is not tree:
                    return None  # (a nested definition shadows it somewhere)
                scope = node if cls is not ast.ClassDef else None
            elif cls in _OPAQUE:
                scope = None
            stack += [(child, node, scope) for child in reversed(children(node))]
        return found


#: what ``nn.Module`` has (torch 2.13), and what torch's layers call on
#: themselves: a method of these names is called by torch (``forward`` by
#: ``__call__``, ``extra_repr`` by ``repr``...), with arguments not in view
MODULE_METHODS = frozenset((
    "T_destination", "_apply", "_call_impl", "_compiled_call_impl", "_get_backward_hooks",
    "_get_backward_pre_hooks", "_get_name", "_load_from_state_dict",
    "_maybe_warn_non_full_backward_hook", "_named_members",
    "_register_load_state_dict_pre_hook", "_register_state_dict_hook",
    "_replicate_for_data_parallel", "_save_to_state_dict", "_slow_forward", "_version",
    "_wrapped_call_impl", "add_module", "apply", "bfloat16", "buffers", "call_super_init",
    "children", "compile", "cpu", "cuda", "double", "dump_patches", "eval", "extra_repr",
    "float", "forward", "get_buffer", "get_extra_state", "get_parameter", "get_submodule",
    "half", "ipu", "load_state_dict", "modules", "mtia", "named_buffers", "named_children",
    "named_modules", "named_parameters", "parameters", "register_backward_hook",
    "register_buffer", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook", "register_load_state_dict_pre_hook",
    "register_module", "register_parameter", "register_state_dict_post_hook",
    "register_state_dict_pre_hook", "requires_grad_", "set_extra_state", "set_submodule",
    "share_memory", "state_dict", "to", "to_empty", "train", "type", "xpu", "zero_grad",
    "reset_parameters", "_check_input_dim", "flatten_parameters",
))


class MethodCallers:
    """The ``self.method(...)`` calls of the methods of the file's module-level
    classes, found in the class's own body once its text says they are all there
    (see :meth:`sites`)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._classes: Optional[Dict[str, ast.ClassDef]] = None
        #: class name -> method name -> its calls ``self.name(...)`` in the class
        self._calls: Dict[str, Dict[str, List[Site]]] = {}
        #: every ``R.name(...)`` of the file, by name (see :meth:`attribute_calls`)
        self._attributes: Optional[Dict[str, List[Site]]] = None
        #: every name the file reads, by identifier; how many times it spells
        #: each attribute; the strings that are identifiers (the same walk)
        self._names: Dict[str, List[ast.Name]] = {}
        self._attributes_read: Dict[str, int] = {}
        self._strings: Set[str] = set()

    def sites(self, func: ast.AST, cls: ast.ClassDef) -> Optional[List[Site]]:
        """Every call of the method ``func`` of ``cls``, or ``None`` when not every
        call of it is in view: the file reads the method's name only as
        ``R.name(...)`` calls (:meth:`read_otherwise`), each on ``SELF`` in a
        method of the class (not in a nested function, a lambda or a
        comprehension), on an evident instance of it, or on one of another class
        that defines the method itself; and the class only to call it (its
        constructor) or as ``super``'s first argument (a subclass or a class
        passed around is not followed)."""
        name = func.name  # type: ignore[attr-defined]
        text = self.ctx.text
        spelled = f"{func.args.args[0].arg}.{name}("  # type: ignore[attr-defined]
        calls = text.count(spelled)
        if cls.name not in self._followed():
            return None
        read = self._instance_calls(cls, name)
        if read is None:
            return None
        instances, others = read
        if calls + len(instances) + others != len(self.attribute_calls().get(name, ())) \
                or self.read_otherwise(name) or not self._only_constructed(cls.name):
            return None
        found = self._class_calls(cls).get(name, [])
        if len(found) != calls or sum(1 for s in cls.body if getattr(s, "name", None) == name
                                      or not isinstance(s, _DEFINITIONS)
                                      and name in _class_bindings(s)) != 1:
            return None
        return found + instances

    def _instance_calls(self, cls: ast.ClassDef, name: str
                        ) -> Optional[Tuple[List[Site], int]]:
        """The calls ``R.name(...)`` outside ``SELF.name(...)`` whose receiver is
        evidently an instance of ``cls``: ``Cls(...)`` itself, or a name every
        binding of which (in the call's function, else at the top of the
        module) is one (``w = Walker(g)``, then ``w.degrees(ids)``); and how many
        are evidently on an instance of another module class that defines the
        method itself (``self.crf.loss(...)`` in ``Tagger.loss``); ``None``
        where another receiver calls a method of that name."""
        from .method_sites import defines
        from .objects import OBJECT, PLAIN
        from .values import FILE_CLASS, MODULE, values

        found: List[Site] = []
        others = 0
        for call, scope in self.attribute_calls().get(name, ()):
            receiver = call.func.value  # type: ignore[attr-defined]
            if self._instance(receiver, scope, cls.name):
                found.append((call, scope))
            elif self._own_receiver(receiver, scope, cls):
                continue
            else:  # (``self.memory.sample(n)``: the value facts know the receiver)
                facts = values(self.ctx)
                other = facts.of(receiver, scope)
                if other.name in (f"{FILE_CLASS}{cls.name}",
                                  f"{PLAIN}{self.ctx.filename}\0{cls.name}"):
                    found.append((call, scope))
                    continue
                if not (other.kind in (MODULE, OBJECT)
                        and defines(self.ctx, facts, other.name, name)):
                    return None
                others += 1
        return found, others

    def read_otherwise(self, name: str) -> bool:
        """Whether the file reads ``name`` otherwise than as ``R.name(...)``: an
        attribute not called (``f = obj.name``), a bare name, or a string that is
        the name (``getattr(obj, 'name')``); a docstring or a comment that uses the
        word is no use of it."""
        self.attribute_calls()
        return self._attributes_read.get(name, 0) != len(self._attributes.get(name, ())) \
            or name in self._names or name in self._strings  # type: ignore[union-attr]

    def _only_constructed(self, name: str) -> bool:
        """Whether the file reads the class ``name`` only to call it (``Cls(...)``)
        or as ``super``'s first argument: not subclassed, not passed around (a
        mention in a string or a comment is no use)."""
        self.attribute_calls()
        parents = self.ctx.file_parents()
        for node in self._names.get(name, ()):
            parent = parents.get(id(node))
            if not (isinstance(parent, ast.Call) and (parent.func is node or (
                    isinstance(parent.func, ast.Name) and parent.func.id == "super"
                    and parent.args and parent.args[0] is node))):
                return False
        return True

    def attribute_calls(self) -> Dict[str, List[Site]]:
        """Every ``R.name(...)`` call of the file, by ``name``, with the function (or
        module) it is read in, and the names it reads (one walk of the file, when
        first asked)."""
        found = self._attributes
        if found is None:
            found = self._attributes = {}
            names, read = self._names, self._attributes_read
            stack: List[Tuple[ast.AST, ast.AST]] = [(self.ctx.tree, self.ctx.tree)]
            while stack:
                node, scope = stack.pop()
                if node.__class__ is ast.Name:
                    names.setdefault(node.id, []).append(node)  # type: ignore[attr-defined]
                elif node.__class__ is ast.Attribute:
                    read[node.attr] = read.get(node.attr, 0) + 1  # type: ignore[attr-defined]
                elif node.__class__ is ast.Constant and isinstance(node.value, str) \
                        and node.value.isidentifier():  # type: ignore[attr-defined]
                    self._strings.add(node.value)  # type: ignore[attr-defined]
                elif node.__class__ is ast.Call and node.func.__class__ is ast.Attribute:
                    found.setdefault(node.func.attr, []).append((node, scope))
                inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    else scope
                stack += [(child, inner) for child in children(node)]
        return found

    def _instance(self, receiver: ast.AST, scope: ast.AST, cls: str) -> bool:
        if receiver.__class__ is ast.Call:
            return key(receiver.func) == cls  # type: ignore[attr-defined]
        if receiver.__class__ is not ast.Name:
            return False
        ctx = self.ctx
        defs = ctx.flow_of(scope).reaching(receiver)
        if defs is not None and not defs and scope is not ctx.tree:
            defs = tuple(ctx.flow_of(ctx.tree).defs(receiver.id))  # (a module's name)
        return bool(defs) and all(
            d.kind == "assign" and d.value.__class__ is ast.Call
            and key(d.value.func) == cls for d in defs)

    @staticmethod
    def _own_receiver(receiver: ast.AST, scope: ast.AST, cls: ast.ClassDef) -> bool:
        """``SELF`` in a method of ``cls`` (those calls are :meth:`_class_calls`')."""
        return receiver.__class__ is ast.Name and scope in cls.body \
            and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            and bool(scope.args.args) and scope.args.args[0].arg == receiver.id

    def _followed(self) -> Dict[str, ast.ClassDef]:
        """The module-level classes whose methods may be followed, by name."""
        found = self._classes
        if found is None:
            ctx = self.ctx
            found = self._classes = {
                name: d for name, d in ctx.defined_once().items()
                if isinstance(d, ast.ClassDef) and not d.decorator_list and not d.keywords
                and all(ctx.resolve(b) in PLAIN_BASES or key(b) == "object"
                        for b in d.bases)}
        return found

    def _class_calls(self, cls: ast.ClassDef) -> Dict[str, List[Site]]:
        """The calls ``SELF.name(...)`` in the methods of ``cls``, by name (one walk
        of the class's methods)."""
        found = self._calls.get(cls.name)
        if found is not None:
            return found
        found = self._calls[cls.name] = {}
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    or not method.args.args:
                continue
            receiver = method.args.args[0].arg
            stack: List[ast.AST] = list(method.body)
            while stack:
                node = stack.pop()
                if isinstance(node, _OPAQUE + _DEFINITIONS):
                    continue  # (another scope: not followed)
                if node.__class__ is ast.Call:
                    func = node.func
                    if func.__class__ is ast.Attribute and func.value.__class__ is ast.Name \
                            and func.value.id == receiver:
                        found.setdefault(func.attr, []).append((node, method))
                stack += children(node)
        return found


def some_method_sites(ctx, func: ast.AST) -> List[Site]:
    """Calls of the method ``func`` of a module-level class of the file that are
    evidently its: ``SELF.name(...)`` in the class's methods and calls on
    evident instances (see :meth:`MethodCallers._instance_calls`).  Not every
    caller: what one of them passes is passed, whatever the others do."""
    owner = ctx.statement_parents().get(id(func))
    name = getattr(func, "name", None)
    if not isinstance(owner, ast.ClassDef) or name is None \
            or ctx.defined_once().get(owner.name) is not owner:
        return []
    methods = file_method_callers(ctx)
    found = list(methods._class_calls(owner).get(name, []))
    for call, scope in methods.attribute_calls().get(name, ()):
        if methods._instance(call.func.value, scope, owner.name) \
                and (call, scope) not in found:  # type: ignore[attr-defined]
            found.append((call, scope))
    return found


def may_be_followed(ctx, func: ast.AST, across: bool = False) -> bool:
    """The cheap tests of a method (most are asked of no more): not one torch calls,
    not decorated, called as ``R.name(`` somewhere in the text (``across``: or
    maybe only in the project's other modules)."""
    name = func.name  # type: ignore[attr-defined]
    args = func.args.args  # type: ignore[attr-defined]
    if not args or name in MODULE_METHODS or func.decorator_list \
            or name.startswith("__") and name.endswith("__"):
        return False
    if across and ctx.filename:
        return True
    called = ctx.memo.setdefault("names called as methods", {})  # (a search of the text
    found = called.get(name)  # once per name: a file repeats its method names)
    if found is None:
        found = called[name] = f".{name}(" in ctx.text
    return found


def _class_bindings(stmt: ast.stmt) -> List[str]:
    """The names a statement of a class body binds (a method, an assignment)."""
    if isinstance(stmt, _DEFINITIONS):
        return [stmt.name]
    return [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
            and not isinstance(n.ctx, ast.Load)]


def default_of(func: ast.AST, param: ast.arg) -> Optional[ast.AST]:
    """The default of the parameter ``param`` of ``func`` (positional or keyword-only),
    or ``None``."""
    args = func.args  # type: ignore[attr-defined]
    positional = [*getattr(args, "posonlyargs", []), *args.args]
    if param in positional:
        first = len(positional) - len(args.defaults)
        i = positional.index(param)
        return args.defaults[i - first] if i >= first else None
    if param in args.kwonlyargs:
        return args.kw_defaults[args.kwonlyargs.index(param)]
    return None


def argument(call: ast.Call, func: ast.AST,
             param: ast.arg, method: bool = False) -> Optional[Tuple[ast.AST, bool]]:
    """The expression ``call`` passes for ``param`` of ``func``, and whether it is
    the parameter's default (read at the top of the module) because the call
    passes none; ``None`` when that is not evident (``*args``, ``**kw``).  A
    ``method``'s first parameter is the receiver, which the call does not pass."""
    if any(isinstance(a, ast.Starred) for a in call.args) \
            or any(kw.arg is None for kw in call.keywords):
        return None
    args = func.args  # type: ignore[attr-defined]
    positional = [*getattr(args, "posonlyargs", []), *args.args][1 if method else 0:]
    if param not in params_of(func) or param is args.vararg or param is args.kwarg:
        return None
    if method and param not in positional and param not in args.kwonlyargs:
        return None  # (the receiver)
    if param in positional:
        i = positional.index(param)
        if i < len(call.args):
            return call.args[i], False
    default = default_of(func, param)
    if len(call.args) > len(positional):
        return None  # (more positionals than parameters: not this function's call)
    for kw in call.keywords:
        if kw.arg == param.arg:
            return kw.value, False
    return (default, True) if default is not None else None


def _enclosing(ctx, func: ast.AST) -> Optional[ast.AST]:
    """The function whose body defines ``func`` (a statement of it), or ``None``:
    such a function is called only where the enclosing one can name it."""
    parent = ctx.statement_parents().get(id(func))
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and func in parent.body:
        return parent
    return None


def reaching_arguments(ctx, param: ast.arg, func: ast.AST) -> Optional[List[Site]]:
    """What reaches ``param`` of ``func`` from every caller: ``(expression, scope to
    read it in)`` per call site (a default is read at the top of the module), or
    ``None`` when not every caller is in view (see the module's docstring)."""
    found = _reaching(ctx, param, func, False)
    return None if found is None else [(expr, at) for _, expr, at in found]


def passed_arguments(ctx, param: ast.arg, func: ast.AST) -> Optional[List[Passed]]:
    """:func:`reaching_arguments`, each with the context of the module to read it
    in, and with the calls from the project's other modules that import a
    module-level function or class (:mod:`.importing`) where another file can
    import it."""
    return _reaching(ctx, param, func, True)


def _reaching(ctx, param: ast.arg, func: ast.AST, across: bool) -> Optional[List[Passed]]:
    memo = ctx.memo.setdefault("reaching arguments", {})
    k = (id(param), across)
    if k not in memo:
        memo[k] = _read_reaching(ctx, param, func, across)
    return memo[k]


def _read_reaching(ctx, param: ast.arg, func: ast.AST,
                   across: bool) -> Optional[List[Passed]]:
    from .project.importers import named_elsewhere

    name = getattr(func, "name", None)
    if name is None:
        return None
    owner = None
    enclosing = _enclosing(ctx, func)
    if name == "__init__" and enclosing is None:
        return _constructed(ctx, param, func, across)
    if enclosing is not None:
        inner = ctx.memo.setdefault("nested callers", {})
        callers = inner.get(id(enclosing))
        if callers is None:
            callers = inner[id(enclosing)] = Callers(
                enclosing, defined_once(enclosing), ctx.text)
        sites = callers.sites(func)
    elif ctx.defined_once().get(name) is not func:
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or not may_be_followed(ctx, func, across):
            return None
        owner = ctx.statement_parents().get(id(func))
        if not isinstance(owner, ast.ClassDef) or \
                ctx.defined_once().get(owner.name) is not owner:
            return None
        sites = file_method_callers(ctx).sites(func, owner)
        if sites is None:
            return None  # (none in the file: maybe all in the project's other modules)
    elsewhere = enclosing is None and bool(ctx.filename) and named_elsewhere(
        ctx.filename, name, imported=owner is None)
    if elsewhere and not across:
        return None  # (another module may import it: its callers are not in view)
    if owner is None and enclosing is None:
        sites = file_callers(ctx).sites(func)
    remote: Optional[List[Remote]] = []
    if elsewhere and sites is not None:  # (read only where the file's calls are known)
        remote = importing_sites(ctx, func) if owner is None else method_sites(ctx, owner, func)
    if not sites and not remote or remote is None:
        return None
    return _arguments(ctx, sites, remote, func, param, owner is not None,
                      enclosing or ctx.tree)  # type: ignore[arg-type]


def file_method_callers(ctx) -> "MethodCallers":
    """The file's :class:`MethodCallers` (made once per file)."""
    methods = ctx.memo.get("method callers")
    if methods is None:
        methods = ctx.memo["method callers"] = MethodCallers(ctx)
    return methods


def file_callers(ctx) -> Callers:
    """The file's :class:`Callers` of its module-level functions (made once per file)."""
    callers = ctx.memo.get("callers")
    if callers is None:
        callers = ctx.memo["callers"] = Callers(ctx.tree, ctx.defined_once(), ctx.text)
    return callers


def _constructed(ctx, param: ast.arg, func: ast.AST, across: bool) -> Optional[List[Passed]]:
    """What reaches ``param`` of the ``__init__`` of a module-level class from
    every call of the class (``Trainer(g, d)`` for ``def __init__(self, G, D)``),
    where they are all in view: the class is read only as the callee of plain
    calls in the file (no subclass, no ``isinstance``), and no other file of the
    project spells its name (``across``: or those that do call it only so,
    :mod:`.importing`)."""
    from .project.importers import named_elsewhere

    cls = ctx.statement_parents().get(id(func))
    if not isinstance(cls, ast.ClassDef) or ctx.defined_once().get(cls.name) is not cls \
            or sum(1 for s in cls.body if getattr(s, "name", None) == "__init__") != 1:
        return None
    elsewhere = bool(ctx.filename) and named_elsewhere(ctx.filename, cls.name, imported=True)
    if elsewhere and not across:
        return None
    sites = file_callers(ctx).class_sites(cls)
    remote = importing_sites(ctx, cls) if elsewhere and sites is not None else []
    if sites is None or remote is None or not sites and not remote:
        return None
    return _arguments(ctx, sites, remote, func, param, True, ctx.tree)


def method_arguments(ctx, sites: List[Site], method: ast.AST,
                     param: ast.arg) -> Optional[List[Site]]:
    """What the calls ``sites`` of ``method`` (bound: its first parameter is the
    receiver) pass for ``param``, or ``None`` where one passes nothing evident,
    or leaves a default other than a constant (read in the class body)."""
    found = _arguments(ctx, sites, [], method, param, True, ctx.tree)
    return None if found is None else [(expr, at) for _, expr, at in found]


def _arguments(ctx, sites: List[Site], remote: List[Remote], func: ast.AST, param: ast.arg,
               method: bool, top: ast.AST) -> Optional[List[Passed]]:
    """What the calls ``sites`` of the file and ``remote`` of other modules pass
    for ``param`` of ``func``, each with the context to read it in; a default is
    read in ``ctx`` at ``top`` (the module, or the function defining ``func``);
    ``None`` where a call passes nothing evident, or leaves a ``method``'s
    default other than a constant (evaluated in the class body)."""
    found: List[Passed] = []
    for other, call, scope in [(ctx, call, scope) for call, scope in sites] + remote:
        got = argument(call, func, param, method=method)
        if got is None or got[1] and method and not isinstance(got[0], ast.Constant):
            return None
        if not got[1] and reads_any(got[0], comprehension_names(other, call, scope)):
            return None  # (``[f(x) for x in xs]``: ``x`` is no name of ``scope``)
        found.append((ctx, got[0], top) if got[1] else (other, got[0], scope))
    return found


def comprehension_names(ctx, node: ast.AST, scope: ast.AST) -> frozenset:
    """The names the comprehensions around the call ``node`` bind (up to ``scope``,
    the function or module it is read in): a call in ``[f(x, opt) for x in xs]`` is
    read in the function around it, where ``opt`` is what it is and ``x`` is not.
    One walk of ``scope`` when first asked, and none where no line of it spells a
    ``for`` other than a loop's."""
    memo = ctx.memo.setdefault("comprehended calls", {})
    found = memo.get(id(scope))
    if found is None:
        found = memo[id(scope)] = _comprehended_calls(ctx, scope)
    return found.get(id(node), frozenset())


_INNER_FOR = re.compile(r"^(?!\s*(?:async\s+)?for\b).*\bfor\b")


def _comprehended_calls(ctx, scope: ast.AST) -> Dict[int, frozenset]:
    """``id(call) -> names`` for the calls of ``scope`` (not of the functions in it)
    inside comprehensions."""
    first, last = getattr(scope, "lineno", 1), getattr(scope, "end_lineno", None)
    lines = ctx.source.lines[first - 1:last]
    if not any(_INNER_FOR.match(line) for line in lines):
        return {}
    found: Dict[int, frozenset] = {}
    stack: List[Tuple[ast.AST, frozenset]] = [
        (child, frozenset()) for child in children(scope)]
    while stack:
        node, own = stack.pop()
        cls = node.__class__
        if cls in _DEFINITIONS or cls is ast.Lambda:
            continue  # (another scope)
        if cls in COMPREHENSIONS:
            own = own | comprehension_targets(node)
        elif cls is ast.Call and own:
            found[id(node)] = own
        stack += [(child, own) for child in children(node)]
    return found
