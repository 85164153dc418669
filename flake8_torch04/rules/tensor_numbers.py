"""TV144: a 0-dim tensor where PyTorch 0.3 gave a Python number, accumulated or printed."""
from __future__ import annotations

import ast
import re
from typing import Iterator, List, Optional, Tuple

from ..analysis.context import Context
from ..analysis.era import legacy
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.lines import lines_matching
from ..analysis.nodes import body_nodes, children, innermost, spans_hit
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.values import NUMBER, values
from .shared.calls import method_call
from .shared.number_returns import return_findings, returned_number
from .shared.numbers import (
    as_number, element_through_data, item_edit, number_in_03, put_in, read_through_data,
    source_of, sources_of, summed_numbers,
)
from ..source.text import shorten

#: builtins and methods whose results ``list(...)`` takes that are no tensors
_NOT_TENSORS = frozenset((
    "range", "zip", "map", "filter", "enumerate", "reversed", "sorted", "set", "dict",
    "tuple", "open", "iter", "keys", "values", "items", "parameters", "named_parameters",
    "children", "modules", "named_children", "named_modules", "state_dict", "split",
    "readlines", "glob",
))
#: calls that write their argument as JSON, where a tensor raises TypeError
_JSON = frozenset(("json.dump", "json.dumps"))
#: numpy functions that make an array of a list (float32 of 0-dim float tensors)
_NUMPY = frozenset(f"numpy.{name}" for name in ("array", "asarray", "mean", "std"))
#: a conversion of ``%``-formatting: its type, or ``(`` for a mapping key and ``*``
#: for a width or precision taken from the items
_CONVERSION = re.compile(r"%(?:(\()|[-#0 +]*(?:(\*)|\d*)(?:\.(?:(\*)|\d*))?[hlL]?(.))")
#: calls whose arguments are only shown: what 0.3's number looked like there
_SHOWN = {"print": "it prints as `tensor(...)`", "str": "`str()` of it is `'tensor(...)'`",
          "repr": "`repr()` of it is `'tensor(...)'`"}


def _passed(ctx: Context, sources: List[ast.AST]) -> bool:
    """Whether one of ``sources`` is a parameter of the function (its callers make
    the value: ``self.position += action - 1`` in ``step(self, action)``)."""
    flow = ctx.flow()
    for source in sources:
        if isinstance(source, ast.Name):
            defs = flow.reaching(source)
            if defs and all(d.kind == "param" for d in defs):
                return True
    return False


def _made_elsewhere(ctx: Context, facts, expr: ast.AST, scope: ast.AST) -> bool:
    """Whether the name ``expr`` is bound to an element read (``x = p.data[0]``) or to
    what a function or an object's method returns (``action = agent.act(s)``): the
    number is made there and gets its ``.item()`` there (a second one here would
    call it on a number); not a tensor's own method (``acc = c.float().mean()``)."""
    if not isinstance(expr, ast.Name):
        return False
    for d in ctx.flow_of(scope).reaching(expr) or ():
        value = d.value if d.kind == "assign" else None
        if isinstance(value, ast.Subscript):
            return True
        if isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Attribute):
                if not facts.of(func.value, scope).tensor:
                    return True
            elif isinstance(func, ast.Name) and (_returns_elements(ctx, func.id) or (
                    returned_number(ctx, facts, value, scope))):
                return True
    return False


def _returns_elements(ctx: Context, name: str) -> bool:
    """Whether the function ``name`` of the file returns an element read
    (``return p.data[0]``, or a name bound to one), which gets its ``.item()`` there."""
    func = ctx.defined_once().get(name)
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    flow = ctx.flow_of(func)
    for node in body_nodes(func):
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if isinstance(value, ast.Name):
                defs = flow.reaching(value) or ()
                if any(d.kind == "assign" and isinstance(d.value, ast.Subscript) for d in defs):
                    return True
            elif isinstance(value, ast.Subscript):
                return True
    return False


def _item_fix(ctx: Context, facts, node: ast.AST, safety) -> Optional[Fix]:
    """``.item()`` on each of :func:`sources_of`, or ``None`` where one cannot be written;
    for an attribute a class of the file binds to the number (``b.ntokens``), on the
    value it binds (:func:`_bound_sources`): *unsafe*, every reader gets the number."""
    edits = []
    for source in sources_of(facts, node):
        bound = _bound_sources(ctx, facts, source)
        if bound is not None:
            safety = UNSAFE
        for target in bound if bound is not None else [source]:
            edit = item_edit(ctx, target)
            if edit not in edits:
                edits.append(edit)
    return Fix(tuple(edits), safety) if edits and None not in edits else None  # type: ignore


