"""TV107: an element of a 1-D tensor (0-dim since 0.4) used where 0.3 gave one element."""
from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ..analysis.canonical import LEGACY_TENSOR_TYPES, VARIABLE
from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.flow import Flow
from ..analysis.nodes import innermost
from ..analysis.registry import rule
from ..analysis.resolve import builtin_call, key
from ..analysis.values import DICT, LIST, OBJECT, value_of, values
from ..source.text import shorten
from .shared.calls import method_call, method_edit
from .shared.number_returns import made_by_number_return

#: losses whose target holds class indices, one per sample
_CLASS_LOSSES = frozenset((
    "torch.nn.functional.nll_loss", "torch.nn.functional.cross_entropy",
))
_CLASS_LOSS_MODULES = frozenset(("torch.nn.NLLLoss", "torch.nn.CrossEntropyLoss",
                                 "torch.nn.NLLLoss2d"))
#: factories of 1-D tensors from one argument (a length or a list)
_ONE_D_FACTORIES = frozenset((
    "torch.zeros", "torch.ones", "torch.arange", "torch.randperm", "torch.rand", "torch.randn",
    "torch.empty", "torch.tensor", "torch.Tensor", "torch.LongTensor", "torch.from_numpy",
)) | LEGACY_TENSOR_TYPES
#: methods that keep a tensor 1-D
_KEEP_SHAPE = frozenset(("long", "cuda", "cpu", "float", "int", "double", "detach",
                         "clone", "contiguous", "to"))
#: methods only torch tensors have, whose result's elements are tensors
_TORCH_ONLY = frozenset(("topk", "multinomial"))
#: methods whose result is a tensor when the receiver went through ``.data``
_INDEX_RESULTS = frozenset(("max", "min", "sort", "argmax", "argmin"))
#: a callee named for a loss: the marker of a finding at a plain name target
_LOSS_TEXT = re.compile(r"loss|crit|nll|cross_entropy", re.I)
_JSON = frozenset(("json.dump", "json.dumps"))
#: names of mappings from ids: ``idx2word``, ``index_to_label``, ``itos``
_MAPPING_NAME = re.compile(
    r"(?:^|_)(?:idx|index|ind|ids?|ix|i|words?|chars?|labels?|class(?:es)?|cls|tokens?|tok"
    r"|cat(?:egory|egories|s)?|w|c|s)(?:2|_to_)[a-z]|^(?:itos|stoi|vocab)$",
    re.I,
)
#: torch functions whose results are Python values, not tensors
_NOT_TENSORS = ("torch.utils.", "torch.load", "torch.cuda.", "torch.backends.",
                "torch.distributed.", "torch.get_", "torch.is_", "torch.Size")
_DICT_CALLS = frozenset(("dict", "collections.OrderedDict", "collections.defaultdict",
                         "collections.Counter", "OrderedDict", "defaultdict", "Counter"))
_MAX_DEPTH = 5


