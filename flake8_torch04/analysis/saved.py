"""What a ``torch.load`` returns, read off the project's own ``torch.save`` calls.

0.3 code saved whole objects: ``torch.save(model, args.save)`` in ``train.py``
and ``model = torch.load(args.save)`` in ``eval.py``; ``torch.save({'settings':
opt, 'model': model.state_dict()}, path)`` with ``opt = parser.parse_args()``.
:func:`saved_refused` finds the ``torch.save(OBJ, PATH)`` calls (resolved
through imports; a project's own ``save`` is not torch's) of the file and of
the project's other modules whose ``PATH`` is the *same path* as the load's, and
answers what ``OBJ`` holds that ``weights_only=True`` refuses, where every one
of them holds such a thing; else ``None`` (no save, or one that holds only
tensors, numbers, strings, state dicts and containers of them, or one whose
value is unknown: silent).

The same path is the same expression, compared as a structure (:func:`path_key`):

- a string constant is its text (``'model.pt'``);
- an attribute chain is its text (``args.save``, ``opt.model_path``: the same
  command-line option in every script), ``self.x`` only within one class; a
  subscript by a string constant reads as an attribute there (``hps['save']``,
  the same key of a configuration dict, as ``hps.save`` would be);
- a call of a function that makes a path of paths (``os.path``'s, ``pathlib``'s,
  ``str``, ``'...'.format``; resolved through imports), an operator, an f-string:
  the same function or operator of the same parts (``os.path.join(args.dir,
  'model.pt')``, ``'%s/net.pth' % opt.outf``); any other call is the same as
  nothing (``io.BytesIO()``, a project's ``get_path(args)``);
- ``open(P, mode)`` is ``P`` (``with open(args.save, 'wb') as f: torch.save(m, f)``);
- a name is what its one reaching assignment (or ``with ... as``) binds, in its
  function or at the top of its module; a name bound otherwise (a loop variable,
  a name bound twice, ``buffer = io.BytesIO()``) is the same path only as itself
  in the same function (or module top) of the same file;
- a parameter of a helper (a function defined once at the top of its module,
  undecorated, with positional parameters only: ``def save_model(model, path)``,
  ``def load_model(path)``) is the paths its calls pass, also inside a path made
  of it (``os.path.join(load_path, 'model.pt')``; :func:`_calls`, in the file
  and the project's modules that spell its name): a save in it is a save to
  each of them (of what the caller passes, where the saved value is a parameter
  too), a load in it loads each, and is flagged where every one is; unknown
  where a use of the helper is not such a call (passed on, stored, another
  function of its name) or a path passed is not evident; itself, in its
  function, for a save and a load there;
- anything else (another subscript, a comprehension ...) is the same as nothing.

What the saved value is comes from the value facts (:mod:`.values`), asked in the
function of the save: an ``nn.Module`` (a torch module, a class of the file or of
the project), a numpy array, an :data:`~.objects.OBJECT` (``argparse.Namespace``),
or a dict literal, tuple or list literal holding one.

Cost: nothing for a file without a ``torch.load`` that needs it (the rule asks);
then the file's lines that spell ``save(`` are walked, and of the project's other
modules only those whose identifiers (read once per project for
:func:`~.project.importers.named_elsewhere`) include ``save`` and whose text
spells ``save(`` are parsed (once while unchanged: :func:`.foreign.module_context`),
at most :data:`MOST_MODULES` (more: unknown).
"""
from __future__ import annotations

import ast
import os
import re
from typing import Dict, Iterator, List, Optional, Tuple

from . import resolve as analysis_resolve
from .resolve import key as key_of
from .lines import lines_matching
from .nodes import children, enclosing, spans_hit

_SAVES = frozenset(("torch.save", "torch.serialization.save"))
_SAVE = re.compile(r"save\s*\(")
#: in a key: a simple string constant, a qualified name (``=os.path.join``: its
#: last name), an attribute chain (``args.save``: all of it)
_ATOM = re.compile(r"'([\w./-]+)'|=([^\s(),=]+)|(?<![\w.'=/<>])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")
#: the most other modules that spell ``save(`` read; a project with more: unknown
MOST_MODULES = 64
#: the most steps a path's key takes through names
_DEPTH = 8
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class Refused:
    """What a save holds that ``weights_only=True`` refuses: ``kind`` (a
    :mod:`.values` kind: ``module``, ``ndarray`` or ``object``), ``what`` (in
    words), ``under`` (the dict key or position it is at, or ``None``: the
    saved value itself) and ``where`` (``at path:line`` of the save)."""

    __slots__ = ("kind", "what", "under", "where")

    def __init__(self, kind: str, what: str, under: Optional[str], where: str) -> None:
        self.kind, self.what, self.under, self.where = kind, what, under, where


