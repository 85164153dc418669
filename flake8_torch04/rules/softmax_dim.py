"""TV123: softmax, log_softmax and softmin without ``dim``."""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Tuple

from ..analysis.context import Context
from ..analysis.hierarchy import PLAIN_BASES, constructed, hierarchy
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.nodes import innermost
from ..analysis.registry import rule
from ..analysis.resolve import key, resolve
from ..analysis.values import TENSOR, values
from .shared.calls import append_arguments, argument, plain_arguments

_FUNCTIONS = {
    "torch.nn.functional.softmax": "softmax",
    "torch.nn.functional.log_softmax": "log_softmax",
    "torch.nn.functional.softmin": "softmin",
}
_MODULES = {
    "torch.nn.Softmax": "Softmax",
    "torch.nn.LogSoftmax": "LogSoftmax",
    "torch.nn.Softmin": "Softmin",
    "torch.nn.modules.activation.Softmax": "Softmax",
    "torch.nn.modules.activation.LogSoftmax": "LogSoftmax",
    "torch.nn.modules.activation.Softmin": "Softmin",
}


def _enclosing_class(ctx: Context) -> Optional[ast.ClassDef]:
    return innermost(ctx.parents, ast.ClassDef)  # type: ignore[return-value]


def implicit_dim(rank: int) -> int:
    """``torch.nn.functional._get_softmax_dim``."""
    return 0 if rank in (0, 1, 3) else 1


# -- the rule --------------------------------------------------------------


def _missing_dim(call: ast.Call, index: int) -> Optional[ast.AST]:
    """Whether ``dim`` is missing; returns the ``None`` given for it, if any
    (``call`` itself when it is absent), else ``None``."""
    given = argument(call, index, "dim")
    if given is None:
        return call
    if isinstance(given, ast.Constant) and given.value is None:
        return given
    return None


def _module_uses(ctx: Context, node: ast.Call) -> Optional[List[ast.AST]]:
    """The inputs of every call of the module ``node`` builds, when it is bound
    to ``self.NAME`` (calls in the class) or a local name (calls in the function)."""
    parent = ctx.parent
    if not (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1):
        return None
    target = parent.targets[0]
    k = key(target)
    if k is None:
        return None
    if isinstance(target, ast.Attribute):
        if not (isinstance(target.value, ast.Name) and target.value.id == "self"):
            return None
        scope = _enclosing_class(ctx)
    elif isinstance(target, ast.Name):
        scope = ctx.flow().node
    else:
        return None
    if scope is None:
        return None
    inputs = []
    for sub in ast.walk(scope):
        if isinstance(sub, ast.Name) and sub.id == k and isinstance(target, ast.Name) or (
            isinstance(sub, ast.Attribute) and key(sub) == k
        ):
            if isinstance(sub.ctx, ast.Store):
                continue
            inputs.append(sub)
    return inputs