def _bound_sources(ctx: Context, facts, node: ast.AST) -> Optional[List[ast.AST]]:
    """For ``b.ntokens`` of an instance of a plain class of this file whose methods
    bind ``self.ntokens`` once, to a reduction or an element 0.3 gave as a number
    (``self.ntokens = (y != pad).data.sum()``): that value, where the number is
    made and every reader of the attribute gets it; where it is a parameter
    (``self.val = val`` in a meter's ``update``), what the file's calls pass
    for it, each a number 0.3 gave (the ``.item()`` :func:`_passed_in` puts
    there too: one on the parameter would call it on that number); else ``None``."""
    from ..analysis.callers import passed_arguments
    from ..analysis.objects import OBJECT, PLAIN, instance_class, self_attributes

    if not isinstance(node, ast.Attribute):
        return None
    owner = facts.of(node.value)
    if owner.kind != OBJECT or not (owner.name or "").startswith(PLAIN):
        return None
    found = instance_class(ctx, owner.name)
    if found is None or found[0] is not ctx:
        return None
    bindings = self_attributes(found[1]).get(node.attr)
    if not bindings or len(bindings) != 1:
        return None
    value, method = bindings[0]
    if isinstance(value, (ast.BinOp, ast.UnaryOp)) or \
            not number_in_03(facts.of(value, method)):
        return None  # (arithmetic: each number it is made of, where it is used)
    param = next((a for a in method.args.args if isinstance(value, ast.Name)  # type: ignore
                  and a.arg == value.id), None)
    if param is None:
        return [value]
    if any(d.kind != "param" for d in ctx.flow_of(method).reaching(value) or ()):
        return None
    sites = passed_arguments(ctx, param, method) or []
    passed = [expr for site_ctx, expr, scope in sites
              if site_ctx is ctx and number_in_03(facts.of(expr, scope))]
    return passed if passed and len(passed) == len(sites) else None


def _reduces_unknown(ctx: Context, facts, node: ast.AST) -> bool:
    """``torch.sum(x)`` (a torch function of one argument) where what ``x`` is is
    not evident: its 0.3 type (a tensor, whose sum was a number, or a ``Variable``:
    TV003's) is unknown."""
    return isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
        and (ctx.resolve(node.func) or "").startswith("torch.") \
        and facts.of(node.args[0]).kind is None


def _keeps_a_tensor(ctx: Context, facts, target: ast.AST) -> bool:
    """Whether ``target`` (of ``target += value``) is a local name every other
    binding of which in the function is evidently a tensor (``s_x = torch.zeros(1)``):
    it was one on 0.3 too, and adding a number or a 0-dim tensor to it is the same."""
    if not isinstance(target, ast.Name):
        return False
    defs = [d for d in ctx.flow().defs(target.id) if d.kind != "augassign"]
    return bool(defs) and all(facts.binding(d, None, 0).tensor for d in defs)


def _counts_numbers(ctx: Context, facts, target: ast.AST) -> bool:
    """Whether ``target`` (of ``target += value``) is a local name every other
    binding of which in the function is evidently a Python number (``total = 0``):
    a count the program keeps in numbers."""
    if not isinstance(target, ast.Name):
        return False
    defs = [d for d in ctx.flow().defs(target.id) if d.kind != "augassign"]
    return bool(defs) and all(facts.binding(d, None, 0).kind == NUMBER for d in defs)


#: builtins that read a number as a number (or only show it)
_NUMBER_READERS = frozenset(("print", "float", "int", "round", "str", "repr", "abs", "format"))
#: how many names a count may be copied to (``n_words = n_words_total``) and still be followed
_COPIES = 4


def _read_as_number(ctx: Context, scope: ast.AST, name: str, seen: set) -> bool:
    """Whether every read of the local ``name`` in ``scope`` uses it only as a number:
    in arithmetic, comparisons, a builtin or ``math`` function that reads numbers,
    ``'%d' % n``, ``format`` or an f-string, or copied to names read so in turn.  Not
    indexed, passed to other functions, put in a list, returned or an attribute read."""
    if name in seen:
        return True  # (checked, or being checked: its other reads decide)
    if len(seen) > _COPIES:
        return False
    seen.add(name)
    return all(_number_read(ctx, scope, parents, node, seen)
               for node, parents in _reads(ctx, scope, name))


def _number_read(ctx: Context, scope: ast.AST, parents, node: ast.AST, seen: set) -> bool:
    parent = parents.get(id(node))
    item = None  # (the item of a tuple copied item by item: ``a, b = (x, y)``)
    while isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Tuple)):  # (``'%d' % (a, b)``)
        if isinstance(parent, ast.Tuple) and isinstance(parents.get(id(parent)), ast.Assign):
            item = parent.elts.index(node) if node in parent.elts else None
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, (ast.Compare, ast.FormattedValue)):
        return True
    if isinstance(parent, ast.Call):
        if node not in parent.args:
            return False
        func = parent.func
        if isinstance(func, ast.Name) and func.id in _NUMBER_READERS:
            return not ctx.scope.binds(func.id)
        if (ctx.resolve(func) or "").startswith("math."):
            return True
        return isinstance(func, ast.Attribute) and func.attr == "format" \
            and isinstance(func.value, ast.Constant)  # (``'{:.2f}'.format(n)``)
    if isinstance(parent, (ast.Assign, ast.AugAssign)) and parent.value is node:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if isinstance(node, ast.Tuple):
            if item is None or len(targets) != 1 or not isinstance(targets[0], ast.Tuple) \
                    or len(targets[0].elts) != len(node.elts):
                return False
            targets = [targets[0].elts[item]]
        return all(isinstance(t, ast.Name) and _read_as_number(ctx, scope, t.id, seen)
                   for t in targets)
    return False