def saved_refused(ctx, path: ast.AST) -> Optional[Refused]:
    """What every ``torch.save`` of the project to the path ``path`` (the argument
    of a load visited by a rule, in the current function) holds that
    ``weights_only=True`` refuses; ``None`` where no save matches, or one holds
    nothing refused or what it holds is unknown."""
    scope = ctx.flow().node
    key = path_key(ctx, path, scope, _module_resolver(ctx))
    if key is None:
        return None
    if PARAM not in key:
        return _refused_at(ctx, key)
    found = _refused_at(ctx, key, local=True)  # (saved in the same function first)
    if found is not None:
        return found
    # (``def load_model(path): return torch.load(path)``: the paths its callers pass)
    for site_key, *_ in _through_calls(key) or ():
        refused = _refused_at(ctx, site_key)
        if refused is None or found is not None and refused.kind != found.kind:
            return None
        found = found or refused
    return found


#: the keys of the paths whose saves are being judged (innermost last): a
#: ``torch.load`` of one of them, met while its save's value is followed, is a
#: resume (:func:`reloaded`)
JUDGED: List[str] = []


def reloaded(facts, call: ast.Call, scope: ast.AST):
    """The value of ``torch.load(path)``: what every ``torch.save`` of the project to
    the same path writes, joined (``batches = torch.load(p)``, else built and
    ``torch.save(batches, p)``: the list built), where each is known; else unknown.

    A load met while the value of a save to its own path is followed is a resume:
    ``state = {'opt': opt}``, ``if resume: state = torch.load(p)``, later
    ``torch.save(state, p)``: the file ``p`` holds what this save writes (or an
    earlier run of it), so the load adds no value the other bindings do not
    already give: :data:`~.values.BOTTOM`, which drops out of a join.  An answer
    met while a save is followed is not remembered beyond that question (it
    depends on the save asked about)."""
    from .objects import crossed
    from .remembered import CUT
    from .values import BOTTOM, UNKNOWN, join, values

    path = node_path(call)
    if path is None or isinstance(path, ast.Starred):
        return UNKNOWN
    if JUDGED:
        CUT[0] += 1  # (remembered only for this question)
    ctx = facts.ctx
    key = path_key(ctx, path, scope or ctx.tree, _module_resolver(ctx))
    if key is None or key in JUDGED:
        return BOTTOM if key is not None else UNKNOWN
    # (a path of the file's own variables, or of a parameter: saved in the file)
    saves = _project_saves(ctx, f"<{ctx.filename}:" in key or PARAM in key, _anchor(key))
    found = saves.get(key) if saves is not None else None
    if not found:
        return UNKNOWN
    JUDGED.append(key)
    try:
        written = [crossed(values(other).of(obj, at), other) if other is not ctx
                   else values(ctx).of(obj, at) for other, obj, at in found]
    finally:
        JUDGED.pop()
    return join([v for v in written if v is not BOTTOM])


def node_path(call: ast.Call) -> Optional[ast.AST]:
    """The path (or file) argument of ``torch.load(f, ...)``."""
    if call.args:
        return call.args[0]
    return next((kw.value for kw in call.keywords if kw.arg == "f"), None)


def _refused_at(ctx, key: str, local: bool = False) -> Optional[Refused]:
    """:func:`saved_refused` of the path whose key is ``key``."""
    # (names the file's own variables, or a parameter of one of its functions)
    local = local or f"<{ctx.filename}:" in key or PARAM in key
    saves = _project_saves(ctx, local, _anchor(key))
    if saves is None:
        return None
    found = saves.get(key)
    if not found:
        return None
    JUDGED.append(key)
    try:
        refusals = [_refused(other, obj, at) for other, obj, at in found]
    finally:
        JUDGED.pop()
    if any(r is None for r in refusals):
        return None
    kinds = {r.kind for r in refusals}  # type: ignore[union-attr]
    if len(kinds) != 1:
        return None  # (saves of different kinds: say nothing)
    first = refusals[0]
    assert first is not None
    where = found[0][0].filename, found[0][1].lineno
    first.where = _place(ctx.filename, *where)
    return first


