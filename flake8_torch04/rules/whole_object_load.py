"""TV106: ``torch.load`` of a whole pickled object, refused by ``weights_only=True``."""
from __future__ import annotations

import ast
import os
from collections import deque
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ..analysis.context import Context
from ..analysis.findings import UNSAFE, Fix, Report
from ..analysis.lines import lines_matching
from ..analysis.nodes import body_nodes, body_parents, children, words
from ..analysis.registry import rule
from ..analysis.resolve import key
from ..analysis.saved import node_path, saved_refused
from ..source.text import Edit, shorten
from .shared.loadable import LOADABLE_ATTRIBUTES

_LOADS = frozenset(("torch.load", "torch.serialization.load"))
#: methods only a module (not a tensor, not a state dict) has
_MODULE_METHODS = frozenset((
    "eval", "train", "parameters", "named_parameters", "state_dict", "forward", "modules",
    "named_modules", "children", "named_children", "zero_grad", "buffers",
))
#: methods a loaded value keeps its kind through (a tensor and a module have them)
_TRANSPARENT = frozenset(("cuda", "cpu", "to", "float", "double", "half"))
#: methods only a numpy array has
_NUMPY_METHODS = frozenset(("astype",))
#: methods of a dict (a checkpoint or state dict)
_DICT_METHODS = frozenset(("keys", "items", "values", "get", "pop", "update"))
#: last words of names that hold a whole model
_MODEL_WORDS = frozenset(("model", "net", "module", "encoder", "decoder"))

#: the fields that hold statements (or handlers and match cases, which hold them)
_STATEMENT_LISTS = frozenset(("body", "orelse", "handlers", "finalbody", "cases"))

WHOLE, NUMPY, OBJECT, STATE, UNKNOWN = "whole", "numpy", "object", "state", None
#: how the evidence of a checkpoint's entry starts (``['model']`` of it: ...)
_ENTRY = "`["
#: how much a use tells of what was loaded (the message names the most telling)
_RANK = {UNKNOWN: 0, OBJECT: 1, NUMPY: 2, WHOLE: 3}
#: what the message says each kind of loaded value is
_WHAT = {WHOLE: "a whole model", NUMPY: "a numpy value", OBJECT: "a pickled object"}