def _reads(ctx: Context, scope: ast.AST, k: str) -> Iterator[Tuple[ast.AST, dict]]:
    """Each read of the key ``k`` in ``scope``, with the parents of the nodes walked
    (the statements on the lines that spell its first name: no walk of the file)."""
    word = k.split(".", 1)[0]
    lines = ctx.memo.setdefault("lines of names", {})  # (shared with TV149's, same word)
    hits = lines.get(word, False)
    if hits is False:
        hits = lines[word] = lines_matching(ctx.text, word)
    parents: dict = {}
    stack: list = [scope]
    while stack:
        node = stack.pop()
        if hits is not None and isinstance(node, ast.stmt) and not spans_hit(node, hits):
            continue
        below = children(node)
        for child in below:
            parents[id(child)] = node
        stack += below
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) \
                and key(node) == k:
            yield node, parents


def _tensor_uses(ctx: Context, scope: ast.AST, k: str) -> bool:
    """Whether ``k`` is read as a tensor in ``scope``: a method or attribute of it
    (``acc.item()``, ``acc.cpu()``), or an argument of a torch function, also
    through arithmetic (``((g - t) / acc).clamp(min=0)``)."""
    for node, parents in _reads(ctx, scope, k):
        parent = parents.get(id(node))
        while isinstance(parent, (ast.BinOp, ast.UnaryOp)):
            node, parent = parent, parents.get(id(parent))
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return True
        if isinstance(parent, ast.Call) and node in parent.args and \
                (ctx.resolve(parent.func) or "").startswith("torch."):
            return True
    return False


