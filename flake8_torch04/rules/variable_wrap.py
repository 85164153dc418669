"""TV001: ``Variable(...)`` wraps, dead weight since PyTorch 0.4."""
from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, List, Optional, Set

from ..analysis.canonical import VARIABLE
from ..analysis.context import Context
from ..analysis.findings import SAFE, UNSAFE, Fix, Report
from ..analysis.markers import at_line_start
from ..analysis.nodes import LOOPS, innermost
from ..analysis.reaching import params_of
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.value_tables import constructor
from .shared.tables import FUNCTIONS as TENSOR_FUNCTIONS
from .shared.blocks import drop_statement
from .shared.consumers import never_true
from ..source.text import Edit, has_comment, needs_parens, one_line, shorten

#: torch factories that take ``requires_grad=``
FACTORIES = frozenset(
    "torch." + name
    for name in (
        "zeros", "ones", "rand", "randn", "empty", "full", "eye", "arange", "tensor",
        "linspace", "logspace", "randint", "randperm", "zeros_like", "ones_like",
        "rand_like", "randn_like", "empty_like", "full_like", "randint_like",
        "as_tensor", "range", "empty_strided", "normal",
    )
)
#: the tensor methods 0.3 code called through the class (``Variable.chunk(dy, 2)``):
#: ``torch.Tensor``'s, with ``out=`` or without
TENSOR_METHODS = TENSOR_FUNCTIONS | frozenset((
    "chunk", "split", "view", "view_as", "expand", "expand_as", "squeeze", "unsqueeze",
    "transpose", "permute", "contiguous", "clone", "detach", "repeat", "index_fill",
    "masked_fill", "narrow", "resize_as", "type_as", "t", "float", "double", "long",
    "int", "byte", "cuda", "cpu", "numel", "size", "dim", "norm", "unfold", "flip",
))
#: functions whose argument ``Variable`` is a class, not a function value
_CLASS_ARG_CALLS = frozenset(
    ("isinstance", "issubclass", "assertIsInstance", "assertNotIsInstance", "type")
)
_PARAMS = ("data", "requires_grad", "volatile")
#: words in a callee's name that mark its result as carrying autograd history
_HISTORY_WORDS = ("loss", "criterion", "crit", "model", "net", "encoder", "decoder",
                  "generator", "discriminator")