@rule("TV107")
def tensor_element(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags an element of a tensor used where PyTorch 0.3 gave a number or a 1-element tensor.

    ## What it does
    Flags, in files that import torch:

    - the target of a class-index loss -- ``F.nll_loss``, ``F.cross_entropy``,
      an ``nn.NLLLoss``/``nn.CrossEntropyLoss`` instance (also through a name
      assigned one) -- that is evidently a 0-dim tensor by the value facts
      (``analysis/values.py``): ``target[i]`` of a 1-D ``target`` (built in the
      file by ``torch.LongTensor([...])``, ``torch.LongTensor(ids)`` of a list of
      numbers, ``torch.zeros(n)``, ``Variable(...)``/``.long()``/``.cuda()`` of
      one, or returned by a function of the file), or the loop variable of
      ``for label in labels``, ``zip(inputs, labels)``, ``enumerate(labels)``
      over one;
    - a dict key (``idx2word[ni]``, ``d.get(ni)``, ``ni in d``; ``self.graph[ni]``
      where the value facts know ``self.graph`` for a dict, a ``defaultdict`` the
      class makes or its callers give it) or a value
      ``json.dump``-ed that is an element of a torch tensor: ``ni =
      topi[0][0]`` after ``topv, topi = out.data.topk(1)``,
      ``torch.multinomial(p, 1)[0]``, ``pred.data[0]`` after ``_, pred =
      torch.max(out, 1)``, a loop variable of ``for t in tensor_1d``; read as a
      key, also a loop variable over an integer tensor of unknown rank (``[ix2word[w]
      for w in batch[:, i]]`` of a DataLoader's ``batch.long()``), or over a list
      the function appends such elements to and keeps to itself
      (``picked.append(top[0][k])`` in a beam search): a row would have missed on
      0.3 too, so the code ran with numbers there;
    - a member of a set display (``set([label])``, ``frozenset([label])``,
      ``{label}``) that is such an element, or one of a 1-D integer tensor
      the value facts know (``self.labels[i]`` where the class keeps an MNIST
      dataset's ``train_labels``, a 1-D ``LongTensor``), also an item of a
      member pair and the member of a set comprehension (``set([(a, b) for a, b
      in pairs])`` over the rows of a 2-D integer tensor): the set of numbers of
      0.3 is a set of tensors now, and ``classes - set([label])`` removes nothing;
    - ``str()`` of such an element looked up as a key (``i2w[str(w)]``,
      ``i2w.get(str(w))``, ``str(w) in i2w``: a vocabulary read back from
      JSON has string keys), unless the file stores into that dict with a
      ``str()`` key itself (then its keys are made the same way on both);
      for ``[...]`` and ``.get()`` whatever the container (only a mapping
      looks up a string: a vocabulary a method of another module reads),
      for ``in`` (a substring test too) one that is a dict as below.
      The container must be a dict by its construction in the file or by
      its name (``idx2word``, ``index_to_label``, ``itos``), unless the file
      or a project module it imports makes that name a list or a tuple
      (``self.idx2word = []`` in ``data.py``).

    Not flagged: elements of lists, numpy arrays or values of unknown origin,
    indexing a list or string with a tensor (``__index__`` works),
    ``target[i]`` of a 2-D target (a 1-element row), slices, an element of a
    0-dim element (``pred.data[0][0]`` of a 1-D ``pred``: the indexing itself
    fails, as it did on 0.3, where ``pred.data[0]`` was an int).

    ## Why is this bad?
    Since PyTorch 0.4 indexing a 1-D tensor gives a 0-dim tensor, where 0.3
    gave a Python number (tensors) or a one-element tensor (Variables).  A
    0-dim target makes ``nll_loss`` raise ``ValueError: Expected input
    batch_size (1) to match target batch_size (0)``; a tensor used as a dict
    key hashes by identity (``KeyError: tensor(4)``), and ``str()`` of it is
    ``'tensor(4)'`` where 0.3 gave ``'4'`` (``KeyError: 'tensor(4)'``); ``json.dump`` raises
    ``TypeError: Object of type Tensor is not JSON serializable``.  In a set, an
    element equal to a number is another member: ``{0, 1} - {labels[1]}`` is
    ``{0, 1, tensor(1)}``, so a "different" class may be the same one.

    ## Example
    ```python
    loss += criterion(output, target[i])
    topv, topi = output.data.topk(1)
    word = index2word[topi[0][0]]
    ```

    Use instead:
    ```python
    loss += criterion(output, target[i].view(1))
    topv, topi = output.data.topk(1)
    word = index2word[topi[0][0].item()]
    ```

    ## Fix safety
    The fixes are *unsafe*: ``target[i].view(1)`` (a loss target) and ``key.item()`` (a dict
    key or JSON value, also inside ``str()``) restore the one-element tensor and the number
    0.3 gave, but the evidence that the value is a tensor element is heuristic, and
    ``.item()`` moves a CUDA value to the host.
    """
    if not ctx.imports_torch:
        return
    if isinstance(node, ast.Call):
        yield from _call(ctx, node)
    elif isinstance(node, ast.Subscript):
        load = isinstance(node.ctx, ast.Load)
        report = _dict_key(ctx, node.value, node.slice, load, looked_up=load)
        if report is not None:
            yield report
    elif isinstance(node, ast.Set):
        yield from _set_members(ctx, node.elts)
    elif isinstance(node, ast.SetComp):
        yield from _set_members(ctx, (node.elt,))
    elif isinstance(node, ast.Compare):
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            report = _dict_key(ctx, node.comparators[0], node.left, compared=True)
            if report is not None:
                yield report


def _call(ctx: Context, node: ast.Call) -> Iterator[Report]:
    if not node.args:
        return  # (every finding at a call is an argument of it)
    func = node.func
    name = ctx.resolve(func)
    if name in _JSON and node.args:
        for value in _json_values(node.args[0]):
            if _element(ctx, value, set(), 0) and not made_by_number_return(ctx, value):
                yield _item_report(ctx, value, "is not JSON serializable (TypeError)")
        return
    if builtin_call(node, ctx.scope, "set", 1) or builtin_call(node, ctx.scope, "frozenset", 1):
        members = node.args[0]
        if isinstance(members, (ast.List, ast.Tuple)):  # (``set([label])``)
            yield from _set_members(ctx, members.elts)
        elif isinstance(members, (ast.ListComp, ast.GeneratorExp)):  # (``set([(a, b) for ...])``)
            yield from _set_members(ctx, (members.elt,))
        return
    if isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault"):
        if node.args and not isinstance(node.args[0], ast.Starred):
            report = _dict_key(ctx, func.value, node.args[0],
                               looked_up=func.attr != "setdefault")
            if report is not None:
                yield report
        return
    if len(node.args) < 2:
        return
    target = node.args[1]
    # the cheap tests of the target first: ``_class_loss`` and ``_one_d_element``
    # may build the flow of the function
    if isinstance(target, ast.Subscript):
        if not _plain_index(target.slice):
            return
    elif isinstance(target, ast.Name):
        if not (name in _CLASS_LOSSES or _LOSS_TEXT.search(ctx.source.text(func))):
            return  # (the marker of a loop variable's finding is the loss's name)
    else:
        return
    if not _class_loss(ctx, node, name, exact=False) or not _may_be_one_d_element(ctx, target):
        return  # (decided without a flow)
    # (the target first: it is most often ruled out without a flow, and the
    # callee, a loss by its assignments in the file, seldom is)
    if not _one_d_element(ctx, target) or not _class_loss(ctx, node, name):
        return
    src = ctx.source
    fixed = f"{src.text(target)}.view(1)"
    yield Report(
        target,
        f"`{src.quote(target, 30)}` is a 0-dim tensor since PyTorch 0.4: the loss raises "
        f"ValueError (target batch size 0); use `{shorten(fixed, 40)}`",
        Fix((src.replace(target, fixed),), UNSAFE),
    )


def _set_members(ctx: Context, elts: Sequence[ast.AST]) -> Iterator[Report]:
    """The members of a set display (``{label}``, ``set([label])``) that are tensor
    elements: a set of numbers on 0.3, of tensors that hash by identity now."""
    for elt in elts:
        if isinstance(elt, ast.Tuple):  # (a pair of elements: ``{(a, b) for a, b in pairs}``)
            yield from _set_members(ctx, elt.elts)
        elif not isinstance(elt, ast.Starred) and _may_be_element(ctx, elt) \
                and _element(ctx, elt, set(), 0) and not made_by_number_return(ctx, elt):
            yield _item_report(ctx, elt, "hashes by identity in a set (an equal number is "
                               "another member: `-`, `in`, `discard` miss it)")


def _may_be_one_d_element(ctx: Context, target: ast.AST) -> bool:
    """Whether :func:`_one_d_element` can hold, from the names the file binds
    alone: a loop variable, or an index into a name the file assigns."""
    if isinstance(target, ast.Name):
        _assigned_names(ctx)
        return target.id in ctx.memo["TV107 loops"]  # type: ignore[operator]
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return target.value.id in _assigned_names(ctx)
    return True


def _one_d_element(ctx: Context, target: ast.AST) -> bool:
    """``target[i]`` of a 1-D tensor, or ``t`` of ``for t in tensor_1d`` (also through
    ``zip``/``enumerate``): a 0-dim tensor by the value facts."""
    if isinstance(target, ast.Subscript):
        # (a plain index, ``t[i]``, is taken for an integer: a loss target is no
        # place for a tensor index)
        whole = value_of(ctx, target.value)
        return _plain_index(target.slice) and whole.tensor and whole.rank == 1 \
            and whole.dtype != "float"
    value = value_of(ctx, target)
    return value.tensor and value.rank == 0 and value.dtype != "float"


def _json_values(node: ast.AST) -> Sequence[ast.AST]:
    if isinstance(node, ast.Dict):
        return [v for v in node.values if v is not None]
    if isinstance(node, (ast.List, ast.Tuple)):
        return node.elts
    return [node]


def _item_report(ctx: Context, value: ast.AST, why: str) -> Report:
    src = ctx.source
    fixed = method_call(src, value, "item")
    return Report(
        value,
        f"`{src.quote(value, 30)}` is a 0-dim tensor since PyTorch 0.4 (0.3 gave a number) "
        f"and {why}; use `{shorten(fixed, 40)}`",
        Fix((src.replace(value, fixed),), UNSAFE),
    )


def _dict_key(ctx: Context, container: ast.AST, index: ast.AST, read: bool = False,
              looked_up: bool = True, compared: bool = False,
              stringed: bool = False) -> Optional[Report]:
    """The report of ``index``, a key of ``container`` (``looked_up``: a lookup,
    not a store; ``compared``: ``index in container``), when it is a tensor
    element (or ``str()`` of one: ``stringed``, the lookup of a string, which
    only a mapping answers, whatever the facts know of ``container``)."""
    if isinstance(index, (ast.Slice, ast.Tuple, ast.Constant)):
        return None
    if builtin_call(index, ctx.scope, "str", 1):
        return _string_key(ctx, container, index, read, compared) if looked_up else None
    k = key(container)  # (the cheaper tests first: :func:`_mapping` without the file's names)
    if k is None:
        return None
    dotted = "." in k and not _MAPPING_NAME.search(k.rsplit(".", 1)[-1])
    if dotted and not k.startswith("self.") and not stringed:
        return None
    if not _may_be_element(ctx, index):
        return None
    if not stringed and not (
            _mapping_value(ctx, container) if dotted else _mapping(ctx, container)):
        return None
    if not _element(ctx, index, set(), 0) and not (read and _iterated_element(ctx, index)):
        return None
    if isinstance(index, ast.Subscript):
        inner = value_of(ctx, index.value)  # (``p.data[0][0]`` of a 1-D ``p``: the
        if inner.tensor and inner.rank == 0:  # indexing fails, on 0.3 too: not a key)
            return None
    elif made_by_number_return(ctx, index):
        return None  # (TV144 puts its ``.item()`` at the ``return`` that makes it)
    value = value_of(ctx, container)
    missed = ("a defaultdict adds an empty entry: no error, other numbers"
              if value.kind == OBJECT and value.name == "collections.defaultdict" else "KeyError")
    return _item_report(ctx, index, f"hashes by identity as a dict key ({missed})")


def _string_key(ctx: Context, container: ast.AST, call: ast.Call,
                read: bool, compared: bool) -> Optional[Report]:
    """``d[str(w)]``, ``d.get(str(w))``, ``str(w) in d`` with ``w`` a tensor element:
    0.3's ``str(13)`` was ``'13'`` (a vocabulary read back from JSON has such keys),
    today's is ``'tensor(13)'``.  A lookup of a string is a mapping's (a vocabulary
    a method of another module reads from JSON, whose facts are not followed); ``in``
    is a mapping's only where the facts or the file say so (``str(w) in text``).
    Left alone where the file stores ``d[str(...)]`` itself: then its keys are
    made the same way on both."""
    inner = call.args[0]
    if isinstance(inner, (ast.Slice, ast.Tuple, ast.Constant)):
        return None
    report = _dict_key(ctx, container, inner, read, compared=compared, stringed=not compared)
    if report is None or key(container) in _stored_with_str(ctx):
        return None
    src = ctx.source
    edit = method_edit(src, inner, "item()")
    return Report(
        call,
        f"`{src.quote(call, 30)}` is `'tensor(...)'` since PyTorch 0.4 (`{src.quote(inner, 20)}`"
        f" is a 0-dim tensor; 0.3 gave a number), no key of the dict (KeyError); use "
        f"`str({shorten(method_call(src, inner, 'item'), 30)})`",
        Fix((edit,), UNSAFE) if edit is not None else None,
    )


def _stored_with_str(ctx: Context) -> Set[str]:
    """The containers the file stores into with a ``str()`` key (``d[str(w)] = i``,
    ``d.setdefault(str(w), ...)``), once per file."""
    found = ctx.memo.get("TV107 str keys")
    if found is None:
        found = ctx.memo["TV107 str keys"] = set()
        for node in ast.walk(ctx.tree):
            if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
                container, index = node.value, node.slice
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "setdefault" and node.args:
                container, index = node.func.value, node.args[0]
            else:
                continue
            if isinstance(index, ast.Call) and isinstance(index.func, ast.Name) \
                    and index.func.id == "str":
                found.add(key(container))  # type: ignore[union-attr]
    return found  # type: ignore[return-value]


def _iterated_element(ctx: Context, index: ast.AST) -> bool:
    """``index`` is a variable of loops over an integer tensor of rank 1 or of
    unknown rank (``for w in batch[:, i]`` of a DataLoader's batch), or over a
    list of integer tensors of rank 0 or unknown (``words.append(topi[0][i])``):
    read as a dict key, it was a number on 0.3 (a row hashes by identity there
    too, so the lookup could only have worked with numbers)."""
    if not isinstance(index, ast.Name):
        return False
    facts = values(ctx)
    defs = ctx.flow().reaching(index)
    for d in defs or ():
        iterable = facts.iterated(d) if d.kind in ("for", "comp") else None
        whole = facts.of(iterable) if isinstance(iterable, ast.expr) else None
        rank = 1
        if whole is not None and whole.kind == LIST:  # (of evident integer elements)
            whole, rank = whole.element(), 0
            if whole.dtype != "int":
                return False
        if whole is None or not whole.tensor or whole.dtype == "float" or \
                whole.rank not in (None, rank):
            return False
    return bool(defs)


def _plain_index(index: ast.AST) -> bool:
    if isinstance(index, ast.Name):
        return True
    return isinstance(index, ast.Constant) and type(index.value) is int


# ---------------------------------------------------------------------------
# evidence


def _flows(ctx: Context) -> List[Flow]:
    """The flow of the function around the node, then the module's."""
    flows = [ctx.flow()]
    if ctx.scope.function() is not None:
        module = ctx.memo.get("TV107 module flow")
        if module is None:
            module = ctx.memo["TV107 module flow"] = Flow(ctx.tree, ctx)
        flows.append(module)  # type: ignore[arg-type]
    return flows


def _assigned_here(ctx: Context, k: str) -> Optional[List[ast.AST]]:
    """What the function around the node (or the module) assigns to ``k`` by
    ``=``, ``+=``, ``:=`` or an annotated assignment (``None``: too many to
    list), from its statements alone.  Each is the value of a binding of
    ``k`` there, which :func:`_values` meets: the first flow it asks has a
    binding of ``k`` when this is not ``[]``, and one that is no ``for``."""
    return ctx.flow().assignments_to(k)


def _values(ctx: Context, k: str) -> Optional[List[ast.AST]]:
    """What ``k`` is assigned (``=``, and the right side of an unpacking) in the
    function, or else at module level; ``None`` when it is also bound otherwise."""
    if "." not in k and k not in _assigned_names(ctx):
        return None  # (without building a flow: most names asked about are not assigned)
    for flow in _flows(ctx):
        defs = flow.defs(k)
        if not defs:
            continue
        values = []
        for d in defs:
            if d.kind in ("assign", "unpack") and d.value is not None:
                values.append(d.value)
            elif d.kind == "for" and d.value is not None:
                values.append(("for", d.value))  # type: ignore[arg-type]
            else:
                return None
        return values
    return None


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
#: class -> its fields among :data:`_BLOCKS`
_BLOCKS_OF: Dict[type, Tuple[str, ...]] = {}


def _assigned_names(ctx: Context) -> Set[str]:
    """The names that an ``=``, an annotated assignment or a ``for`` binds
    anywhere in the file (once per file): a name outside it has no value for
    :func:`_values`.  Also kept: the names a ``for`` binds, and the values
    assigned to each name (see :func:`_assigned`)."""
    names = ctx.memo.get("TV107 assigned")
    if names is None:
        names = ctx.memo["TV107 assigned"] = set()
        loops = ctx.memo["TV107 loops"] = set()
        assigned: Dict[str, List[Optional[ast.AST]]] = {}
        ctx.memo["TV107 values"] = assigned
        ctx.memo["TV107 candidates"] = {}
        stack = [ctx.tree]
        targets: List[tuple] = []  # (a target, its value, or ``_LOOP`` for a ``for``)
        blocks_of = _BLOCKS_OF
        while stack:
            node = stack.pop()
            cls = node.__class__
            if cls is ast.Assign:
                value = node.value  # type: ignore[attr-defined]
                for target in node.targets:  # type: ignore[attr-defined]
                    if target.__class__ is ast.Name:  # (the common case, without the stack)
                        names.add(target.id)
                        assigned.setdefault(target.id, []).append(value)
                    else:
                        targets.append((target, value))
                continue
            if cls is ast.AnnAssign:
                targets.append((node.target, node.value))  # type: ignore[attr-defined]
                continue
            if cls is ast.For or cls is ast.AsyncFor:
                targets.append((node.target, _LOOP))  # type: ignore[attr-defined]
            blocks = blocks_of.get(cls)
            if blocks is None:
                blocks = blocks_of[cls] = tuple(f for f in _BLOCKS if f in cls._fields)
            for field in blocks:  # (simple statements hold no statements)
                stack.extend(getattr(node, field))
        while targets:
            target, value = targets.pop()
            if isinstance(target, ast.Name):
                names.add(target.id)
                if value is _LOOP:
                    loops.add(target.id)
                else:
                    assigned.setdefault(target.id, []).append(value)
            elif isinstance(target, (ast.Tuple, ast.List)):
                targets.extend((elt, value) for elt in target.elts)
            elif isinstance(target, ast.Starred):
                targets.append((target.value, value))
    return names  # type: ignore[return-value]


#: the value of a ``for`` target in :func:`_assigned_names`
_LOOP = object()


def _candidates(value: Optional[ast.AST]) -> List[ast.AST]:
    """What an assignment of ``value`` may bind a name to: ``value`` or, through
    unpacking, an element of it (``a, b = {}, {}``)."""
    found = []
    stack = [value]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        found.append(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(node.elts)
    return found


def _assigned(ctx: Context, k: str) -> List[ast.AST]:
    """What ``k`` may be assigned anywhere in the file (see :func:`_assigned_names`)."""
    _assigned_names(ctx)
    found = ctx.memo["TV107 candidates"].get(k)  # type: ignore[union-attr]
    if found is None:  # (expanded once per name asked about)
        found = ctx.memo["TV107 candidates"][k] = [  # type: ignore[index]
            c for value in ctx.memo["TV107 values"].get(k, ())  # type: ignore[union-attr]
            for c in _candidates(value)]
    return found  # type: ignore[no-any-return]


def _dict_value(ctx: Context, v: ast.AST) -> bool:
    return isinstance(v, (ast.Dict, ast.DictComp)) or (isinstance(v, ast.Call) and (
        (isinstance(v.func, ast.Name) and v.func.id in _DICT_CALLS)
        or ctx.resolve(v.func) in _DICT_CALLS))


def _loss_module(ctx: Context, v: ast.AST) -> bool:
    return isinstance(v, ast.Call) and ctx.resolve(v.func) in _CLASS_LOSS_MODULES


def _element(ctx: Context, node: ast.AST, seen: Set[object], depth: int) -> bool:
    """``node`` is an element of a torch tensor (a 0-dim tensor since 0.4)."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, ast.Subscript):
        if not _plain_index(node.slice):
            return False
        whole = value_of(ctx, node.value)  # (``self.labels[i]`` of a 1-D int tensor)
        if whole.tensor and whole.rank is not None:
            return whole.rank == 1 and whole.dtype != "float"
        return _tensor(ctx, node.value, seen, depth + 1)
    if not isinstance(node, ast.Name) or id(node) in seen:
        return False
    values = _bound_values(ctx, node)
    seen = seen | {id(node)}
    if values and all(_one_d(ctx, value[1], seen, depth + 1) if isinstance(value, tuple)
                      else _element(ctx, value, seen, depth + 1) for value in values):
        return True  # (``for t in tensor_1d``, ``t = x[i]``)
    # else the value facts: a comprehension's variable, ``for t in batch[:, 0]``
    value = value_of(ctx, node)
    return value.tensor and value.rank == 0 and value.dtype != "float"


def _may_be_element(ctx: Context, node: ast.AST) -> bool:
    """Whether :func:`_element` can hold, without a flow: an index into a name
    the file assigns (or into a call), or such a name, or a parameter of the
    function around the finding (what its callers pass: the value facts tell)."""
    if isinstance(node, ast.Name):
        return node.id in _assigned_names(ctx) or _comprehended(ctx, node.id) or \
            _parameter(ctx, node.id)
    if not isinstance(node, ast.Subscript):
        return False
    while isinstance(node, ast.Subscript):
        if not _plain_index(node.slice):
            return False
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value  # ``pred.data[0]``
    if isinstance(node, ast.Name):
        return node.id in _assigned_names(ctx)
    return isinstance(node, (ast.Call, ast.Attribute))  # (``self.labels[i]``: the facts tell)


def _parameter(ctx: Context, name: str) -> bool:
    """Whether ``name`` is a parameter of the function around the node visited."""
    function = innermost(ctx.parents, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    args = function.args  # type: ignore[attr-defined]
    return any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))


def _comprehended(ctx: Context, name: str) -> bool:
    """Whether a line of the file may bind ``name`` in a comprehension (``[d[i] for
    i in labels]``): a ``for`` before it on one line (the value facts decide)."""
    memo = ctx.memo.setdefault("TV107 comprehended", {})
    found = memo.get(name)  # type: ignore[union-attr]
    if found is None:
        found = memo[name] = re.search(  # type: ignore[index]
            rf"\bfor\b[^\n]*\b{re.escape(name)}\b[^\n]*\bin\b", ctx.text) is not None
    return found  # type: ignore[return-value]


def _tensor(ctx: Context, node: ast.AST, seen: Set[object], depth: int) -> bool:
    """``node`` is visibly a torch tensor (of any shape), or an element of one."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, ast.Subscript):
        return _plain_index(node.slice) and _tensor(ctx, node.value, seen, depth + 1)
    if isinstance(node, ast.Attribute) and node.attr == "data":
        return _tensor(ctx, node.value, seen, depth + 1)  # (``.data`` of a tensor is one)
    if isinstance(node, ast.Call):
        func = node.func
        name = ctx.resolve(func) or ""
        if name.startswith("torch."):
            return not name.startswith(_NOT_TENSORS)
        if name == VARIABLE:
            return True
        if isinstance(func, ast.Attribute) and not name:
            if func.attr in _TORCH_ONLY:
                return True
            if func.attr in _INDEX_RESULTS and _through_data(func.value):
                return True
            if func.attr in _KEEP_SHAPE:
                return _tensor(ctx, func.value, seen, depth + 1)
        return False
    if isinstance(node, ast.Name) and id(node) not in seen:
        values = _bound_values(ctx, node)
        seen = seen | {id(node)}
        return bool(values) and all(
            not isinstance(v, tuple) and _tensor(ctx, v, seen, depth + 1) for v in values
        )
    return False


def _bound_values(ctx: Context, node: ast.Name) -> Optional[List[ast.AST]]:
    """:func:`_values` of ``node``'s name; where one of them reads the name itself
    (``ni = ni[0][0]``), the values of the bindings that reach ``node`` instead
    (the one it was bound to before, for the read inside)."""
    values = _values(ctx, node.id)
    if not values or not any(not isinstance(v, tuple) and any(
            isinstance(n, ast.Name) and n.id == node.id for n in ast.walk(v)) for v in values):
        return values
    defs = ctx.flow().reaching(node)
    if not defs or any(d.kind not in ("assign", "unpack") or d.value is None for d in defs):
        return None
    return [d.value for d in defs]


def _through_data(node: ast.AST) -> bool:
    """``output.data``, ``out.data.cpu()``: a 0.3 Variable's tensor."""
    while True:
        if isinstance(node, ast.Attribute):
            if node.attr == "data":
                return True
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return False


def _one_d(ctx: Context, node: ast.AST, seen: Set[object], depth: int,
           flow: Optional[Flow] = None) -> bool:
    """``node`` is visibly a 1-D torch tensor (``flow``: of the function ``node``
    is read in, when not the one around the finding)."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, ast.Call):
        func = node.func
        name = ctx.resolve(func) or ""
        if name == VARIABLE and node.args:
            return _one_d(ctx, node.args[0], seen, depth + 1, flow)
        if name in _ONE_D_FACTORIES:
            return _one_d_factory(ctx, node, name, flow)
        if isinstance(func, ast.Attribute) and not name:
            if func.attr in _KEEP_SHAPE:
                return _one_d(ctx, func.value, seen, depth + 1, flow)
            if func.attr == "view" and len(node.args) == 1 and _number(node.args[0]) == -1:
                return True
            return False
        if isinstance(func, ast.Name) and not name:
            return _returns_one_d(ctx, func.id, seen, depth)
        return False
    if isinstance(node, ast.Name) and node.id not in seen:
        values = _reaching_values(ctx, node, flow)
        seen = seen | {node.id}
        return bool(values) and all(
            _one_d(ctx, v, seen, depth + 1, flow) for v in values if not _same(v, node.id)
        ) and not all(_same(v, node.id) for v in values)
    return False


def _same(value: ast.AST, name: str) -> bool:
    """``x.cuda()``, ``x.long()`` rebinding ``x``: the shape it had."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and (
            value.func.attr in _KEEP_SHAPE):
        value = value.func.value
    return isinstance(value, ast.Name) and value.id == name


def _reaching_values(ctx: Context, node: ast.Name, flow: Optional[Flow]) -> List[ast.AST]:
    """The values of the assignments of ``node`` that reach it (the function's
    flow, else every module-level one); ``[]`` when one is not an assignment."""
    if node.id not in _assigned_names(ctx):
        return []  # (without building a flow)
    flows = [flow] if flow is not None else _flows(ctx)
    for current in flows:
        defs = current.reaching(node) if current is flows[0] else current.defs(node.id)
        if defs is None:
            return []
        if not defs:
            continue
        if any(d.kind != "assign" or d.value is None for d in defs):
            return []
        return [d.value for d in defs]
    return []


def _number(node: ast.AST) -> Optional[float]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _flat_list(node: ast.AST) -> bool:
    """A list display or comprehension of non-sequences."""
    if isinstance(node, (ast.List, ast.ListComp)):
        elts = node.elts if isinstance(node, ast.List) else [node.elt]
        return bool(elts) and not any(
            isinstance(e, (ast.List, ast.Tuple, ast.ListComp, ast.Starred)) for e in elts)
    return False


def _one_d_factory(ctx: Context, node: ast.Call, name: str, flow: Optional[Flow]) -> bool:
    """``torch.zeros(n)``, ``torch.LongTensor([a, b])``, ``torch.LongTensor(ids)``
    with ``ids`` a flat list built in the function."""
    if len(node.args) != 1 or any(kw.arg not in ("dtype", "device", "requires_grad")
                                  for kw in node.keywords):
        return False
    arg = node.args[0]
    if _flat_list(arg):
        return True
    if isinstance(arg, ast.Name):
        values = _reaching_values(ctx, arg, flow)
        return bool(values) and all(_flat_list(v) for v in values)
    if name in ("torch.tensor", "torch.from_numpy"):
        return False  # the shape of the data is not known here
    if isinstance(arg, ast.Constant):
        return type(arg.value) is int
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name):
        return arg.func.id == "len"  # torch.zeros(len(s))
    return False


def _returns_one_d(ctx: Context, name: str, seen: Set[object], depth: int) -> bool:
    """A function of the file (module level) every ``return`` of which is 1-D."""
    if name in seen:
        return False
    by_name = ctx.memo.get("TV107 defs")
    if by_name is None:  # (once per file: a call per use would make it quadratic)
        by_name = ctx.memo["TV107 defs"] = {}
        for d in getattr(ctx.tree, "body", []):
            if isinstance(d, ast.FunctionDef):
                by_name.setdefault(d.name, []).append(d)  # type: ignore[union-attr]
    defs = by_name.get(name, [])  # type: ignore[union-attr]
    if len(defs) != 1 or _values(ctx, name) is not None:
        return False
    func = defs[0]
    returns = [n for n in ast.walk(func) if isinstance(n, ast.Return)]
    if not returns or any(r.value is None for r in returns):
        return False
    flows = ctx.memo.setdefault("TV107 flows", {})
    flow = flows.get(id(func))  # type: ignore[union-attr]
    if flow is None:
        flow = flows[id(func)] = Flow(func, ctx)  # type: ignore[index]
    seen = seen | {name}
    return all(_one_d(ctx, ret.value, seen, depth + 1, flow) for ret in returns)


def _class_loss(ctx: Context, call: ast.Call, name: Optional[str], exact: bool = True) -> bool:
    """The call of a class-index loss (``name``: what its callee resolves to);
    ``exact=False`` takes every assignment of a plain callee name in the file
    for one that reaches the call (an upper bound that builds no flow)."""
    func = call.func
    if name in _CLASS_LOSSES:
        return True
    if isinstance(func, ast.Call):
        return ctx.resolve(func.func) in _CLASS_LOSS_MODULES
    k = key(func)
    if k is None or name is not None:
        return False
    if "." in k or not any(_loss_module(ctx, v) for v in _assigned(ctx, k)):
        return False  # (without building a flow: no assignment of ``k`` is a loss)
    if not exact:
        return True
    values = _values(ctx, k)
    return bool(values) and all(_loss_module(ctx, v) for v in values)


def _built_as_sequence(ctx: Context, name: str) -> bool:
    """Whether ``name`` (``idx2word``, ``self.idx2word``) is made a list or a
    tuple in the file or in a project module it imports (``self.idx2word =
    []`` in ``data.py``): then its name says nothing, and indexing a list
    with a 0-dim tensor works."""
    memo = ctx.memo.setdefault("TV107 sequences", {})
    found = memo.get(name)  # type: ignore[union-attr]
    if found is None:
        texts = memo.get(None)  # type: ignore[union-attr]
        if texts is None:  # (once per file: the texts, each with the names it so builds)
            texts = [ctx.text]
            if ctx.project:
                from ..analysis.project import summary

                for path in _imported_modules(ctx):
                    text = summary.read(path)
                    if text is not None:
                        texts.append(text)
            texts = memo[None] = [(text, None) for text in texts]  # type: ignore[index]
        found = memo[name] = any(  # type: ignore[index]
            _builds_sequence(texts, i, name) for i in range(len(texts)))  # type: ignore
    return found  # type: ignore[no-any-return]


#: ``NAME = [``, ``NAME = (``, ``NAME = list(``, ``NAME = tuple(``
_BUILT = re.compile(r"\b(\w+)[ \t]*=[ \t]*(?:\[|\(|list\(|tuple\()")


def _builds_sequence(texts: List[Tuple[str, Optional[Set[str]]]], i: int, name: str) -> bool:
    """Whether ``texts[i]`` says ``NAME = [`` (or ``(``, ``list(``, ``tuple(``) for
    ``name``: the names it says so of are found in one search of the text (one
    per name would be a pass over the file per name asked about)."""
    text, names = texts[i]
    if not re.fullmatch(r"\w+", name):  # (an identifier with a character \w is not)
        return bool(re.search(
            rf"\b{re.escape(name)}[ \t]*=[ \t]*(?:\[|\(|list\(|tuple\()", text))
    if names is None:
        names = {match.group(1) for match in _BUILT.finditer(text)}
        texts[i] = (text, names)
    return name in names


def _imported_modules(ctx: Context) -> Set[str]:
    """The project files of the modules the file imports."""
    from ..analysis.nodes import every_node
    from ..analysis.project import modules as project_modules

    paths: Set[str] = set()
    for node in every_node(ctx.tree):
        if isinstance(node, ast.Import):
            wanted = [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            wanted = [(node.module, node.level)] if node.module else [
                (alias.name, node.level) for alias in node.names]
        else:
            continue
        for module, level in wanted:
            path = project_modules.find(ctx.filename, module, level)
            if path is not None:
                paths.add(path)
    return paths


#: classes of the value facts' objects that are mappings
_MAPPING_CLASSES = frozenset(("collections.defaultdict",))


def _mapping_value(ctx: Context, container: ast.AST) -> bool:
    """A dict by the value facts: ``self.graph`` that the class sets to
    ``defaultdict(set)``, or to an ``__init__`` parameter its callers give one."""
    value = value_of(ctx, container)
    return value.kind == DICT or value.kind == OBJECT and value.name in _MAPPING_CLASSES


def _mapping(ctx: Context, container: ast.AST) -> bool:
    """A dict by construction in the file, or by its name (``idx2word``) unless
    it is made a list (see :func:`_built_as_sequence`)."""
    k = key(container)
    if k is None:
        return False
    last = k.rsplit(".", 1)[-1]
    if _MAPPING_NAME.search(last):
        return not _built_as_sequence(ctx, last)
    if "." in k:
        return False
    if not any(_dict_value(ctx, v) for v in _assigned(ctx, k)):
        return False  # (without building a flow: no assignment of ``k`` is a dict)
    here = _assigned_here(ctx, k)
    if here and not all(_dict_value(ctx, v) for v in here):
        return False  # (without the reaching definitions: one of them is not a dict)
    values = _values(ctx, k)
    return bool(values) and all(_dict_value(ctx, v) for v in values)