def _anchor(key: str) -> Optional[str]:
    """A word every module whose save has the key ``key`` spells, or ``None``: the
    longest of its simple string constants, its attribute chains (written as they
    are in the key: ``args.save``) and the last names of its qualified names (an
    imported name is spelled where it is imported or used; a string split as
    ``'a' 'b.pt'`` is not, and is taken as spelled)."""
    words = [a or b.rsplit(".", 1)[-1] or c for a, b, c in _ATOM.findall(key)]
    return max(words, key=len) if words else None


def _place(loader: str, path: str, line: int) -> str:
    if os.path.abspath(path) == os.path.abspath(loader or "."):
        # (a notebook's lines are its cells' joined: not the line a reader sees)
        return "in this notebook" if loader.endswith(".ipynb") else f"at line {line}"
    rel = os.path.relpath(path, os.path.dirname(os.path.abspath(loader or ".")))
    return f"at {path if rel.startswith(os.pardir) else rel}:{line}"


# ---------------------------------------------------------------------------
# the saves


def _project_saves(ctx, local: bool, word: Optional[str]) -> Optional[Dict[str, List[tuple]]]:
    """Path key -> ``(context, saved value, its function)`` for every ``torch.save``
    of the file and (unless ``local``: a key that names the file's own variables)
    of the project's modules that spell ``word`` (when given: see :func:`_anchor`),
    made once per file and word; ``None`` when the project's modules cannot be read."""
    memo = ctx.memo
    which = "saves here" if local else ("saves", word)
    if which in memo:
        return memo[which]  # type: ignore[no-any-return]
    found: Optional[Dict[str, List[tuple]]] = memo.get("saves here")
    if found is None:
        found = memo["saves here"] = {}
        for entry in _saves(ctx):
            found.setdefault(entry[0], []).append(entry[1:])
    if not local:
        found = {k: list(v) for k, v in found.items()}
        if ctx.project and ctx.filename:
            found = _add_modules(ctx, found, word)
        memo[which] = found
    return found


def _add_modules(ctx, found: Dict[str, List[tuple]], word: Optional[str]
                 ) -> Optional[Dict[str, List[tuple]]]:
    from .foreign import module_context
    from .project.summary import cached_text

    paths = _spelling_save(ctx.filename)
    if paths is None:
        return None
    target = os.path.abspath(ctx.filename)
    for path in paths:
        if path == target:
            continue  # (the file itself: its text, not the disk's, was read)
        if word is not None:
            text = cached_text(path)
            if text is None:
                return None
            if text.isascii() and word not in text:
                continue  # (it cannot save to that path: not parsed)
        other = module_context(path)
        if other is None:
            continue  # (a module that does not parse does not run either)
        for entry in _module_saves(other):
            found.setdefault(entry[0], []).append(entry[1:])
    return found


#: project root -> its files whose text spells ``save(`` (``None``: cannot tell),
#: found once per run (:func:`forget`)
_SPELLING: Dict[str, Optional[List[str]]] = {}


def _spelling_save(filename: str) -> Optional[List[str]]:
    """The project's files whose text spells ``save(`` (the file itself among
    them), at most :data:`MOST_MODULES` (more: ``None``, as when it cannot tell)."""
    from .project.importers import project_texts
    from .project.modules import root_of

    try:
        root = root_of(os.path.abspath(filename))
        if root not in _SPELLING:
            texts = project_texts(root)
            found: Optional[List[str]] = None
            if texts is not None:
                found = [path for path, text in texts
                         if "save" in text and _SAVE.search(text)]
                if len(found) > MOST_MODULES:
                    found = None
            _SPELLING[root] = found
        return _SPELLING[root]
    except Exception:  # (never raise from a rule: "cannot tell")
        return None


def forget() -> None:
    """Start a new run: the project's files are searched again."""
    _SPELLING.clear()
    _CALLS.clear()