@rule("TV144")
def tensor_numbers(ctx: Context, node: ast.AST) -> Iterator[Report]:
    """Flags 0-dim tensors accumulated or printed where PyTorch 0.3 had a number.

    ## What it does
    In 0.3 code (the file or its project shows 0.3 idioms, or the configuration says so:
    see ``analysis/era.py``), flags ``acc += value``, ``print(value)``, ``str(value)``,
    ``repr(value)`` (also an item of a tuple or list given to them) and ``'%s' % value``
    (``%r``, ``%a``; an item of the tuple formatted) where
    ``value`` is a reduction (``sum()``, ``mean()``, ``max()`` ... without ``dim``) or
    an element of a 0.3 *tensor* — one read through ``.data``, made by a constructor, or
    computed from one, such as ``pred.eq(target.data).sum()`` with ``pred`` from
    ``output.data.max(1)[1]``; an element is also the variable of a loop over an
    evidently 1-D such tensor (``for w in row`` of ``for row in batch.data``).  Values are
    followed through assignments in the function (see "How values are followed" in
    docs/how-it-works.md); a value of a ``Variable`` is TV003's.  An ``acc += value``
    whose ``acc`` is evidently a tensor already (``acc = torch.zeros(1)``) is left
    alone: 0.3 kept it a tensor too.
    A torch function's full reduction of a value whose 0.3 type is not evident
    (``torch.sum(lengths)`` with ``lengths`` from a third-party batch) is flagged only
    where it is added to a count kept in numbers: a local name every other binding
    of which is a number (``n_words = 0``) and every read of which uses it as one
    (arithmetic, comparisons,
    ``print``, ``'%d' %``, ``format``, ``math`` functions, or a copy read so in turn);
    not one returned, indexed, put in a list or given to another function.
    It also flags ``x.data[i]`` wherever it is read, when ``x`` is evidently 1-D
    (``action = q_value.max(1)[1].data[0]`` with ``q_value`` the ``(1, n)`` output of a
    ``Linear``): nobody reads an element through ``.data`` but for a number, and 0.3
    gave one (``env.step(action)`` gets a 0-dim tensor now); so is ``x.data[i, j]``
    with an index for each dimension of ``x`` (``policy.multinomial(1).data[0, 0]``:
    samples are 1-D or 2-D, so two indices read an element whatever ``policy`` is),
    and ``row[0]`` (an int constant index) of an evidently 1-D row of a loop
    over ``x.data`` (``for i, yi in enumerate(y.data): tracker[i] = yi[0]``).
    Left alone: a tensor of unknown or higher rank (``x.data[0]`` of a 2-D ``x`` is
    a row), an element used as a tensor
    (``x.data[i].fill_(0)``, ``x.data[i][j]``), written, or sliced (a loss named so
    is this rule's where its rank is evident: ``KL_each.data[0]`` of per-example
    terms; TV003 takes ``.data[0]`` of a value not known to have a dimension).
    And it flags ``json.dumps(history)``/``json.dump``
    where ``history`` holds such values: a dict or list literal of them, a list a
    function fills with ``costs.append(v)`` or ``costs += [v]``, a parameter every
    caller passes such a list for (a training history written at a checkpoint).
    And ``np.array(rewards)`` (``np.asarray``, ``np.mean``, ``np.std``) where the
    function fills ``rewards = []`` only with floats 0.3 gave as numbers
    (``rewards.append(r.mean())``).
    And ``sum(E for ...)`` (a generator or list comprehension, no start) whose
    element ``E`` is such a number (``sum(p.data.norm() ** 2 for p in ps)``): 0.3
    summed Python numbers in double precision into a number, today 0-dim tensors
    into a float32 tensor; a name bound to such a sum gets its ``.item()`` in the
    sum, not where it is printed (a sum given to ``float()`` or ``int()``, code
    written for a tensor, or formatted as a number, ``'%.6f' % sum(...)``, where it
    shows as the number did, is left alone).
    And ``round(x)`` of such a number: a 0-dim tensor has no ``__round__``
    (``TypeError``).  And the ``return`` of a function of the file every
    ``return`` of which gives such a number read through ``.data`` in the function
    itself (``return pred.eq(y.data).sum() / n``), where a call of the file uses
    its result; so for a method of a class of the file (``def act(self, s): return
    self.net(s).data.max(1)[1][0]``) where a call on an evident instance of the
    class (``agent.act(s)``, ``self.act(s)``), in the file or in another module of
    the project, uses its result: the callers got a number on 0.3, so the
    ``.item()`` goes to the ``return``, once for all of them, and none to the callers.
    And ``return E`` where ``E`` is computed (through arithmetic and the
    function's names) from such numbers and Python numbers, in a function that
    returns a number literal elsewhere (``return 0.`` when nothing is picked,
    ``return reward_div + reward_rep`` otherwise): it returned numbers on 0.3,
    and its callers now get a float32 tensor (``np.mean`` of a list of them is
    float32, ``json.dump`` refuses them).
    And such a number passed to a method (or function) of the file that adds
    its parameter up, ``meter.update(acc)`` where ``update(self, val, n=1)``
    does ``self.sum += val * n`` (the ``AverageMeter`` idiom): the meter's sum
    becomes a float32 tensor; reported at the argument (the calls of the file
    on ``self`` or on evident instances of the class count, whatever other
    files pass).
    And ``list(t)`` of an evidently 1-D 0.3 tensor (``list(tag_seq.data)``): a
    list of Python numbers on 0.3, of 0-dim tensors since 0.4 (a ``Variable``'s
    elements were ``Variable`` objects on 0.3 too, and a 2-D tensor's are rows:
    neither is flagged).  Position: the value.

    ## Why is this bad?
    In 0.3, reducing a tensor gave a Python number.  Since 0.4 it gives a 0-dim
    tensor, so ``correct += pred.eq(target.data).sum()`` makes ``correct`` a
    tensor: ``print(correct)`` shows ``tensor(24)``, ``str(order[-1])`` written to a
    file is ``'tensor(3)'`` (which ``int()`` cannot read back: ``ValueError:
    invalid literal for int() with base 10: 'tensor(3)'``; ``format`` and
    ``'%d'`` show the number), ``100. * correct / n`` is a tensor, and the
    accumulator keeps a tensor where the program meant a number (on a GPU,
    every use synchronises); a dict lookup with it raises ``KeyError:
    tensor(1)`` (tensors hash by identity); ``json.dumps`` of it raises ``TypeError: Object of
    type Tensor is not JSON serializable``; ``np.array`` of a list of them is a float32
    array where 0.3 made a float64 one (``2.3333332538604736`` for
    ``2.3333333333333335``).

    ## Example
    ```python
    correct = 0
    _, pred = torch.max(output.data, 1)
    correct += pred.eq(target.data).sum()
    print('accuracy', 100. * correct / total)
    ```

    Use instead:
    ```python
    correct = 0
    _, pred = torch.max(output.data, 1)
    correct += pred.eq(target.data).sum().item()
    print('accuracy', 100. * correct / total)
    ```

    ## Fix safety
    The fix, ``.item()`` at the source (``norm.item() ** 2``: 0.3 did arithmetic
    with Python numbers on the number, in double precision), is *safe* where the accumulator is only
    accumulated, printed, formatted or compared (then the program computes and
    prints 0.3's numbers); where it is also used as a tensor (``acc.cpu()``,
    an argument of a torch function) the fix is *unsafe*.  A printed value (or
    one given to ``str``/``repr``) is only shown, so its fix is safe.  An
    element read through ``.data[i]`` gets ``.item()`` safely (the number 0.3
    gave), unsafely where a tensor is made of it afterwards (a name it is bound
    to read as a tensor, a torch function's argument): code written for 0.4 in
    a 0.3 file.  ``list(t)`` becomes ``t.tolist()``, 0.3's list of numbers:
    *unsafe*, as code written for 0.4 may use the elements as tensors.  The fix
    for a count fed a reduction of a value of unknown 0.3 type is *unsafe*: 0.3 may
    have given a one-element ``Variable`` there.  For
    ``json.dumps`` and ``np.array`` the fix puts ``.item()`` on every such value
    put in the list (*unsafe*: the list's other readers get numbers too); for a
    ``return``, on every such number the value is computed from, so that it is
    computed in double precision as on 0.3 (*unsafe*: a caller written for 0.4
    may use the tensor).  A name
    bound to such an element (``first = x.data[0]``) gets
    its ``.item()`` there, and none where it is printed or accumulated; an
    attribute a class of the file binds once to such a number (``self.ntokens =
    (y != pad).data.sum()``) gets it where it is bound (*unsafe*: every reader of
    the attribute gets the number, as on 0.3).
    """
    if not ctx.uses_torch or not legacy(ctx):
        return
    facts = values(ctx)
    if isinstance(node, ast.AugAssign):
        if not isinstance(node.op, (ast.Add, ast.Sub)) or key(node.target) is None:
            return
        value = facts.of(node.value)
        if not (value.tensor and value.rank == 0):
            # (``self.sum += val * n``: what the calls pass, whatever the others
            # make of the parameter's joined value, which a fix elsewhere changes)
            yield from _passed_in(ctx, facts, node)
            return
        if read_through_data(ctx, node.value) or returned_number(ctx, facts, node.value):
            return  # (fixed where it is read, or where a function of the file returns it)
        if _passed(ctx, sources_of(facts, node.value)):  # (made by the callers: fixed there)
            yield from _passed_in(ctx, facts, node)
            return
        scope = ctx.flow().node
        used = _tensor_uses(ctx, scope, key(node.target))
        src = ctx.source
        target = shorten(src.text(node.target), 20)
        if number_in_03(value) and not _keeps_a_tensor(ctx, facts, node.target):
            fix = _item_fix(ctx, facts, node.value, UNSAFE if used else SAFE)
            yield Report(
                node.value,
                f"`{src.quote(node.value, 40)}` was a Python number on PyTorch 0.3 and is a "
                f"0-dim tensor since 0.4, so `{target}` becomes a tensor; add `.item()`",
                fix,
            )
        elif not used and _reduces_unknown(ctx, facts, node.value) \
                and _counts_numbers(ctx, facts, node.target) \
                and _read_as_number(ctx, scope, node.target.id, set()):
            edit = item_edit(ctx, node.value)
            yield Report(
                node.value,
                f"`{src.quote(node.value, 40)}` is a 0-dim tensor since PyTorch 0.4 (0.3 "
                f"reduced a tensor to a number), so `{target}`, which starts as a number, "
                f"becomes a tensor that `+=` then changes in place (with every name bound "
                f"to it); add `.item()`",
                Fix((edit,), UNSAFE) if edit is not None else None,
            )
        return
    if isinstance(node, ast.Subscript):
        yield from _data_element(ctx, node, facts, ctx.parent)
        return
    if isinstance(node, ast.For):
        yield from _row_elements(ctx, facts, node)
        return
    if isinstance(node, ast.Call) and node.args and ctx.resolve(node.func) in _JSON:
        yield from _written_as_json(ctx, facts, node.args[0])
        return
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) \
            and ctx.resolve(node.func) in _NUMPY:
        yield from _made_array(ctx, facts, node.args[0])
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "list" and not ctx.scope.binds("list"):
        yield from _listed(ctx, facts, node)
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "sum" and not ctx.scope.binds("sum"):
        yield from _summed(ctx, facts, node)
        return
    if isinstance(node, ast.BinOp):
        yield from _formatted(ctx, facts, node)
        return
    if isinstance(node, ast.Return):
        yield from return_findings(ctx, facts, node)
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "round" and node.args and not ctx.scope.binds("round"):
        yield from _rounded(ctx, facts, node.args[0])
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _SHOWN and not ctx.scope.binds(node.func.id):
        shown = [e for arg in node.args  # (``print(("norm:", g.norm()))`` shows its items)
                 for e in (arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else (arg,))]
        for arg in shown:
            if isinstance(arg, ast.Starred) or not number_in_03(facts.of(arg)) \
                    or read_through_data(ctx, arg):
                continue
            report = _shown(ctx, facts, arg, _SHOWN[node.func.id])
            if report is not None:
                yield report