@rule("TV106")
def whole_object_load(ctx: Context, node: ast.Call) -> Iterator[Report]:
    """Flags ``torch.load(f)`` of a whole model or other pickled object.

    ## What it does
    Flags ``torch.load(f)`` (resolved through imports; a project's own
    ``load`` is never flagged) without ``weights_only=`` (nor a
    ``pickle_module``, which turns the default off) whose result is used as a
    whole object: called, ``.eval()``/``.train()``/``.parameters()``/
    ``.state_dict()``/``.forward`` on it (also after ``.cuda()``/``.to(...)``),
    given to a ``numpy`` function or ``.astype(...)``-ed (or an element of it
    given to ``torch.from_numpy``: ``torch.from_numpy(data[3:, :-1])``), a
    checkpoint's entry used in those ways (``torch.load(f)['model'].eval()``, or
    ``net = ckpt['net']`` and then ``net.parameters()``: an entry is judged by
    its uses alone, and one used whole decides beside entries that are state
    dicts), an attribute read from it that no tensor, number or container has
    (``opt = ckpt['settings']; opt.max_len``: an ``argparse.Namespace``;
    ``dataset.examples``: a pickled dataset; the attributes of ``torch.Tensor``
    and of the Python types a checkpoint holds are listed in
    ``rules/shared/loadable.py``), or bound to a name
    whose last word is ``model``, ``net`` (``resnet``), ``module``,
    ``encoder`` or ``decoder`` -- or a name used in those ways in the same
    function (a module method's name read but not called, ``corpus.train``,
    is some pickled object: the message says so); a result unpacked into
    names (``model, criterion, optimizer = torch.load(f)``) when one of them
    is such a name; a result a helper returns (``def load_model(path): return
    torch.load(path)``, defined once at the top of its module) is used as its
    callers use theirs, in the file and in the project's modules that import it
    (``model = utils.load_model(args.model_file)`` then ``model.eval()``).
    Where the uses say nothing (or only that a checkpoint's
    entries are state dicts), the project's own ``torch.save(OBJ, PATH)`` calls
    to the same path say what the file holds (in the file and in the project's
    other modules; see ``analysis/saved.py`` for what is the same path: the same
    string, the same ``args.save``, the same ``os.path.join(args.dir,
    'model.pt')``; through helpers that take the path, ``utils.save_model(model,
    args.model_file)`` and ``def load_model(path): return torch.load(path)``, the
    paths their calls pass): flagged when every one of them saves a whole ``nn.Module``
    (of torch or of a class of the project), a numpy array, an
    ``argparse.Namespace`` (``opt = parser.parse_args()``, also bound in another
    module of the project: ``from options import opt``), an instance of a plain
    class of the project (``vocab = data.Dictionary()``: weights_only refuses every
    class it does not know), or a dict, tuple or list literal holding one
    (``torch.save({'settings': opt, 'model': model.state_dict()}, path)``: the
    message names the key); silent when one of
    them saves something else or something unknown.  A checkpoint resumed
    from the same path (``state = {'opt': opt}``, ``if resume: state =
    torch.load(path)``, then ``torch.save(state, path)``) saves what its other
    bindings give: the reload holds what this save wrote, so it adds nothing
    unknown, and both loads are flagged.  Not flagged: a result
    handed to ``load_state_dict``, indexed by string keys whose entries are not used whole
    (``ckpt['state_dict']``) or read with dict methods, and
    results without evidence either way (a loaded tensor can be
    ``.cuda()``-ed or have a ``.shape``: tensors load fine).

    ## Why is this bad?
    Since PyTorch 2.6 ``torch.load`` defaults to ``weights_only=True``, which
    only unpickles tensors, state dicts and plain containers.  A whole pickled
    ``nn.Module`` (the 0.3-era ``torch.save(model, path)``), a numpy array or
    a custom class fails with ``UnpicklingError: Weights only load failed``
    (on 2.13, for a saved ``{'settings': opt, ...}``: ``Unsupported global: GLOBAL
    argparse.Namespace was not an allowed global by default``; for a module:
    ``GLOBAL torch.nn.modules.linear.Linear``; for a numpy array:
    ``GLOBAL numpy._core.multiarray._reconstruct``).

    ## Example
    ```python
    model = torch.load('model.pkl')
    model.eval()
    ```

    Use instead:
    ```python
    model = torch.load('model.pkl', weights_only=False)  # a file you trust
    model.eval()
    ```
    Better: load it once this way, save ``model.state_dict()``, and load that
    with ``model.load_state_dict(torch.load(path))``.

    ## Fix safety
    Adding ``weights_only=False`` is *unsafe*: unpickling runs arbitrary code
    from the file, so it is only right for files you trust.
    """
    if ctx.resolve(node.func) not in _LOADS:
        return
    if len(node.args) >= 3 or any(kw.arg in (None, "weights_only", "pickle_module")
                                  for kw in node.keywords):
        return
    if any(isinstance(a, ast.Starred) for a in node.args) or not node.args and not any(
            kw.arg == "f" for kw in node.keywords):
        return
    kind, why = _use(ctx, node)
    if kind not in _WHAT:
        kind, why = _saved(ctx, node, kind)
        if kind not in _WHAT:
            return
    src = ctx.source
    end = max(src.end(n) for n in [*node.args, *(kw.value for kw in node.keywords)])
    quoted = src.quote(node, 40)
    what = _WHAT[kind]
    yield Report(
        node,
        f"`{quoted}` loads {what} ({why}), refused by weights_only=True (the default "
        f"since PyTorch 2.6); add `weights_only=False`, only for files you trust",
        Fix((Edit(end, end, ", weights_only=False"),), UNSAFE),
    )