def _module_saves(other) -> List[tuple]:
    """:func:`_saves` of another module, made once while its context is kept."""
    found = other.memo.get("saves of module")
    if found is None:
        found = other.memo["saves of module"] = _saves(other)
    return found  # type: ignore[no-any-return]


def _saves(ctx) -> List[tuple]:
    """``(path key, context, saved value, its function)`` for the file's
    ``torch.save`` calls whose path has a key."""
    if "save" not in ctx.text:
        return []
    hits = lines_matching(ctx.text, _SAVE)
    if hits == []:
        return []
    resolver = _module_resolver(ctx)
    found = []
    for node, scope in _scoped_nodes(ctx.tree, hits):
        if isinstance(node, ast.Call) and resolver(node.func) in _SAVES:
            obj, path = _arguments(node)
            key = path_key(ctx, path, scope, resolver) if path is not None else None
            if key is not None and obj is not None:
                found.append((key, ctx, obj, scope))
                if PARAM in key:  # (``def save_model(model, path)``: its calls)
                    found.extend(_helper_saves(ctx, key, obj, scope))
    return found


def _scoped_nodes(tree: ast.AST, hits: Optional[List[int]]) -> Iterator[Tuple[ast.AST, ast.AST]]:
    """The nodes of ``tree`` on the lines ``hits`` (see :func:`.lines.lines_matching`),
    each with the function (or the tree) it is read in; a node's children come
    after the node is handled."""
    stack: List[Tuple[ast.AST, ast.AST]] = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        if not spans_hit(node, hits):
            continue
        yield node, scope
        inner = node if isinstance(node, _SCOPES) else scope
        stack.extend((child, inner) for child in children(node))


def _arguments(call: ast.Call) -> Tuple[Optional[ast.AST], Optional[ast.AST]]:
    """The value and the path of ``torch.save(obj, f)`` (by position or keyword)."""
    given: List[Optional[ast.AST]] = [None, None]
    for i, arg in enumerate(call.args[:2]):
        if isinstance(arg, ast.Starred):
            return None, None
        given[i] = arg
    for kw in call.keywords:
        if kw.arg in ("obj", "f"):
            given[kw.arg == "f"] = kw.value
        elif kw.arg is None:
            return None, None
    return given[0], given[1]


def _module_resolver(ctx):
    """Resolution at the top of the module (a save's or a path's names: imports)."""
    module = ctx.scope.module()
    return lambda node: analysis_resolve.resolve(node, module)


# ---------------------------------------------------------------------------
# the same path


def path_key(ctx, node: ast.AST, scope: ast.AST, resolver, depth: int = 0) -> Optional[str]:
    """The key of a path expression read in ``scope`` (see the module's
    docstring): equal keys are the same path; ``None``: the same as nothing."""
    if depth > _DEPTH:
        return None
    cls = node.__class__
    if cls is ast.Constant:
        return repr(node.value) if isinstance(node.value, (str, bytes)) else None
    if cls is ast.Name:
        return _name_key(ctx, node, scope, resolver, depth)
    if cls is ast.Attribute or cls is ast.Subscript:
        qualname = resolver(node) if cls is ast.Attribute else None
        if qualname is not None:
            return f"={qualname}"  # (``=``: a qualified name, see :func:`_anchor`)
        chain = _chain(node)
        if chain is None:
            return None
        if chain.startswith("self."):  # (one class's attribute)
            cls_node = enclosing(ctx.statement_parents(), scope, ast.ClassDef)
            if cls_node is None:
                return None
            return f"<{ctx.filename}:{cls_node.lineno}>.{chain}"
        return chain
    if cls is ast.Call:
        made = _made_by(ctx, node, resolver)
        if made == "open":
            return path_key(ctx, node.args[0], scope, resolver, depth + 1)
        if made is None:
            return None
        parts = [made]
        parts += [path_key(ctx, a, scope, resolver, depth + 1) for a in node.args]
        parts += [f"{kw.arg}={path_key(ctx, kw.value, scope, resolver, depth + 1)}"
                  if kw.arg is not None else None for kw in node.keywords]
        if None in parts or any(p.endswith("=None") for p in parts[1 + len(node.args):]):
            return None
        return f"{parts[0]}({', '.join(parts[1:])})"  # type: ignore[arg-type]
    if cls is ast.BinOp:
        left = path_key(ctx, node.left, scope, resolver, depth + 1)
        right = path_key(ctx, node.right, scope, resolver, depth + 1)
        if left is None or right is None:
            return None
        return f"({left} {node.op.__class__.__name__} {right})"
    if cls is ast.JoinedStr or cls is ast.Tuple:
        parts = [path_key(ctx, v, scope, resolver, depth + 1) for v in node.values] \
            if cls is ast.JoinedStr else [path_key(ctx, e, scope, resolver, depth + 1)
                                          for e in node.elts]
        return None if None in parts else f"{cls.__name__}({', '.join(parts)})"
    if cls is ast.FormattedValue and node.format_spec is None:
        inner = path_key(ctx, node.value, scope, resolver, depth + 1)
        return None if inner is None else f"{{{inner}!{node.conversion}}}"
    return None