def _rounded(ctx: Context, facts, value: ast.AST) -> Iterator[Report]:
    """``round(acc)`` of a number 0.3 gave: a 0-dim tensor has no ``__round__``."""
    if isinstance(value, ast.Starred) or not number_in_03(facts.of(value)) \
            or read_through_data(ctx, value):
        return
    report = _shown(ctx, facts, value, "`round()` of it raises TypeError (type Tensor "
                                       "doesn't define __round__ method)")
    if report is not None:
        yield report


def _shown(ctx: Context, facts, value: ast.AST, what: str) -> Optional[Report]:
    """The finding for ``value``, a 0.3 number shown or summed (``what`` the 0-dim
    tensor does there), with its safe ``.item()`` at the source; none where a
    function of the file returned it (its ``return`` has the finding)."""
    if returned_number(ctx, facts, value):
        return None
    return Report(
        value,
        f"`{ctx.source.quote(value, 40)}` was a Python number on PyTorch 0.3 and is a "
        f"0-dim tensor since 0.4: {what}; add `.item()`",
        _item_fix(ctx, facts, value, SAFE),
    )


def _formatted(ctx: Context, facts, node: ast.BinOp) -> Iterator[Report]:
    """``'%s' % value`` (``%r``, ``%a``; an item of a tuple): ``str()`` of the value."""
    template = node.left
    if not isinstance(node.op, ast.Mod) or not isinstance(template, ast.Constant) \
            or not isinstance(template.value, str):
        return
    conversions = [m.group(1) or (m.group(2) or m.group(3)) and "*" or m.group(4)
                   for m in _CONVERSION.finditer(template.value)]
    if "(" in conversions or "*" in conversions:
        return  # (a mapping, a width taken from the items)
    kinds = [c for c in conversions if c != "%"]
    items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
    if len(kinds) != len(items):
        return
    for kind, item in zip(kinds, items):
        if kind not in "sra" or isinstance(item, ast.Starred) \
                or not number_in_03(facts.of(item)) or read_through_data(ctx, item):
            continue
        report = _shown(ctx, facts, item, f"`'%{kind}' %` of it is `'tensor(...)'`")
        if report is not None:
            yield report