#: what a value ``torch.save`` is given is, as a kind of loaded value
_SAVED_KIND = {"module": WHOLE, "ndarray": NUMPY, "object": OBJECT}


def _saved(ctx: Context, call: ast.Call, used: Optional[str]) -> Tuple[Optional[str], str]:
    """What the project's ``torch.save`` calls to the same path hold that
    ``weights_only=True`` refuses (see :mod:`..analysis.saved`), where its uses
    say nothing (``used``: unknown) or say a dict's entries are state dicts."""
    parent = ctx.parent_of(call, call)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) \
            and parent.func.attr == "load_state_dict":
        return UNKNOWN, ""  # (``m.load_state_dict(torch.load(f))``: a state dict)
    path = node_path(call)
    found = saved_refused(ctx, path) if path is not None else None
    if found is None or used == STATE and found.under is None:
        return UNKNOWN, ""  # (a dict by its uses, a whole object by its save: not one file)
    under = f" under `{found.under}`" if found.under else ""
    return _SAVED_KIND[found.kind], f"saved as {found.what}{under} {found.where}"


def _use(ctx: Context, call: ast.Call, returned: bool = True) -> Tuple[Optional[str], str]:
    """What the loaded value is used as: ``(kind, evidence in words)``; ``returned``:
    also what the callers of the function that returns it use it as (the call is
    the node the rule visits)."""
    parents = _call_parents(ctx, call)
    kind, why = _use_of(ctx, call, parents)
    if kind is not UNKNOWN:
        return kind, why
    parent = parents.get(id(call))
    if isinstance(parent, ast.Return):
        return _returned_use(ctx) if returned else (UNKNOWN, "")
    target = None
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        target = parent.targets[0]
    elif isinstance(parent, ast.AnnAssign):
        target = parent.target
    if isinstance(target, (ast.Tuple, ast.List)):
        # ``model, criterion, optimizer = torch.load(f)``: a pickled sequence,
        # whole as soon as one of its parts is (a state dict part tells nothing)
        for element in target.elts:
            k = key(element)
            if k is not None:
                kind, _ = _bound(ctx, k, parent)
                if kind in _WHAT:
                    return kind, f"unpacked into `{shorten(k, 20)}`"
        return UNKNOWN, ""
    k = key(target) if target is not None else None
    if k is None:
        return UNKNOWN, ""
    return _bound(ctx, k, parent)