#: functions whose result is the same for the same arguments: a path made of paths
_PATH_FUNCTIONS = ("os.path.", "posixpath.", "ntpath.", "pathlib.")


def _made_by(ctx, call: ast.Call, resolver) -> Optional[str]:
    """``"open"`` for ``open(path, ...)``; for a call that makes the same path of
    the same arguments (``os.path.join``, ``'{}/m.pt'.format``, ``str``), the key
    of what it calls; else ``None`` (``io.BytesIO()``, a function of the project:
    each call may give another file)."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in ("open", "str") and call.args \
            and resolver(func) is None and not ctx.scope.module().binds(func.id):
        return func.id
    if isinstance(func, ast.Attribute) and func.attr == "format" \
            and isinstance(func.value, ast.Constant) and isinstance(func.value.value, str):
        return f"{func.value.value!r}.format"
    name = resolver(func)
    return f"={name}" if name is not None and name.startswith(_PATH_FUNCTIONS) else None


def _chain(node: ast.AST) -> Optional[str]:
    """The text of an attribute chain in which a subscript by a string constant
    reads like an attribute (``args.save``, ``hps['save']``, ``cfg['paths'].model``),
    else ``None``."""
    if node.__class__ is ast.Subscript:
        index = node.slice
        if not (index.__class__ is ast.Constant and isinstance(index.value, str)):
            return None
        base = _chain(node.value)
        return None if base is None else f"{base}[{index.value!r}]"
    if node.__class__ is ast.Attribute and node.value.__class__ is ast.Subscript:
        base = _chain(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return key_of(node)


def _name_key(ctx, node: ast.Name, scope: ast.AST, resolver, depth: int) -> Optional[str]:
    flow = ctx.flow_of(scope)
    defs = flow.reaching(node)
    if defs is None:
        return None
    if not defs and scope is not ctx.tree:  # (read, not bound, in a function: the module's)
        if node.id in flow.bound:
            return None
        scope, defs = ctx.tree, tuple(ctx.flow_of(ctx.tree).defs(node.id))
    if not defs:
        return None
    if all(d.kind == "import" for d in defs):
        qualname = resolver(node)
        return None if qualname is None else f"={qualname}"
    value = defs[0].value if len(defs) == 1 and defs[0].kind in ("assign", "with") else None
    if value is not None and (value.__class__ is not ast.Call or _made_by(ctx, value, resolver)):
        found = path_key(ctx, value, scope, resolver, depth + 1)
        if found is not None or value.__class__ is not ast.Call:
            return found
        # (``CHECKPOINT = os.path.join(tempfile.mkdtemp(), 'm.pt')``: a path of
        # its own, bound once: the name, as below)
    position = _parameter(ctx, node, scope) if defs[0].kind == "param" else None
    if position is not None:  # (a helper's parameter: see :func:`_through_calls`)
        return f"{PARAM}{os.path.abspath(ctx.filename)}\0{scope.name}\0{position}"
    # (a parameter, a loop variable, a name bound twice, ``buffer = io.BytesIO()``:
    # itself, in its function)
    return f"<{ctx.filename}:{getattr(scope, 'lineno', 0)}>{node.id}"


# ---------------------------------------------------------------------------
# helpers: ``def save_model(model, path): torch.save(model, path)``

#: the key of a path that is a parameter of a helper: ``PARAM + its module's path
#: + "\0" + the function + "\0" + the parameter's position``
PARAM = "<param>"
#: the most calls of a helper followed (more: unknown)
MOST_CALLS = 64
_HELPERS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: ``(module path, helper)`` -> :func:`_calls` of it
_CALLS: Dict[Tuple[str, str], Optional[List[tuple]]] = {}


def _parameter(ctx, node: ast.Name, scope: ast.AST) -> Optional[int]:
    """The position of the parameter ``node`` reads (its one binding) where
    ``scope`` is a function defined once at the top of its module, undecorated,
    with positional parameters only; else ``None``."""
    if not isinstance(scope, _HELPERS) or scope.decorator_list \
            or ctx.defined_once().get(scope.name) is not scope:
        return None
    args = scope.args
    if args.vararg or args.kwarg or args.kwonlyargs or getattr(args, "posonlyargs", None):
        return None
    defs = ctx.flow_of(scope).reaching(node)
    if not defs or len(defs) != 1 or defs[0].kind != "param":
        return None
    names = [a.arg for a in args.args]
    return names.index(node.id) if node.id in names else None


def _helper_saves(ctx, key: str, obj: ast.AST, scope: ast.AST) -> List[tuple]:
    """The saves a helper's ``torch.save(obj, path)`` makes, one per call of it:
    the path its caller passes, and ``obj`` (what the caller passes, where ``obj``
    is a parameter too)."""
    position = _parameter(ctx, obj, scope) if isinstance(obj, ast.Name) else None
    found = []
    for site_key, site, call, at in _through_calls(key) or ():
        if position is None:
            found.append((site_key, ctx, obj, scope))
            continue
        value = _argument(call, scope, position)
        if value is not None:
            found.append((site_key, site, value, at))
    return found


#: a helper's parameter in a key (see :data:`PARAM`)
_PARAM_TOKEN = re.compile(re.escape(PARAM) + "([^\\0]*)\\0([^\\0]*)\\0([0-9]+)")


def _through_calls(key: str) -> Optional[List[tuple]]:
    """``(path key, context, call, scope)`` for every call in the project of the
    helper whose parameters ``key`` holds (``os.path.join(load_path, 'model.pt')``
    in ``def load_models(load_path)``), the key made with the paths that call
    passes; ``None`` where some use of the helper is not such a call (see
    :func:`_calls`) or a path passed is not evident."""
    tokens = _PARAM_TOKEN.findall(key)
    if not tokens:
        return None
    path, name = tokens[0][:2]
    sites = _CALLS.get((path, name), ())
    if sites == ():
        sites = _CALLS[(path, name)] = _calls(path, name)
    if sites is None:
        return None
    found = []
    for other, call, scope, helper in sites:
        site_key = key
        for token in sorted(set(tokens), key=lambda t: -len(t[2])):  # (``\010`` before ``\01``)
            arg = _argument(call, helper, int(token[2])) if int(token[2]) < len(
                helper.args.args) else None
            passed = path_key(other, arg, scope, _module_resolver(other)) \
                if arg is not None else None
            if passed is None or PARAM in passed:
                return None  # (a path not evident: unknown)
            site_key = site_key.replace(PARAM + "\0".join(token), passed)
        found.append((site_key, other, call, scope))
    return found


def _calls(path: str, name: str) -> Optional[List[tuple]]:
    """``(context, call, scope, helper)`` for every call of the helper ``name`` of
    the module ``path`` in the project (the file and the modules that spell its
    name); ``None`` where a use of it is not such a call: passed on, stored,
    rebound, a method or another module's function of that name."""
    from .foreign import _imported, module_context
    from .project.importers import project_texts
    from .project.lookup import definition_site
    from .project.modules import root_of

    defined = module_context(path)
    helper = defined.defined_once().get(name) if defined else None
    if not isinstance(helper, _HELPERS):
        return None  # (the module on disk is not the one checked: unknown)
    try:
        texts = project_texts(root_of(path))
    except Exception:  # (never raise from a rule: "cannot tell")
        return None
    if texts is None:
        return None
    spelled = re.compile(rf"\b{re.escape(name)}\b")
    found: List[tuple] = []
    for other_path, text in texts:
        if name not in text:
            continue
        other = module_context(other_path)
        if other is None:
            continue
        called = set()
        for node, scope in _scoped_nodes(other.tree, lines_matching(other.text, spelled)):
            cls = node.__class__
            if cls is ast.Call:
                func = node.func
                spelling = func.id if isinstance(func, ast.Name) else \
                    f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and \
                    isinstance(func.value, ast.Name) else None
                if spelling is not None and spelling.rpartition(".")[2] == name:
                    called.add(id(func))
                    qualname = _imported(other, spelling)
                    if (definition_site(qualname) if qualname is not None else (
                            other_path, name) if other_path == path and "." not in spelling
                            else None) != (path, name) or len(found) == MOST_CALLS:
                        return None  # (another function of that name: unknown)
                    found.append((other, node, scope, helper))
            elif (cls is ast.Name and node.id == name or cls is ast.Attribute
                  and node.attr == name) and id(node) not in called:
                return None  # (passed, stored, rebound: not every call is in view)
    return found