def _summed(ctx: Context, facts, call: ast.Call) -> Iterator[Report]:
    """``sum(p.data.sum() for p in params)``: 0.3 summed Python numbers (in double
    precision) into a number; now 0-dim tensors, into a float32 tensor."""
    parent = ctx.parent
    if not summed_numbers(ctx, call) or as_number(ctx, call, parent):
        return
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name) \
            and _tensor_uses(ctx, ctx.flow().node, parent.targets[0].id):
        return  # (``k_dot_k.data[0]``, ``(g / k_dot_k).clamp(0)``: read as a tensor)
    element = call.args[0].elt  # type: ignore[attr-defined]
    if read_through_data(ctx, element):
        return
    report = _shown(ctx, facts, element,
                    "`sum()` of them is a tensor (summed in float32), not 0.3's number")
    if report is not None:
        yield report


def _listed(ctx: Context, facts, call: ast.Call) -> Iterator[Report]:
    """``list(t)`` of a 1-D 0.3 tensor: 0.3 gave a list of Python numbers (ids that
    index dicts, labels written out); ``t.tolist()`` gives them back (*unsafe*: code
    written for 0.4 may use the elements as tensors)."""
    if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
        return
    inner = call.args[0]
    if isinstance(inner, ast.Call) and (
            isinstance(inner.func, ast.Name) and inner.func.id in _NOT_TENSORS
            or isinstance(inner.func, ast.Attribute) and inner.func.attr in _NOT_TENSORS):
        return  # (``list(range(n))``, ``list(model.parameters())``: not a tensor's)
    listed = facts.of(inner)
    if not (listed.tensor and listed.rank == 1 and listed.plain):
        return
    src = ctx.source
    fixed = method_call(src, inner, "tolist")
    yield Report(
        call,
        f"`{src.quote(call, 40)}` was a list of Python numbers on PyTorch 0.3 and is a "
        f"list of 0-dim tensors since 0.4 (a dict lookup with one raises KeyError); use "
        f"`{src.quote(inner, 30)}.tolist()`",
        Fix((src.replace(call, fixed),), UNSAFE) if "\n" not in fixed else None,
    )


def _written_as_json(ctx: Context, facts, written: ast.AST) -> Iterator[Report]:
    """``json.dumps(history)`` where ``history`` holds numbers 0.3 gave (a dict or
    list literal of them, a list a function builds by appending them, a parameter
    every caller passes such a value for): json cannot write a tensor.  The fix puts
    ``.item()`` on each (*unsafe*: the list's other readers get numbers too)."""
    held = _held_numbers(ctx, facts, written, None, 0, set())
    if not held:
        return
    edits = [item_edit(ctx, node) for node in held]
    src = ctx.source
    yield Report(
        written,
        f"`{src.quote(written, 30)}` holds values PyTorch 0.3 gave as Python numbers, "
        f"0-dim tensors since 0.4 (`{src.quote(held[0], 30)}`): json cannot write a "
        f"tensor (TypeError); add `.item()` where they are made",
        Fix(tuple(edits), UNSAFE) if all(e is not None for e in edits) else None,
    )


def _made_array(ctx: Context, facts, listed: ast.Name) -> Iterator[Report]:
    """``np.array(rewards)`` where the function fills ``rewards = []`` only with
    floats 0.3 gave as Python numbers (``rewards.append(r.mean())``): 0.3 made a
    float64 array of them, numpy now makes a float32 array of the 0-dim float32
    tensors (other numbers, silently).  The fix puts ``.item()`` on each
    (*unsafe*: the list's other readers get numbers too)."""
    flow = ctx.flow()
    defs = flow.reaching(listed)
    if not defs or not all(d.kind == "assign" and isinstance(d.value, ast.List)
                           and not d.value.elts for d in defs):
        return
    put = put_in(flow.node, listed.id)
    sources = []
    for value in put:
        fact = facts.of(value, flow.node)
        source = source_of(facts, value)
        if not (number_in_03(fact) and fact.dtype == "float") or read_through_data(
                ctx, source) or isinstance(source, ast.Subscript) or \
                returned_number(ctx, facts, source):
            return  # (a Python number among them, or an element TV144 fixes where it is
            # read, or a number a function of the file returns: fixed at its ``return``)
        sources.append(source)
    if not sources:
        return
    edits = [item_edit(ctx, node) for node in sources]
    src = ctx.source
    yield Report(
        listed,
        f"`{listed.id}` holds floats PyTorch 0.3 gave as Python numbers, 0-dim float32 "
        f"tensors since 0.4 (`{src.quote(sources[0], 30)}`): numpy makes a float32 array "
        f"of them where 0.3 made a float64 one (other numbers); add `.item()` where they "
        f"are made",
        Fix(tuple(edits), UNSAFE) if all(e is not None for e in edits) else None,
    )