def _returned_use(ctx: Context) -> Tuple[Optional[str], str]:
    """``return torch.load(f)`` in a helper (``def load_model(path)``, defined once at
    the top of its module, undecorated): what its callers use the result as, in the
    file and in the project's other modules that import it (``model =
    utils.load_model(args.model_file)`` then ``model.eval()``), where every use of
    its name there is a plain call (see :mod:`~.analysis.importing`)."""
    from ..analysis.callers import file_callers
    from ..analysis.importing import importing_sites
    from ..analysis.nodes import innermost
    from ..analysis.project.importers import named_elsewhere

    function = innermost(ctx.parents, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None or ctx.defined_once().get(function.name) is not function:
        return UNKNOWN, ""
    local = file_callers(ctx).sites(function)
    if local is None:
        return UNKNOWN, ""
    sites = [(ctx, call) for call, _ in local]
    if ctx.filename and named_elsewhere(ctx.filename, function.name, imported=True):
        remote = importing_sites(ctx, function)
        sites += [(other, call) for other, call, _ in remote or ()]
    for other, call in sites:
        kind, why = _use(other, call, returned=False)
        if kind in (WHOLE, NUMPY, OBJECT) and not why.startswith("bound to"):
            # (a use, not a caller's name alone: the saves to the path say more)
            where = f"{os.path.basename(other.filename)}:{call.lineno}" if other is not ctx \
                else f"line {call.lineno}"
            return kind, f"returned by `{function.name}`; {where}: {why}"
    return UNKNOWN, ""


def _bound(ctx: Context, k: str, parent: ast.AST) -> Tuple[Optional[str], str]:
    """What the value bound to ``k`` by ``parent`` is used as, after it."""
    found: Tuple[Optional[str], str] = (UNKNOWN, "")
    state = False
    for use, use_parents in _reads(ctx, k, parent):
        use_kind, use_why = _use_of(ctx, use, use_parents)
        if use_kind == STATE:
            state = True
        elif use_kind is not UNKNOWN and _RANK[use_kind] > _RANK[found[0]]:
            found = (use_kind, use_why)  # (the most telling use: a model before an object)
    if state and not found[1].startswith(_ENTRY):
        return STATE, ""  # (but a checkpoint's entry used whole is so, beside state dicts)
    if found[0] in (UNKNOWN, OBJECT):  # (an object named a model is one: say so)
        ws = words(k.rsplit(".", 1)[-1])
        if ws and (ws[-1] in _MODEL_WORDS or ws[-1].endswith("net")):
            more = f", {found[1]}" if found[0] is OBJECT else ""
            return WHOLE, f"bound to `{shorten(k, 20)}`{more}"
    return found


def _use_of(ctx: Context, expr: ast.AST, parents: Dict[int, ast.AST]
            ) -> Tuple[Optional[str], str]:
    """What one occurrence of the value tells: through ``.cuda()``/``.to(...)``."""
    for _ in range(8):
        parent = parents.get(id(expr))
        if isinstance(parent, ast.Call):
            if parent.func is expr:
                return WHOLE, "called"
            func = parent.func
            if isinstance(func, ast.Attribute) and func.attr == "load_state_dict":
                return STATE, ""
            name = ctx.resolve(func) or ""
            if name.split(".", 1)[0] == "numpy" or name == "torch.from_numpy":
                return NUMPY, f"given to `{shorten(ctx.source.text(func), 20)}`"
            attr = _read_in_callee(ctx, parent, expr)  # (``Seq2Seq(params['opt'], ...)``)
            if attr is not None:
                return OBJECT, f"given to `{shorten(ctx.source.text(func), 20)}`, " \
                               f"which reads `.{attr}` from it"
            return UNKNOWN, ""
        if isinstance(parent, ast.Subscript) and parent.value is expr:
            index = parent.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, str):
                return _keyed(ctx, parent, parents)
            if not isinstance(parent.ctx, ast.Load):
                return UNKNOWN, ""
            expr = parent  # (an element or a slice: what it is used as tells)
            continue
        if isinstance(parent, ast.Attribute) and parent.value is expr:
            attr = parent.attr
            if attr in _MODULE_METHODS:
                grand = parents.get(id(parent))
                if attr == "forward" or isinstance(grand, ast.Call) and grand.func is parent:
                    return WHOLE, f"`.{attr}` on it"
                # ``corpus.train``: an attribute no tensor or dict has, of some
                # pickled object (a module's method, or a class's own field)
                return OBJECT, f"`.{attr}` read from it"
            if attr in _NUMPY_METHODS:
                return NUMPY, f"`.{attr}` on it"
            if attr in _DICT_METHODS:
                return STATE, ""
            grand = parents.get(id(parent))
            if attr in _TRANSPARENT and isinstance(grand, ast.Call) and grand.func is parent:
                expr = grand
                continue
            if attr not in LOADABLE_ATTRIBUTES and not attr.startswith("__") \
                    and isinstance(parent.ctx, ast.Load):
                # (``opt.batch_size``: no tensor, container or number has it)
                return OBJECT, f"`.{attr}` read from it"
        return UNKNOWN, ""
    return UNKNOWN, ""