def _argument(call: ast.Call, func: ast.AST, position: int) -> Optional[ast.AST]:
    """What ``call`` passes for the parameter of ``func`` at ``position``: an
    argument, or a constant default; ``None`` where that is not evident
    (``*args``, ``**kwargs``, another default)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or \
            any(kw.arg is None for kw in call.keywords):
        return None
    if position < len(call.args):
        return call.args[position]
    params = func.args.args
    passed = next((kw.value for kw in call.keywords if kw.arg == params[position].arg), None)
    if passed is None and position >= len(params) - len(func.args.defaults):
        default = func.args.defaults[position - len(params)]
        return default if isinstance(default, ast.Constant) else None
    return passed


# ---------------------------------------------------------------------------
# what a save holds


def _refused(ctx, obj: ast.AST, scope: ast.AST) -> Optional[Refused]:
    """What the value ``obj`` (saved) holds that ``weights_only=True`` refuses."""
    from .values import values

    facts = values(ctx)
    if isinstance(obj, (ast.List, ast.Tuple)) and obj.elts \
            and not any(isinstance(e, ast.Starred) for e in obj.elts):
        for i, element in enumerate(obj.elts):  # (each element of a literal)
            found = _of_value(facts.of(element, scope), f"[{i}]")
            if found is not None:
                return found
        return None
    return _of_value(facts.of(obj, scope), None)


def _of_value(value, under: Optional[str]) -> Optional[Refused]:
    from .foreign import FOREIGN_CLASS
    from .objects import shown_class
    from .values import DICT, FILE_CLASS, LIST, MODULE, NDARRAY, OBJECT, TUPLE

    kind = value.kind
    if kind == MODULE:
        name = value.name or ""
        shown = name.rsplit("\0", 1)[-1] if name.startswith(FOREIGN_CLASS) else \
            name[len(FILE_CLASS):] if name.startswith(FILE_CLASS) else \
            name.replace("torch.nn.", "nn.", 1)
        return Refused(MODULE, _article(f"`{shown}`") if shown else "an `nn.Module`", under, "")
    if kind == NDARRAY:
        return Refused(NDARRAY, "a numpy value", under, "")
    if kind == OBJECT:
        return Refused(OBJECT, _article(f"`{shown_class(value.name)}`") if value.name
                       else "an object", under, "")  # (of classes that disagree)
    if kind in (DICT, TUPLE, LIST) and value.parts:
        for i, part in enumerate(value.parts):
            at, part = (repr(part[0]), part[1].value) if kind == DICT else (
                f"{i}" if kind == TUPLE else "0", part)
            found = _of_value(part, f"[{at}]" if under is None else f"{under}[{at}]")
            if found is not None:
                return found
    return None


def _article(name: str) -> str:
    return f"{'an' if name.lstrip('`')[:1].lower() in 'aeiou' else 'a'} {name}"


def whole_module_save(ctx) -> Optional[str]:
    """Where the file or a module of its project saves a whole ``nn.Module`` with
    ``torch.save`` (``torch.save(model, f)``, pickled with every submodule's
    class): ``file:line`` of the first, else ``None`` (none, or none evident)."""
    from .values import MODULE, values

    memo = ctx.memo
    if "whole module save" not in memo:
        memo["whole module save"] = next((
            f"{os.path.basename(other.filename or '')}:{obj.lineno}"
            for entries in (_project_saves(ctx, False, None) or {}).values()
            for other, obj, scope in entries if values(other).of(obj, scope).kind == MODULE),
            None)
    return memo["whole module save"]  # type: ignore[no-any-return]