def _passed_in(ctx: Context, facts, node: ast.AugAssign) -> Iterator[Report]:
    """``self.sum += val * n`` in ``update(self, val, n=1)`` (an ``AverageMeter``)
    where a call in the file passes a number 0.3 gave for ``val``
    (``meter.update(accuracy)`` with ``accuracy`` a ``mean()``): the sum of that
    meter becomes a float32 tensor.  Reported at each such argument; the fix
    puts ``.item()`` on it (*unsafe* where the function uses the parameter as a
    tensor, as for ``+=``)."""
    function = innermost(ctx.parents, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return
    for name in _added_parameters(ctx, facts, node.value):
        param = next((a for a in function.args.args if a.arg == name), None)
        if param is not None:
            yield from _passed_numbers(ctx, facts, node, function, param)


def _passed_numbers(ctx: Context, facts, node: ast.AugAssign, function: ast.AST,
                    param: ast.arg) -> Iterator[Report]:
    from ..analysis.callers import method_arguments, passed_arguments, some_method_sites

    sites = passed_arguments(ctx, param, function)
    if sites is None:  # (not every caller in view: what the file's own calls pass)
        sites = [(ctx, expr, scope) for expr, scope in method_arguments(
            ctx, some_method_sites(ctx, function), function, param) or ()]
    done = ctx.memo.setdefault("TV144 passed in", set())
    used = _tensor_uses(ctx, function, param.arg)
    src = ctx.source
    target = shorten(src.text(node.target), 20)
    for site_ctx, expr, scope in sites:
        if site_ctx is not ctx or id(expr) in done:  # type: ignore[operator]
            continue
        if not number_in_03(facts.of(expr, scope)) or _through_data(expr) \
                or _made_elsewhere(site_ctx, facts, expr, scope):
            continue  # (``loss.data[0]``: TV003's, or :func:`_data_element`'s)
        done.add(id(expr))  # type: ignore[union-attr]
        edit = item_edit(ctx, expr)
        yield Report(
            expr,
            f"`{src.quote(expr, 30)}` was a Python number on PyTorch 0.3 and is a 0-dim "
            f"tensor since 0.4; `{function.name}` adds it to `{target}` (line "
            f"{node.lineno}), which becomes a tensor; add `.item()`",
            Fix((edit,), UNSAFE if used else SAFE) if edit is not None else None,
        )


def _through_data(expr: ast.AST) -> bool:
    """``x.data[i]`` (also ``x.data[i][j]``): an element read through ``.data``,
    which TV003 or :func:`_data_element` reports; ``prec[0]`` of a 1-D tensor a
    helper returned (``accuracy()``'s list of one-element tensors) is this rule's."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
        if isinstance(expr, ast.Attribute) and expr.attr == "data":
            return True
    return False


def _added_parameters(ctx: Context, facts, value: ast.AST) -> list:
    """The parameters ``value`` adds: a parameter, or a product of parameters and
    numbers (``val * n``); ``[]`` for anything else."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Mult, ast.Div)):
        left = _added_parameters(ctx, facts, value.left)
        right = [] if isinstance(value.op, ast.Div) else _added_parameters(
            ctx, facts, value.right)
        sides = [(value.left, left), (value.right, right)]
        if all(found or facts.of(side).kind == NUMBER or _parameter(ctx, side)
               for side, found in sides):
            return left + right
        return []
    return [value.id] if _parameter(ctx, value) else []  # type: ignore[attr-defined]


def _parameter(ctx: Context, node: ast.AST) -> bool:
    if not isinstance(node, ast.Name):
        return False
    defs = ctx.flow().reaching(node)
    return bool(defs) and all(d.kind == "param" for d in defs)


def _held_numbers(ctx: Context, facts, node: ast.AST, scope, depth: int,
                  seen: set) -> list:
    """The expressions, in ``node`` or in what its names are bound to, of numbers
    0.3 gave that are 0-dim tensors now (not an element read through ``.data``:
    fixed where it is read)."""
    from ..analysis.callers import reaching_arguments

    if depth > 6 or id(node) in seen:
        return []
    seen.add(id(node))
    if number_in_03(facts.of(node, scope)):
        if returned_number(ctx, facts, node, scope):
            return []  # (its function's ``return`` has the finding)
        source = source_of(facts, node)
        fixed = element_through_data(source) or read_through_data(ctx, source)
        return [] if fixed else [source]
    parts: list = []
    if isinstance(node, ast.Dict):
        parts = [(v, scope) for v in node.values]
    elif isinstance(node, (ast.List, ast.Tuple)):
        parts = [(e, scope) for e in node.elts if not isinstance(e, ast.Starred)]
    elif isinstance(node, ast.Name):
        flow = ctx.flow_of(scope) if scope is not None else ctx.flow()
        for d in flow.reaching(node) or ():
            if d.kind == "assign" and isinstance(d.value, ast.List) and not d.value.elts \
                    or d.kind == "augassign" and isinstance(d.value, ast.List):
                parts += [(v, flow.node) for v in put_in(flow.node, d.key)]
            elif d.kind == "assign" and d.value is not None:
                parts.append((d.value, flow.node))
            elif d.kind == "param":
                parts += reaching_arguments(ctx, d.node, flow.node) or []
    found: list = []
    for part, at in parts:
        found += [n for n in _held_numbers(ctx, facts, part, at, depth + 1, seen)
                  if n not in found]
    return found


def _row_of_data(ctx: Context, facts, node: ast.Name, loop: ast.For) -> bool:
    """``node`` is a name bound only as the variable of ``loop`` (and other loops)
    over ``x.data`` (``for i, yi in enumerate(y.data)``): a row read through ``.data``."""
    defs = ctx.flow().reaching(node)
    if not defs or not any(d.node is loop for d in defs):
        return False
    for d in defs:
        iterable = facts.iterated(d) if d.kind in ("for", "comp") else None
        if not (isinstance(iterable, ast.Attribute) and iterable.attr == "data"):
            return False
    return True


def _row_elements(ctx: Context, facts, loop: ast.For) -> Iterator[Report]:
    """``row[0]`` in the body of ``for row in x.data`` (:func:`_data_element`)."""
    names = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    parents = ctx.file_parents()
    for sub in body_nodes(loop):
        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) \
                and sub.value.id in names and isinstance(sub.slice, ast.Constant) \
                and _row_of_data(ctx, facts, sub.value, loop):
            yield from _data_element(ctx, sub, facts, parents.get(id(sub)), row=True)