def _read_in_callee(ctx: Context, call: ast.Call, expr: ast.AST) -> Optional[str]:
    """An attribute no tensor, number or container has that the function or class
    of the file ``call`` calls reads from the parameter ``expr`` is passed for
    (its ``__init__``'s, for a class), or ``None``."""
    from ..analysis.callers import argument

    if not isinstance(call.func, ast.Name):
        return None
    callee = ctx.defined_once().get(call.func.id)
    method = isinstance(callee, ast.ClassDef)
    if method:
        callee = next((s for s in callee.body  # type: ignore[union-attr]
                       if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if not isinstance(callee, ast.FunctionDef):
        return None
    args = callee.args
    for param in (*args.posonlyargs, *args.args, *args.kwonlyargs)[1 if method else 0:]:
        passed = argument(call, callee, param, method)
        if passed is None or passed[0] is not expr:
            continue
        for node in ast.walk(callee):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == param.arg and isinstance(node.ctx, ast.Load) \
                    and node.attr not in LOADABLE_ATTRIBUTES and not node.attr.startswith("__") \
                    and node.attr not in _DICT_METHODS and node.attr not in _NUMPY_METHODS:
                return node.attr
    return None


def _keyed(ctx: Context, item: ast.Subscript, parents: Dict[int, ast.AST]
           ) -> Tuple[Optional[str], str]:
    """``ckpt['model']``: a checkpoint's entry, a whole object where it is used as one
    (``torch.load(f)['model'].state_dict()``, or bound to a name used so), else a
    state dict's part."""
    label = f"{_ENTRY}{shorten(repr(item.slice.value), 20)}]`"  # type: ignore[attr-defined]
    kind, why = _use_of(ctx, item, parents)
    if kind in _WHAT:
        return kind, f"{label} of it: {why}"
    parent = parents.get(id(item))
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
            and key(parent.targets[0]) is not None:
        for use, use_parents in _reads(ctx, key(parent.targets[0]), parent):
            kind, why = _use_of(ctx, use, use_parents)
            if kind == STATE:
                break
            if kind in _WHAT:  # (by a use, never by the name's words alone)
                name = shorten(key(parent.targets[0]) or "", 20)
                return kind, f"{label} of it, bound to `{name}`: {why}"
    return STATE, ""


def _call_parents(ctx: Context, call: ast.AST) -> Dict[int, ast.AST]:
    """Child id -> parent for the call and its ancestors up to its statement
    (all :func:`_use_of` and :func:`_use` look up), from the walker's parents;
    the whole file's map if those are not the call's ancestors."""
    parents: Dict[int, ast.AST] = {}
    child = call
    for parent in reversed(ctx.parents):
        if not any(c is child for c in children(parent)):
            break
        parents[id(child)] = parent
        if isinstance(parent, ast.stmt):
            return parents
        child = parent
    return ctx.file_parents()


def _body(ctx: Context, scope: ast.AST, word: str
          ) -> Tuple[List[ast.AST], Dict[int, ast.AST]]:
    """The nodes of a scope's own body and their parents (made once per scope):
    of the statements whose lines spell ``word`` only, when the lines where it
    is spelled are known (see :func:`_lines_saying`); else of them all."""
    hits = _lines_saying(ctx, word)
    bodies = ctx.memo.setdefault("TV106 bodies", {})
    memo_key = (id(scope), None if hits is None else word)
    found = bodies.get(memo_key)  # type: ignore[union-attr]
    if found is None:
        found = bodies[memo_key] = body_parents(scope, hits)  # type: ignore[index]
    return found  # type: ignore[no-any-return]


#: words whose lines are looked for, before every body is taken whole (each
#: word's lines are a search of the file: one per name loaded, for many)
_PRUNED_WORDS = 2


def _lines_saying(ctx: Context, word: str) -> Optional[List[int]]:
    """The numbers of the lines that spell ``word``, in order (made once per
    word); ``None`` when a name may be spelled otherwise (see
    :func:`~flake8_torch04.analysis.lines.lines_matching`), or once more than
    :data:`_PRUNED_WORDS` words were asked about: bodies are then taken whole,
    each once, whatever the word."""
    cache = ctx.memo.setdefault("TV106 lines", {})
    found = cache.get(word, False)  # type: ignore[union-attr]
    if found is False:
        if len(cache) >= _PRUNED_WORDS:  # type: ignore[arg-type]
            return None
        found = cache[word] = lines_matching(ctx.text, word)  # type: ignore[index]
    return found  # type: ignore[return-value]


def _functions(ctx: Context) -> List[ast.AST]:
    """The file's functions, in the order of ``ast.walk``."""
    found = ctx.memo.get("TV106 functions")
    if found is None:
        # breadth first like ``ast.walk``, through the nodes that hold statements
        # only (the ancestors of every ``def``): the same order, fewer nodes
        found = ctx.memo["TV106 functions"] = []
        queue = deque([ctx.tree])
        while queue:
            node = queue.popleft()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(node)
            for name in node._fields:
                if name in _STATEMENT_LISTS:
                    queue.extend(getattr(node, name))
    return found  # type: ignore[return-value]


def _functions_reading(ctx: Context) -> Dict[str, List[ast.AST]]:
    """Name -> the file's functions whose own body reads it (a ``Name``), in the
    order of :func:`_functions` (made once per file: the reads of a module-level
    name are looked for in those only, not in every function of the file)."""
    found = ctx.memo.get("TV106 readers")
    if found is None:
        found = ctx.memo["TV106 readers"] = {}
        for func in _functions(ctx):
            names = {node.id for node in body_nodes(func)
                     if node.__class__ is ast.Name and isinstance(node.ctx, ast.Load)}
            for name in names:
                found.setdefault(name, []).append(func)  # type: ignore[union-attr]
    return found  # type: ignore[return-value]


def _names(ctx: Context, scope: ast.AST, word: str
           ) -> Tuple[Dict[str, List[ast.AST]], Set[str], Dict[int, ast.AST]]:
    """A scope's own reads of names and attributes by their last word (in the
    order of its body), the names it stores or deletes, and its parents (made
    once per scope and word): complete for ``word``, the one word asked about
    (see :func:`_body`)."""
    index = ctx.memo.setdefault("TV106 names", {})
    whole = _lines_saying(ctx, word) is None  # (then complete for every word)
    memo_key = (id(scope), None if whole else word)
    found = index.get(memo_key)  # type: ignore[union-attr]
    if found is None:
        nodes, parents = _body(ctx, scope, word)
        reads: Dict[str, List[ast.AST]] = {}
        stores: Set[str] = set()
        for node in nodes:
            cls = node.__class__
            if cls is ast.Name:
                if isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    reads.setdefault(node.id, []).append(node)  # type: ignore[attr-defined]
                else:
                    stores.add(node.id)  # type: ignore[attr-defined]
            elif cls is ast.Attribute and isinstance(node.ctx, ast.Load):  # type: ignore
                reads.setdefault(node.attr, []).append(node)  # type: ignore[attr-defined]
        found = index[memo_key] = (reads, stores, parents)  # type: ignore[index]
    return found  # type: ignore[no-any-return]


def _reads(ctx: Context, k: str, binding: ast.AST
           ) -> List[Tuple[ast.AST, Dict[int, ast.AST]]]:
    """The reads of ``k`` after ``binding`` (a statement) in the function; for a
    module-level name, also in the module's functions that do not bind it; each
    with the parents of its scope's nodes."""
    scope = ctx.flow().node
    after = (binding.end_lineno or binding.lineno, binding.end_col_offset or 0)
    found = []
    word = k.rsplit(".", 1)[-1]
    reads, _, parents = _names(ctx, scope, word)
    for node in reads.get(word, ()):
        if (node.lineno, node.col_offset) >= after and key(node) == k:
            found.append((node, parents))
    if isinstance(scope, ast.Module) and "." not in k:
        for func in _functions_reading(ctx).get(k, ()):
            reads, stores, parents = _names(ctx, func, k)
            if not _binds(func, k, stores):
                found += [(n, parents) for n in reads.get(k, ()) if n.__class__ is ast.Name]
    return found


def _binds(func: ast.AST, name: str, stores: Set[str]) -> bool:
    args = func.args
    params = args.posonlyargs + args.args + args.kwonlyargs + [
        a for a in (args.vararg, args.kwarg) if a is not None]
    if any(a.arg == name for a in params):
        return True
    return name in stores