@rule("TV123")
def softmax_dim(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags softmax, log_softmax and softmin without ``dim``.

    ## What it does
    Flags ``F.softmax(x)``, ``F.log_softmax(x)``, ``F.softmin(x)`` and
    ``nn.Softmax()``, ``nn.LogSoftmax()``, ``nn.Softmin()`` (resolved through
    imports) given no ``dim`` or ``dim=None``.  Position: the call.  ``dim``
    given by position (``F.softmax(x, 1)``) or keyword is fine.

    The input's rank is taken as evident only from simple, reliable evidence
    in the same function (or, for a module stored as ``self.NAME`` or a local
    name, from every call of it): ``x.view(-1, 320)``, ``x.view(n, c, h, w)``,
    ``x.reshape(...)``, ``x.flatten(1)``, ``torch.randn(4, 10)``,
    ``x.unsqueeze(0)`` of a value of known rank, ``torch.mv`` (1-D),
    ``torch.mm`` (2-D), ``torch.bmm`` (3-D), and rank-keeping steps from
    such a value: ``nn.Linear``, activations and dropout (functions, methods
    or modules bound to ``self.NAME`` in the class), ``.contiguous()``,
    ``.float()``, arithmetic with a number; followed through the assignments
    that reach the read (every one must agree).  A ``Linear`` output alone is
    not evidence: ``nn.Linear`` keeps every leading dimension, so its output
    has the rank of its input.

    Also flags building a class of the file, or of a project module it
    imports, that derives from ``nn.Softmax``, ``nn.LogSoftmax`` or
    ``nn.Softmin`` (directly or through other classes of the project, such as
    the mixin of ``class BottleSoftmax(Bottle, nn.Softmax)``;
    ``analysis/hierarchy.py``) without ``dim``: ``FlatSoftmax()``.  Its
    chain must be known in full (other bases only ``nn.Module`` or
    ``object``; no decorator, metaclass, ``__call__``, ``__setstate__``, class
    ``dim``, ``forward = ...`` or ``self.dim = ...``).  Where a class of the chain defines
    ``__init__``, the call is flagged only where every such ``__init__``
    evidently passes no ``dim``: it calls ``super().__init__()`` (or
    ``super(Cls, self).__init__()``) with no arguments, no other
    ``__init__``, and spells ``dim`` nowhere.  Where a class of the chain
    defines ``forward``, it must reach torch's (``super().forward(x)``,
    ``nn.Softmax.forward(self, x)``); a ``forward`` that does not is not
    flagged.  The input's rank is then the rank of what that ``forward``
    passes on (``x.view(-1, size[-1])``: 2-D) or, without a ``forward`` in
    the chain, of what the instance is called with, as above.  Uses of a
    class of the file count as spellings of its bases for the marker gate,
    as an import alias does (``Flat()`` after ``class Flat(nn.Softmax)``); a
    class imported from another module is seen where its name spells
    ``Softmax`` or ``Softmin`` (``BottleSoftmax()``).

    ## Why is this bad?
    Before PyTorch 0.3 these functions picked the dimension themselves: ``0``
    for 0-, 1- and 3-D inputs, ``1`` otherwise.  On PyTorch 2.13 they still
    do, and each call warns ``UserWarning: Implicit dimension choice for
    softmax has been deprecated. Change the call to include dim=X as an
    argument.``  The implicit choice is rarely what a 3-D input (sequence x
    batch x features) meant.

    ## Example
    ```python
    x = x.view(-1, 320)
    x = F.relu(self.fc1(x))
    return F.log_softmax(self.fc2(x))
    ```

    Use instead:
    ```python
    x = x.view(-1, 320)
    x = F.relu(self.fc1(x))
    return F.log_softmax(self.fc2(x), dim=1)
    ```

    ## Fix safety
    Where the input's rank is evident, the fix writes the dimension torch
    picked implicitly (``dim=1`` for 2-D, ``dim=0`` for 1- and 3-D): *safe*,
    the same numbers.  Elsewhere the fix writes ``dim=1`` and is *unsafe*: it
    changes the result for 1-D and 3-D inputs, where the implicit choice was
    ``0`` (check that this is the dimension you mean); where the input is the
    result of ``x.squeeze()`` without a dim (directly, or through a name every
    binding of which is one), its rank depends on the sizes at run time (a
    training batch ``(N, 1, C)`` gives 2-D, one sampled step ``(1, 1, C)``
    1-D), and the unsafe fix writes ``dim=-1``: torch's implicit choice for 0-,
    1- and 2-D inputs alike, where ``dim=1`` raises ``IndexError: Dimension out
    of range (expected to be in range of [-1, 0], but got 1)`` on the 1-D call
    (a squeezed 3- or 4-D input, whose implicit dim was ``0`` or ``1``, differs);
    where the input is arithmetic
    between a tensor of evident rank and a value of unknown kind (``theta * logits``
    with ``logits`` 1-D and ``theta = args.theta``), the unsafe fix writes that
    tensor's implicit dim instead, and the message says so.

    For a class on ``nn.Softmax``, the same *safe* fix (``FlatSoftmax(dim=1)``)
    where the rank is evident; elsewhere a message and no fix (a ``forward``
    that passes torch's ``x`` itself on one path and a 2-D view on another,
    as ``Bottle`` does; more than one ``forward`` in the chain), and none
    either where the class's own ``__init__`` calls ``nn.Softmax``'s: the
    ``dim`` belongs there.
    """
    qualname = ctx.resolve(node.func)
    if qualname in _FUNCTIONS:
        if not node.args or not plain_arguments(node):
            return
        missing = _missing_dim(node, 1)
        inputs: Optional[List[ast.AST]] = [node.args[0]]
        name = ctx.source.quote(node.func, 30)
    elif qualname in _MODULES:
        if not plain_arguments(node):
            return
        missing = _missing_dim(node, 0)
        inputs = None
        name = ctx.source.quote(node.func, 30)
    else:
        yield from _subclass(ctx, node, qualname)
        return
    if missing is None:
        return
    rank = None
    if qualname in _MODULES:
        inputs = _instance_inputs(ctx, node)
    if inputs:
        rank = _rank(ctx, inputs)
    guess = None
    squeezed = rank is None and bool(inputs) and all(_squeezed(ctx, i) for i in inputs)
    if rank is not None:
        dim, safety = implicit_dim(rank), SAFE
        why = f"its input is {rank}-D here, so torch picks dim={dim}"
    elif squeezed:
        dim, safety = -1, UNSAFE
        why = ("its input is squeezed, so its rank depends on the sizes at run time: "
               "torch picks dim=0 for a 0- or 1-D input, 1 for a 2-D one, the last dim "
               "for all three")
    else:
        guess = _operand(ctx, inputs) if inputs and len(inputs) == 1 else None
        dim, safety = implicit_dim(guess[1]) if guess else 1, UNSAFE
        why = "torch picks dim=0 for 0-, 1- and 3-D inputs, else 1"
    src = ctx.source
    if missing is node:
        edit = append_arguments(ctx, node, f"dim={dim}")
    else:
        edit = src.replace(missing, str(dim))
    fix = Fix((edit,), safety) if edit is not None else None
    yield Report(
        node,
        f"`{name}` without dim is deprecated since PyTorch 0.3 ({why}); "
        f"pass `dim={dim}`" + ("" if rank is not None else
                               " (`dim=1` fails on a 1-D input)" if squeezed else
                               f" if the input is {guess[1]}-D as `{guess[0]}` is" if guess
                               else " if that is the class dimension"),
        fix,
    )


def _rank(ctx: Context, inputs: List[ast.AST], scope: Optional[ast.AST] = None
          ) -> Optional[int]:
    """The rank every one of ``inputs`` (expressions of ``ctx``'s file, in the function
    ``scope`` if given) has, if they agree."""
    facts = values(ctx)
    found = [facts.of(i, scope or _function_of(ctx, i)) for i in inputs]
    ranks = {v.rank if v.kind in (TENSOR, None) else None for v in found}
    return ranks.pop() if len(ranks) == 1 else None


def _squeezed(ctx: Context, node: ast.AST) -> bool:
    """``x.squeeze()`` or ``torch.squeeze(x)`` without a dim, or a name every binding
    of which that reaches ``node`` is one: a value whose rank only the sizes tell."""
    if isinstance(node, ast.Name):
        defs = ctx.flow_of(_function_of(ctx, node)).reaching(node)
        return bool(defs) and all(d.kind == "assign" and d.value is not None
                                  and _squeeze_call(ctx, d.value) for d in defs)
    return _squeeze_call(ctx, node)


def _squeeze_call(ctx: Context, node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or node.keywords:
        return False
    name = ctx.resolve(node.func)
    if name == "torch.squeeze":
        return len(node.args) == 1 and not isinstance(node.args[0], ast.Starred)
    return name is None and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "squeeze" and not node.args


def _instance_inputs(ctx: Context, node: ast.Call) -> Optional[List[ast.AST]]:
    """What every call of the module ``node`` builds passes it (see :func:`_module_uses`)."""
    uses = _module_uses(ctx, node)
    return _call_inputs(ctx, uses) if uses else None


def _call_inputs(ctx: Context, uses: List[ast.AST]) -> Optional[List[ast.AST]]:
    """The first argument of each call of the module (``None`` if it is used otherwise)."""
    parents = {}
    scope = _enclosing_class(ctx) or ctx.flow().node
    for sub in ast.walk(scope):
        for child in ast.iter_child_nodes(sub):
            parents[id(child)] = sub
    inputs = []
    for use in uses:
        call = parents.get(id(use))
        if not (isinstance(call, ast.Call) and call.func is use and len(call.args) == 1
                and not call.keywords):
            return None
        inputs.append(call.args[0])
    return inputs


def _operand(ctx: Context, inputs: List[ast.AST]) -> Optional[Tuple[str, int]]:
    """For an unsafe fix only: ``s * scale`` with ``s`` of known rank and ``scale`` of
    unknown kind (``args.theta``) is most likely of ``s``'s rank (the operand's text and
    rank), where ``scale`` is a number; a tensor ``scale`` could broadcast it higher."""
    node = inputs[0]
    if not isinstance(node, ast.BinOp):
        return None
    facts, scope = values(ctx), _function_of(ctx, node)
    left, right = facts.of(node.left, scope), facts.of(node.right, scope)
    for known, other, operand in ((left, right, node.left), (right, left, node.right)):
        if known.tensor and known.rank is not None and other.kind is None:
            return ctx.source.quote(operand, 20), known.rank
    return None


def _function_of(ctx: Context, node: ast.AST) -> ast.AST:
    """The function (or module) around ``node``."""
    parents = ctx.file_parents()
    parent = parents.get(id(node))
    while parent is not None and not isinstance(
            parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        parent = parents.get(id(parent))
    return parent if parent is not None else ctx.tree


# -- classes on nn.Softmax -------------------------------------------------

#: methods that may change what an instance is, does or holds as ``dim``
_OPAQUE = frozenset(("__new__", "__call__", "__setattr__", "__getattr__",
                     "__getattribute__", "__setstate__", "_call_impl"))
_FUNCTION_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _subclass(ctx: Context, node: ast.Call, qualname: Optional[str]) -> Iterator[Report]:
    """A class of the project on ``nn.Softmax``/``LogSoftmax``/``Softmin`` (through
    other classes of the project too: ``class BottleSoftmax(Bottle, nn.Softmax)``)
    built without ``dim``: where ``nn.Softmax.__init__`` evidently gets none, and
    the instance's calls evidently reach ``nn.Softmax.forward``."""
    made = constructed(ctx, node.func, qualname)
    if made is None:
        return
    found = hierarchy(*made)
    if found is None:
        return
    kinds = {_MODULES[q] for q in found.outside if q in _MODULES}
    if len(kinds) != 1 or not found.outside <= PLAIN_BASES | _MODULES.keys():
        return  # (another base may define ``__init__``/``forward`` before torch's)
    kind = kinds.pop()
    methods = [(other, cls, {item.name: item for item in cls.body
                             if isinstance(item, _FUNCTION_DEFS)})
               for other, cls in found.classes]
    if any(_OPAQUE & defined.keys() or _sets_dim(cls) for _, cls, defined in methods):
        return
    inits = [(cls, defined["__init__"]) for _, cls, defined in methods
             if "__init__" in defined]
    if inits:  # (its own ``__init__``: flagged where it evidently passes no ``dim``)
        if any(kw.arg == "dim" for kw in node.keywords) or not all(
                _init_without_dim(cls, init) for cls, init in inits):
            return
        missing: Optional[ast.AST] = node
    else:
        if not plain_arguments(node):
            return
        missing = _missing_dim(node, 0)
        if missing is None:
            return
    forwards = [(other, cls, defined["forward"]) for other, cls, defined in methods
                if "forward" in defined]
    reaching = [_super_forwards(other, cls, forward) for other, cls, forward in forwards]
    if any(calls is not None and not calls for calls in reaching):
        return  # (a ``forward`` of its own that does not call torch's)
    if not forwards:
        inputs = _instance_inputs(ctx, node)
        rank = _rank(ctx, inputs) if inputs else None
        reaches = "its input"
    elif len(forwards) == 1 and reaching[0]:
        other, _, forward = forwards[0]
        rank = _rank(other, reaching[0], forward)  # type: ignore[arg-type]
        reaches = f"what its `forward` passes to `nn.{kind}.forward`"
    else:
        rank = None
    name = ctx.source.quote(node.func, 30)
    what = f"`{name}` (on `nn.{kind}`)"
    if inits:
        yield Report(node, f"{what} calls `nn.{kind}.__init__` without dim in its `__init__`, "
                     f"deprecated since PyTorch 0.3 (every call warns; torch picks dim=0 "
                     f"for 0-, 1- and 3-D inputs, else 1); pass `dim=` there", None)
        return
    if rank is None:
        yield Report(node, f"{what} without dim is deprecated since PyTorch 0.3 (every call "
                     f"warns; torch picks dim=0 for 0-, 1- and 3-D inputs, else 1); "
                     f"pass `dim=` the class dimension", None)
        return
    dim = implicit_dim(rank)
    edit = append_arguments(ctx, node, f"dim={dim}") if missing is node \
        else ctx.source.replace(missing, str(dim))
    yield Report(
        node,
        f"{what} without dim is deprecated since PyTorch 0.3 ({reaches} is {rank}-D here, "
        f"so torch picks dim={dim}); pass `dim={dim}`",
        Fix((edit,), SAFE) if edit is not None else None,
    )