@rule("TV001")
def variable_wrap(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags every use of ``torch.autograd.Variable`` as a wrapper.

    ## What it does
    Flags every call of ``torch.autograd.Variable`` (in any import spelling:
    ``from torch.autograd import Variable as V``, ``torch.autograd.variable.Variable``,
    a star import), and ``Variable`` passed as a function value
    (``map(Variable, batch)``, ``functools.partial(Variable, ...)``); and a tensor
    method called through the class, ``Variable.chunk(dy, 2, dim=1)`` (0.3's
    ``Variable`` carried the tensor methods; ``Variable.cat`` was ``torch.cat``).
    ``isinstance(x, Variable)`` (true for every tensor), type comparisons (TV005),
    ``self.assertEqual(type(x), Variable)`` and other assertions, annotations
    and any ``Variable`` that is not torch's (``tf.Variable``, a
    project's own class, a local rebinding) are left alone.

    ## Why is this bad?
    Since PyTorch 0.4 ``Tensor`` and ``Variable`` are one class.  ``Variable(t)``
    returns a *new, detached* leaf that shares ``t``'s storage, so it is at best
    dead weight and at worst cuts the graph where 0.3 code never meant to.
    ``Variable(t, requires_grad=True)`` makes a new leaf while ``t`` itself stays
    ``requires_grad=False``.  ``Variable.chunk(dy, 2, dim=1)`` raises
    ``AttributeError: type object 'Variable' has no attribute 'chunk'`` on 2.13:
    the class is a shim now, without the tensor methods.

    ## Example
    ```python
    inputs = Variable(images.cuda())
    w = Variable(torch.randn(3, 3), requires_grad=True)
    b = Variable(bias, requires_grad=True)
    ```

    Use instead:
    ```python
    inputs = images.cuda()
    w = torch.randn(3, 3, requires_grad=True)
    b = bias.requires_grad_()
    ```

    ## Fix safety
    ``Variable.chunk(...)`` -> ``torch.Tensor.chunk(...)`` (the same unbound
    method; ``Variable.cat`` -> ``torch.cat``) is *safe* for the tensor methods
    torch 2.13 has; another name gets the message only.  Dropping the wrap
    (``Variable(x)`` -> ``x``) is *safe*: under 0.3, ``Variable(v)`` of a
    Variable raised, so ``x`` was a plain tensor without history.  Caveat: if
    the code has since run on >= 0.4 and ``x`` now requires grad, the wrap used
    to detach it.  Where ``x`` visibly carries
    history (``.backward()`` is called on it, it was assigned from a loss or
    model call, it was ``.requires_grad_()``-ed) the fix is ``x.detach()``, which
    is exactly what ``Variable(x)`` does since 0.4; so it is where the wrap's
    result is changed in place (``inp = Variable(images)`` then ``inp.requires_grad
    = True``, ``inp.add_(1)``, ``inp.data[0] = 1``): dropping the wrap would change
    ``images`` itself; only where the change can run after the wrap (later in
    the same flow, or in a loop around both, the name not rebound in between):
    ``target.sub_(1)`` then ``target = Variable(target)`` changed the plain
    tensor before the wrap, and dropping it is exact; and not where ``x`` is a
    tensor just made, that nothing else holds (``Variable(torch.FloatTensor(b,
    n))``, ``Variable(torch.zeros(3).uniform_())``).  Moving
    ``requires_grad=True`` into a torch factory call is *safe*.  Any other
    ``requires_grad=`` becomes ``x.requires_grad_()``: *unsafe*, because ``x``
    itself now requires grad; where the tensor ``x`` names is used again (read
    elsewhere in the function, a parameter, or wrapped in a loop) it becomes
    the exact form ``x.detach().requires_grad_()``, a new leaf as 0.3 made.
    A wrap with ``volatile=`` other than ``False`` gets no fix: TV002 asks for a
    ``torch.no_grad()`` region first; but a helper's ``volatile=volatile``
    (its own parameter) counts as ``False`` where every call of the helper is
    in view and none passes a true value (TV002 says which).  A wrap whose text holds a comment is
    unsafe to rewrite.  ``x = Variable(x)`` goes with its statement (``pass`` where
    it was the only one of its block), and with an ``if`` without ``else`` it was
    the only statement of, whose test only computes (``if not isinstance(x,
    Variable): x = Variable(x)``: nothing is left to test).
    """
    if ctx.resolve(node.func) == VARIABLE:
        yield _wrap_report(ctx, node)
        return
    func = node.func
    if isinstance(func, ast.Attribute) and not func.attr.startswith("_") \
            and ctx.resolve(func.value) == VARIABLE:
        yield _class_method_report(ctx, func)
        return
    values = [*node.args, *(kw.value for kw in node.keywords)]
    if not any(isinstance(v, (ast.Name, ast.Attribute)) for v in values):
        return
    callee = key(node.func)
    if callee is None:
        return
    callee = callee.rsplit(".", 1)[-1]
    if callee in _CLASS_ARG_CALLS or callee.startswith("assert"):
        return  # a class compared or checked against (TV005's business), not a function
    for value in values:
        if isinstance(value, (ast.Name, ast.Attribute)) and ctx.resolve(value) == VARIABLE:
            yield Report(
                value,
                f"`{ctx.source.quote(value)}` passed as a function is a no-op wrapper since "
                "PyTorch 0.4 (it detaches); drop it or pass `torch.Tensor.detach`",
            )


def _class_method_report(ctx: Context, func: ast.Attribute) -> Report:
    """``Variable.chunk(dy, 2, dim=1)``: a tensor method read off 0.3's class."""
    from .type_comparison import torch_name

    src = ctx.source
    torch, imports = torch_name(ctx)
    attr = func.attr
    owner = torch if attr == "cat" else f"{torch}.Tensor"
    known = attr == "cat" or attr in TENSOR_METHODS
    return Report(
        func,
        f"`{src.quote(func, 30)}` is no attribute of `Variable` since PyTorch 0.4 "
        f"(AttributeError; 0.3's Variable was the tensor class of autograd and carried "
        f"the tensor methods): use `{owner}.{attr}`",
        Fix((src.replace(func.value, owner),), SAFE, imports) if known else None,
    )


def _params(node: ast.Call) -> Optional[Dict[str, ast.AST]]:
    """Arguments by parameter name, or ``None`` when they cannot be told apart."""
    if len(node.args) > len(_PARAMS):
        return None
    params: Dict[str, ast.AST] = {}
    for name, arg in zip(_PARAMS, node.args):
        if isinstance(arg, ast.Starred):
            return None
        params[name] = arg
    for kw in node.keywords:
        if kw.arg not in _PARAMS or kw.arg in params:
            return None
        params[kw.arg] = kw.value
    return params


def _is_const(node: Optional[ast.AST], value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _carries_history(ctx: Context, data: ast.AST) -> bool:
    """Whether ``data`` visibly carries autograd history in the enclosing function.

    Evidence is read off the function's text (so this costs no walk):
    ``data.backward(``, ``data.requires_grad_(``, or ``data = <loss or model
    call>(`` at the start of a line.  It only chooses between ``x`` and
    ``x.detach()``, which behave the same on 0.3 code.
    """
    if isinstance(data, ast.Call):
        callee = key(data.func)
        return callee is not None and _history_callee(callee)
    k = key(data)
    if k is None:
        return False
    text = _scope_text(ctx)
    return k in _backpropagated(ctx, text) or any(
        _history_callee(c) for c in _assigned_callees(ctx, text, k)
    )


#: what changes a tensor in place, after the name it is done to: ``.requires_grad
#: =``, an in-place method (``.add_(``, ``.requires_grad_(``), a write through
#: ``.data`` or a subscript, an augmented assignment
_MUTATION = (r"\s*(?:\.\s*requires_grad\s*=(?!=)|\.\s*(?:data\s*\.\s*)?[a-z]\w*[a-z0-9]_\s*\("
             r"|(?:\.\s*data\s*)?(?:\[[^\n=]*\])?\s*(?:\.\s*data\s*)?=(?!=)"
             r"|\s*(?:[-+*/%@&|^]|//|\*\*|<<|>>)=)")


def _fresh(ctx: Context, data: ast.AST) -> bool:
    """``data`` makes a new tensor that nothing else holds: a torch constructor
    (``torch.FloatTensor(b, n)``, ``torch.zeros(3)``), or an in-place method of
    one (``.normal_(0, 1)``): changing the wrap's result in place changes
    nothing else, so it needs no ``.detach()``."""
    while isinstance(data, ast.Call) and isinstance(data.func, ast.Attribute) and \
            data.func.attr.endswith("_") and not data.func.attr.endswith("__") and \
            ctx.resolve(data.func) is None:
        data = data.func.value
    if not isinstance(data, ast.Call):
        return False
    name = ctx.resolve(data.func)
    return name is not None and constructor(name)


def _mutated(ctx: Context, node: ast.Call) -> bool:
    """Whether the wrap's result is changed in place: ``inp = Variable(images)``
    then ``inp.requires_grad = True`` (or ``inp.add_(1)``, ``inp.data[0] = 1``,
    ``inp += 1``), or ``Variable(x).add_(1)``.  Then ``Variable(x)`` made a new
    tensor (since 0.4, a new leaf) and ``x`` alone would be changed instead:
    the fix is ``x.detach()``, what the wrap does.  Read off the enclosing
    function's text; a name matched in excess only gives ``.detach()``."""
    parent = ctx.parent
    if isinstance(parent, ast.Attribute):
        return parent.attr.endswith("_") and not parent.attr.endswith("__")
    if not (isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node):
        return False
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    names = {key(t) for t in targets if isinstance(t, (ast.Name, ast.Attribute))}
    names.discard(None)
    if not names:
        return False
    text = _scope_text(ctx)
    for name in names:
        first = name.split(".", 1)[0]
        if not _WORD.fullmatch(first):  # (an identifier with a character \w is not)
            pattern = rf"(?<![\w.]){re.escape(name)}{_MUTATION}"
            found = any(_changes(text, match, name) for match in re.finditer(pattern, text))
        else:  # where the name may stand: where its first word does
            found = any(text.startswith(name, at) and _changes(
                text, _MUTATION_AT.match(text, at + len(name)), name, at)
                for at in _name_starts(ctx, text, first))
        if found and _changed_after(ctx, parent, name):
            return True
    return False


def _changed_after(ctx: Context, statement: ast.stmt, name: str) -> bool:
    """Whether one of the in-place changes of ``name`` the text shows can act on
    what ``statement`` (the wrap's assignment) binds: that binding reaches the
    change's read of ``name`` (later in the same flow, or in a loop around both
    where nothing rebinds the name in between).  ``target.sub_(1)`` then
    ``target = Variable(target)`` changed the plain tensor before the wrap:
    dropping the wrap is exact.  A change whose reach is not known (in a
    lambda), or none found in the tree (the text matched inside a string),
    counts as one that follows."""
    flow = ctx.flow()
    cache = ctx.memo.setdefault("TV001 changes", {})
    by_name = cache.get(id(flow.node))  # type: ignore[union-attr]
    if by_name is None:  # (one walk of the scope for every name)
        by_name = cache[id(flow.node)] = _change_reads(flow.node)  # type: ignore
    reads = by_name.get(name)  # type: ignore[union-attr]
    if not reads:
        return True
    for read in reads:  # type: ignore[union-attr]
        defs = flow.reaching(read)
        if defs is None or any(d.node is statement for d in defs):
            return True
    return False


def _change_reads(scope: ast.AST) -> Dict[str, List[ast.AST]]:
    """The reads of each name that a change in place of its tensor starts from,
    in ``scope`` outside nested functions and classes: ``name.add_(...)``,
    ``name.data.copy_(...)``, ``name[i] = v``, ``name.data = v``,
    ``name.requires_grad = v``, ``name += v``; by the name's key."""
    found: Dict[str, List[ast.AST]] = {}
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if node.__class__ in _DEFINITIONS:
            continue
        stack.extend(ast.iter_child_nodes(node))
        targets: List[ast.AST] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr.endswith("_") and not attr.endswith("__"):
                base = _through_data(node.func.value)
                k = key(base)
                if k is not None:
                    found.setdefault(k, []).append(base)
        elif isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        while targets:
            target = targets.pop()
            if isinstance(target, (ast.Tuple, ast.List)):
                targets += target.elts
                continue
            if isinstance(target, ast.Starred):
                targets.append(target.value)
                continue
            base = target
            while isinstance(base, ast.Subscript) or (
                    isinstance(base, ast.Attribute) and base.attr in ("data", "requires_grad")):
                base = base.value
            k = key(base)
            if k is not None and (base is not target or isinstance(node, ast.AugAssign)):
                found.setdefault(k, []).append(base)
    return found


def _through_data(node: ast.AST) -> ast.AST:
    """``x`` for ``x.data`` (and ``x.data.data``), else ``node``."""
    while isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value
    return node


_WORD = re.compile(r"\w+")
#: a word not after a word character or a dot: where a name may start
_WORD_START = re.compile(r"(?<![\w.])\w+")
_MUTATION_AT = re.compile(_MUTATION)


#: a text searched for this many names is indexed by its words (one search of it)
_INDEX_AFTER = 8


def _name_starts(ctx: Context, text: str, word: str) -> List[int]:
    """Where ``word`` starts a name in ``text``: found with ``str.find`` for the
    first few words asked of a text, then from an index of all its words (a
    function that wraps a thousand names is read once, not a thousand times)."""
    asked = ctx.memo.setdefault("TV001 asked", {})
    count = asked[text] = asked.get(text, 0) + 1  # type: ignore[union-attr]
    if count > _INDEX_AFTER:
        return _word_starts(ctx, text).get(word, [])
    found = []
    at = text.find(word)
    while at != -1:
        end = at + len(word)
        if not (at and (text[at - 1].isalnum() or text[at - 1] in "_.")) and not (
                end < len(text) and (text[end].isalnum() or text[end] == "_")):
            found.append(at)
        at = text.find(word, end)
    return found


def _word_starts(ctx: Context, text: str) -> Dict[str, List[int]]:
    """Word -> where it starts a name in ``text`` (made once per text)."""
    cache = ctx.memo.setdefault("TV001 words", {})
    found = cache.get(text)  # type: ignore[union-attr]
    if found is None:
        found = cache[text] = {}  # type: ignore[index]
        for match in _WORD_START.finditer(text):
            found.setdefault(match.group(), []).append(match.start())  # type: ignore
    return found  # type: ignore[return-value]


def _changes(text: str, match: Optional["re.Match"], name: str, at: Optional[int] = None
             ) -> bool:
    """Whether ``match`` (the name at ``at`` and what follows it) changes the value
    in place: not a plain ``name = ...``, which binds a new one."""
    if match is None:
        return False
    start = match.start() if at is None else at
    return not (text[start:match.end()].rstrip().endswith("=")
                and text[start + len(name):match.end()].strip() == "=")


#: ``.backward(`` and ``.requires_grad_(``, after the name they are called on
_BACKWARD = r"\.\s*(?:backward|requires_grad_)\s*\("
#: `` = callee(`` after a name at the start of a line
_ASSIGNED_CALL = r"\s*=\s*([\w.]+)\s*\("


def _backpropagated(ctx: Context, text: str) -> Set[str]:
    """The names ``.backward(`` or ``.requires_grad_(`` is called on in ``text``
    (the enclosing function's, read once)."""
    cache = ctx.memo.setdefault("backpropagated", {})
    found = cache.get(text)
    if found is None:
        found = cache[text] = set()
        for match in re.finditer(_BACKWARD, text):
            end = match.start()
            while end and text[end - 1].isspace():
                end -= 1
            start = end
            while start and (text[start - 1].isalnum() or text[start - 1] in "_."):
                start -= 1
            found.add(text[start:end])
    return found


#: ``k = callee(`` at the start of a line (after blanks): ``k`` and the callee
_LINE_ASSIGNED_CALL = re.compile(r"(?m)^[ \t]*([\w.]+)(?=" + _ASSIGNED_CALL + ")")


def _assigned_callees(ctx: Context, text: str, k: str) -> List[str]:
    """The callees in ``k = callee(`` at the start of a line of ``text``.

    Every ``k``'s are found in one search of the text, the first time one is
    asked for (a search per name would be a pass over a module's text per
    finding); a key with a character ``\\w`` is not is looked for alone.
    """
    if re.fullmatch(r"[\w.]+", k):
        index = ctx.memo.setdefault("assigned_callees", {})
        by_key = index.get(text)  # type: ignore[union-attr]
        if by_key is None:
            by_key = index[text] = {}  # type: ignore[index]
            for match in _LINE_ASSIGNED_CALL.finditer(text):
                by_key.setdefault(match.group(1), []).append(match.group(2))
        return by_key.get(k, [])  # type: ignore[no-any-return]
    cache = ctx.memo.setdefault("assigned_callees alone", {})
    found = cache.get((text, k))
    if found is None:
        found = cache[(text, k)] = []
        assigned_call = re.compile(_ASSIGNED_CALL).match  # (``re`` keeps it compiled)
        start = text.find(k)
        while start != -1:
            if (not start or text[start - 1] in " \t\n") and at_line_start(text, start):
                match = assigned_call(text, start + len(k))
                if match is not None:
                    found.append(match.group(1))
            start = text.find(k, start + 1)
    return found


def _scope_text(ctx: Context) -> str:
    """The text of the enclosing function (or module), without nested functions and classes."""
    scope = ctx.scope.function()
    node = scope.node if scope is not None else ctx.tree
    cache = ctx.memo.setdefault("scope_text", {})
    text = cache.get(node)
    if text is None:
        lines = ctx.source.lines
        first, last = (node.lineno, node.end_lineno) if scope is not None else (1, len(lines))
        body = node.body if isinstance(getattr(node, "body", None), list) else []
        pieces = []
        at = first  # the first line not yet taken or left out
        for start, end in sorted(
            (min([nested.lineno] + [d.lineno for d in nested.decorator_list]), nested.end_lineno)
            for nested in _nested_definitions(body)
        ):
            pieces += lines[at - 1:start - 1]
            at = max(at, end + 1)
        pieces += lines[at - 1:last]
        text = cache[node] = "".join(pieces)
    return text


_DEFINITIONS = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
#: statement class -> its fields among :data:`_BLOCKS`
_BLOCKS_OF: Dict[type, tuple] = {}


def _nested_definitions(body) -> List[ast.AST]:
    """Function and class definitions among ``body``'s statements, at any block depth."""
    found = []
    stack = list(body)
    blocks_of = _BLOCKS_OF
    while stack:
        statement = stack.pop()
        cls = statement.__class__
        if cls in _DEFINITIONS:
            found.append(statement)
            continue
        fields = blocks_of.get(cls)
        if fields is None:
            fields = blocks_of[cls] = tuple(f for f in _BLOCKS if f in cls._fields)
        for field in fields:  # (none for a simple statement)
            for child in getattr(statement, field):
                if isinstance(child, ast.stmt):
                    stack.append(child)
                else:  # an except handler or a match case
                    stack += child.body
    return found


def _history_callee(callee: str) -> bool:
    if callee.startswith("self.") and callee.count(".") == 1:
        return True  # a submodule of the model
    last = callee.rsplit(".", 1)[-1].lower()
    for word in _HISTORY_WORDS:  # (a loop: cheaper than a generator for a few words)
        if word in last:
            return True
    return False


def _wrap_report(ctx: Context, node: ast.Call) -> Report:
    src = ctx.source
    quoted = src.quote(node)
    what = f"`{quoted}` is a no-op wrapper since PyTorch 0.4"
    params = _params(node)
    data = params.get("data") if params else None
    if data is None:
        return Report(node, f"{what}; pass the tensor itself")
    volatile = params.get("volatile")
    requires_grad = params.get("requires_grad")
    data_text = src.text(data)
    safety = SAFE
    if requires_grad is None or _is_const(requires_grad, False):
        if _carries_history(ctx, data) or not _fresh(ctx, data) and _mutated(ctx, node):
            new = _suffix(ctx, data, data_text, ".detach()")
        else:
            new = data_text
            if needs_parens(data, ctx.parent, src):
                new = f"({new})"
    else:
        rg_text = "" if _is_const(requires_grad, True) else src.text(requires_grad)
        factory = _factory_with_requires_grad(ctx, data, data_text, requires_grad)
        if factory is not None:
            new = factory
        else:
            detach = ".detach()" if _reused(ctx, node, data) else ""
            new = _suffix(ctx, data, data_text, f"{detach}.requires_grad_({rg_text})")
            safety = UNSAFE
    suggestion = one_line(new)
    if volatile is not None and not _is_const(volatile, False) and never_true(
            ctx, volatile) is None:
        return Report(node, f"{what}; use `{suggestion}` (see TV002 for `volatile`)")
    outside = src.text(node).replace(data_text, "", 1)
    if has_comment(outside):
        safety = UNSAFE
    if new == data_text:
        dropped = _drop_self_assignment(ctx, node, data_text)
        if dropped is not None:
            return Report(node, f"{what}; drop the assignment (`{shorten(data_text, 30)}` "
                                "is already a tensor)", Fix((dropped,), safety))
    fix = Fix((src.replace(node, new),), safety)
    return Report(node, f"{what}; use `{suggestion}`", fix)


def _drop_self_assignment(ctx: Context, node: ast.Call, data_text: str) -> Optional[Edit]:
    """The edit that removes ``x = Variable(x)`` (or ``x, y = Variable(x), Variable(y)``,
    or ``x, y = Variable(x), y`` once another round has unwrapped ``y``).

    The statement goes with its line; one that shares its line with other
    statements (``x = Variable(x); y = 1``) goes with its ``;``; it becomes
    ``pass`` where it is the only one of its block; the ``if`` around it goes too
    where it is the only statement of an ``if`` without ``else`` whose test only
    computes (``if not isinstance(x, Variable): x = Variable(x)``).  A comment
    after it stays, on its own line; an ``else:`` it empties goes with it.  Every wrap of a
    tuple gets the same edit: the fixer applies it once.
    """
    chain = [ctx.tree, *ctx.parents]  # (the walker does not list the module)
    value: ast.AST = node
    if isinstance(ctx.parent, ast.Tuple):
        value = ctx.parent
    depth = 2 if value is node else 3
    if len(chain) < depth:
        return None
    statement, block = chain[-depth + 1], chain[-depth]
    if not (
        isinstance(statement, ast.Assign)
        and statement.value is value
        and len(statement.targets) == 1
    ):
        return None
    src = ctx.source
    target = statement.targets[0]
    if value is node:
        pairs = [(target, data_text)]
    elif isinstance(target, ast.Tuple) and len(target.elts) == len(value.elts):
        pairs = [(t, _unwrapped(ctx, v)) for t, v in zip(target.elts, value.elts)]
    else:
        return None
    for target_elt, text in pairs:
        if not isinstance(target_elt, (ast.Name, ast.Attribute)) or src.text(target_elt) != text:
            return None
    if isinstance(block, ast.If) and block.body == [statement] and not block.orelse \
            and len(chain) > depth and _pure(block.test) \
            and not any(ctx.scope.binds(name) for name in ("isinstance", "type")) \
            and not has_comment(src.between(src.start(block), src.start(statement))):
        # (``if not isinstance(x, Variable): x = Variable(x)``: nothing is left to do)
        return drop_statement(src, chain[-depth - 1], block)
    return drop_statement(src, block, statement)


def _pure(test: ast.AST) -> bool:
    """Whether evaluating ``test`` does nothing but compute it: names, attributes,
    constants, ``not``, ``and``/``or``, comparisons and ``isinstance``/``type``."""
    for sub in ast.walk(test):
        if isinstance(sub, ast.Call):
            if not (isinstance(sub.func, ast.Name) and sub.func.id in ("isinstance", "type")
                    and not sub.keywords):
                return False
        elif not isinstance(sub, (ast.Name, ast.Attribute, ast.Constant, ast.UnaryOp,
                                  ast.BoolOp, ast.Compare, ast.Tuple, ast.expr_context,
                                  ast.boolop, ast.cmpop, ast.unaryop)):
            return False
    return True


def _unwrapped(ctx: Context, value: ast.AST) -> Optional[str]:
    """``x`` for a wrap whose fix is plain ``x`` (``Variable(x)``,
    ``Variable(x, volatile=False)``) or a name ``x`` (already unwrapped), else ``None``."""
    if isinstance(value, (ast.Name, ast.Attribute)):
        return ctx.source.text(value)
    if not isinstance(value, ast.Call) or ctx.resolve(value.func) != VARIABLE:
        return None
    params = _params(value)
    data = params.get("data") if params else None
    if data is None or not all(
        params.get(p) is None or _is_const(params[p], False) for p in ("requires_grad", "volatile")
    ):
        return None
    if _carries_history(ctx, data):
        return None  # it becomes ``x.detach()``
    return ctx.source.text(data)


def _suffix(ctx: Context, data: ast.AST, data_text: str, suffix: str) -> str:
    if needs_parens(data, ast.Attribute, ctx.source):
        data_text = f"({data_text})"
    return data_text + suffix


def _factory_with_requires_grad(
    ctx: Context, data: ast.AST, data_text: str, requires_grad: ast.AST
) -> Optional[str]:
    if not isinstance(data, ast.Call) or ctx.resolve(data.func) not in FACTORIES:
        return None
    if any(kw.arg in ("requires_grad", None) for kw in data.keywords):
        return None
    if not data_text.endswith(")"):
        return None
    inner = data_text[:-1].rstrip()
    separator = "" if inner.endswith(("(", ",")) else ", "
    if inner.endswith(","):
        separator = " "
    return f"{inner}{separator}requires_grad={ctx.source.text(requires_grad)})"


#: methods that may return the tensor they are called on (``x.cuda()`` of a
#: CUDA tensor, ``x.float()`` of a float tensor)
_MAY_RETURN_SELF = frozenset((
    "cuda", "cpu", "float", "double", "half", "long", "int", "byte", "type", "type_as",
    "to", "contiguous",
))


def _reused(ctx: Context, node: ast.Call, data: ast.AST) -> bool:
    """Whether ``x.requires_grad_()`` in place of ``Variable(x, requires_grad=True)``
    would flip a tensor the program uses again: ``x``'s name is read elsewhere
    in the function (or module), is a parameter (the caller's tensor), or the
    wrap is in a loop.  ``x = Variable(x, ...)`` outside loops rebinds the name:
    later reads see the new leaf.  A fresh value (a call
    that makes a new tensor) is never reused."""
    while (isinstance(data, ast.Call) and isinstance(data.func, ast.Attribute)
           and data.func.attr in _MAY_RETURN_SELF):
        data = data.func.value
    root = data
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or key(data) is None:
        return False
    name = root.id
    function = ctx.scope.function()
    where = function.node if function is not None else ctx.tree
    if function is not None and isinstance(where, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                   ast.Lambda)):
        if any(arg.arg == name for arg in params_of(where)):
            return True
    if any(isinstance(p, LOOPS) for p in ctx.parents):
        return True  # the next round reads what this one flipped (or the loop's source does)
    statement = innermost(ctx.parents, ast.stmt)
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and key(statement.targets[0]) == key(data)):
        return False  # ``x = Variable(x, requires_grad=True)``: later reads see the new leaf
    inside = {id(n) for n in ast.walk(node)}
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        and id(n) not in inside
        for n in ast.walk(where)
    )