def _data_element(ctx: Context, node: ast.Subscript, facts, parent,
                  row: bool = False) -> Iterator[Report]:
    """``x.data[i]`` of an evidently 1-D tensor, ``x.data[i, j]`` of a 2-D one (an
    index per dimension), also ``row[i]`` of a row of ``x.data`` (``for row in
    x.data``): 0.3 gave a Python number (nobody
    reads an element through ``.data`` for a tensor), and ``.item()`` gives it
    back.  Left to the other branches: an element accumulated or printed; left
    alone: an element used as a tensor (``x.data[i].fill_(0)``, ``x.data[i][j]``),
    and written."""
    data = node.value
    if not isinstance(node.ctx, ast.Load) or not (
            isinstance(data, ast.Attribute) and data.attr == "data"
            or row):  # (a row of ``x.data``: see :func:`_row_elements`)
        return
    if isinstance(parent, (ast.Attribute, ast.Subscript, ast.AugAssign)) or (
            isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
            and parent.func.id in _SHOWN):
        return
    # one number per dimension: ``x.data[i]`` of a 1-D ``x``, ``x.data[0, 0]`` of a 2-D one
    indexes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if any(isinstance(i, (ast.Slice, ast.Starred)) or facts.of(i).kind != NUMBER
           for i in indexes):
        return
    whole = facts.of(data)
    # (an index per dimension; of a rank not known, an element the facts make 0-dim
    # had one: ``policy.multinomial(1).data[0, 0]``, samples read with two indices)
    rank = whole.rank if whole.rank is not None else len(indexes)
    if not (whole.tensor and rank == len(indexes) and number_in_03(facts.of(node))):
        return
    # (a loss named so whose rank is evident is this rule's too: TV003 takes
    # ``.data[0]`` only of a value not known to have a dimension)
    # unsafe where a tensor is made of it afterwards: a name it is bound to read as a
    # tensor (``a.item()``, ``a.cpu()``), or a torch function's argument (code already
    # written for 0.4 in a 0.3 file)
    safe = not (isinstance(parent, ast.Call)
                and (ctx.resolve(parent.func) or "").startswith("torch."))
    if safe and isinstance(parent, ast.Assign):
        names = [key(t) for t in parent.targets]
        safe = all(k is not None for k in names) and not any(
            _tensor_uses(ctx, ctx.flow().node, k) for k in names)
    edit = item_edit(ctx, node)
    src = ctx.source
    yield Report(
        node,
        f"`{src.quote(node, 40)}` was a Python number on PyTorch 0.3 (an element of the "
        f"{rank}-D `{shorten(src.text(getattr(data, 'value', data)), 20)}`) and is a 0-dim "
        f"tensor since 0.4; "
        f"add `.item()`",
        Fix((edit,), SAFE if safe else UNSAFE) if edit is not None else None,
    )