def _super_forwards(ctx: Context, cls: ast.ClassDef, forward: ast.AST
                    ) -> Optional[List[ast.AST]]:
    """The input of each call of the next ``forward`` in ``forward``, a method of
    ``cls``: ``super(Cls, self).forward(x)``, ``super().forward(x)``,
    ``nn.Softmax.forward(self, x)``; ``None`` where one passes anything else."""
    inputs: List[ast.AST] = []
    params = forward.args.args  # type: ignore[attr-defined]
    own = params[0].arg if params else None
    module = ctx.scope.module()
    for sub in ast.walk(forward):
        if not (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                and sub.func.attr == "forward"):
            continue
        receiver, args = sub.func.value, list(sub.args)
        if _is_super(receiver, cls, own):
            pass
        elif resolve(receiver, module) in _MODULES and args and isinstance(args[0], ast.Name) \
                and args[0].id == own:
            args = args[1:]
        else:
            continue
        if sub.keywords or len(args) != 1 or isinstance(args[0], ast.Starred):
            return None
        inputs.append(args[0])
    return inputs


def _is_super(node: ast.AST, cls: ast.ClassDef, own: Optional[str]) -> bool:
    """``super()`` or ``super(Cls, self)`` (``self``: the method's first parameter)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "super" and not node.keywords):
        return False
    args = node.args
    return not args or (len(args) == 2 and isinstance(args[0], ast.Name)
                        and args[0].id == cls.name and isinstance(args[1], ast.Name)
                        and args[1].id == own)


def _init_without_dim(cls: ast.ClassDef, init: ast.AST) -> bool:
    """Whether the ``__init__`` of ``cls`` evidently calls the next ``__init__`` without
    ``dim``: ``super().__init__()`` (or ``super(Cls, self).__init__()``) with no
    arguments and no other ``__init__`` call (``nn.Module.__init__(self)`` would skip
    ``nn.Softmax``'s), and it spells no ``dim`` at all (a parameter, a keyword, an
    attribute, a string) nor ``setattr``/``__dict__``."""
    params = init.args.args  # type: ignore[attr-defined]
    own = params[0].arg if params else None
    calls = 0
    for sub in ast.walk(init):
        if isinstance(sub, ast.Name) and sub.id in ("dim", "setattr") or \
                isinstance(sub, ast.Attribute) and sub.attr in ("dim", "__dict__") or \
                isinstance(sub, ast.arg) and sub.arg == "dim" or \
                isinstance(sub, ast.keyword) and sub.arg == "dim" or \
                isinstance(sub, ast.Constant) and sub.value == "dim":
            return False
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                and sub.func.attr == "__init__":
            if sub.args or sub.keywords or not _is_super(sub.func.value, cls, own):
                return False
            calls += 1
        elif isinstance(sub, ast.Attribute) and sub.attr == "__init__" \
                and not isinstance(sub.value, ast.Call):
            return False  # (``init = nn.Module.__init__``)
    return calls > 0


def _sets_dim(cls: ast.ClassDef) -> bool:
    """Whether the class stores ``X.dim`` or calls ``setattr`` anywhere, or binds
    ``dim``, ``forward`` or ``__init__`` in its body otherwise than by a ``def``
    (``dim = 1``, ``forward = nn.Softmax.forward``)."""
    for sub in ast.walk(cls):
        if isinstance(sub, ast.Attribute) and sub.attr == "dim" and \
                isinstance(sub.ctx, (ast.Store, ast.Del)) or \
                isinstance(sub, ast.Name) and sub.id == "setattr":
            return True
    return any(isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and any(
        isinstance(n, ast.Name) and n.id in ("dim", "forward", "__init__") for t in (
            stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        for n in ast.walk(t)) for stmt in cls.body)
