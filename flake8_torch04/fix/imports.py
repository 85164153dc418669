"""Import management for fixes: adding ``import torch``, removing unused ``Variable`` imports."""
from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from ..analysis.resolve import import_bindings
from ..source.parse import normalize_newlines, parse
from ..source.text import Edit, lines_of
from .edits import apply_edits, apply_spans, edit_spans

VARIABLE_MODULES = ("torch.autograd", "torch.autograd.variable")


# ---------------------------------------------------------------------------
# imports


def import_spec(spec: str) -> Tuple[str, Optional[str], str]:
    """``(bound name, qualified name, statement)`` for a ``Fix.imports`` entry."""
    if spec.startswith(("import ", "from ")):
        node = ast.parse(spec).body[0]
        (name, qualname), = import_bindings(node)
        return name, qualname, spec
    top = spec.split(".", 1)[0]
    return top, top, f"import {spec}"


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def module_bindings(tree: ast.Module) -> Dict[str, Set[Optional[str]]]:
    """Names bound at module level -> what they are bound to.

    Imports give their qualified name; any other binding (assignment, ``def``,
    ``class``, loop target ...) gives ``None``.
    """
    bound: Dict[str, Set[Optional[str]]] = {}
    stack: List[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, qualname in import_bindings(node):
                bound.setdefault(name, set()).add(qualname)
            continue
        if isinstance(node, _SCOPES):
            if not isinstance(node, ast.Lambda):
                bound.setdefault(node.name, set()).add(None)
            stack.extend(getattr(node, "decorator_list", ()))
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.setdefault(node.id, set()).add(None)
        stack.extend(ast.iter_child_nodes(node))
    return bound


def _is_docstring(node: ast.AST) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def import_line(tree: ast.Module) -> int:
    """The line before which a new module-level import goes.

    After the first block of imports (which may follow the docstring and
    ``__future__`` imports); without one, before the first statement.
    """
    body = tree.body
    if not body:
        return 1
    i = 1 if _is_docstring(body[0]) else 0
    while i < len(body) and isinstance(body[i], (ast.Import, ast.ImportFrom)):
        i += 1
    if i == 0:  # (a decorated definition starts at its first decorator)
        return min([body[0].lineno] + [d.lineno for d in
                                       getattr(body[0], "decorator_list", ())])
    return body[i - 1].end_lineno + 1


def add_imports(text: str, specs: Iterable[str], newline: str,
                tree: Optional[ast.Module] = None) -> str:
    """Add the import statements of ``specs`` whose names the text does not bind."""
    if tree is None:
        tree = parse(text)
    bound = module_bindings(tree)
    missing = []
    for spec in sorted(set(specs)):
        name, qualname, statement = import_spec(spec)
        if qualname not in bound.get(name, ()) and statement not in missing:
            missing.append(statement)
    if not missing:
        return text
    lines = lines_of(text)
    line = import_line(tree)
    block = "".join(statement + newline for statement in missing)
    if line > len(lines):
        if lines and not lines[-1].endswith(("\n", "\r")):
            block = newline + block
        return text + block
    return apply_spans(text, edit_spans(text, [Edit((line, 0), (line, 0), block)]), newline)


def _variable_imports(tree: ast.Module) -> List[Tuple[ast.ImportFrom, ast.alias, List]]:
    """``from torch... import name`` statements (``torch`` or a module of it: the
    names the fixes replace) that are direct children of the module or of a
    function body: (statement, alias, the body holding it), for every alias."""
    found = []
    bodies: List[List[ast.AST]] = [tree.body]
    bodies.extend(n.body for n in ast.walk(tree)
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    for body in bodies:
        for stmt in body:
            if isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module and (
                    stmt.module == "torch" or stmt.module.startswith("torch.")):
                for alias in stmt.names:
                    if alias.name != "*":
                        found.append((stmt, alias, body))
    return found


def name_uses(tree: ast.Module, name: str) -> int:
    """Uses of ``name`` in the file: ``Name`` nodes and strings in ``__all__``."""
    return use_counts(tree)[name]


def use_counts(tree: ast.Module) -> Counter:
    """Uses of every name in the file (one walk): ``Name`` nodes, strings in
    ``__all__``, and the names a string annotation (``x: "Variable"``) spells."""
    uses: Counter = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            uses[node.id] += 1
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                for c in ast.walk(node.value):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str):
                        uses[c.value] += 1
        for annotation in _annotations(node):
            for c in ast.walk(annotation):
                if isinstance(c, ast.Constant) and isinstance(c.value, str):
                    uses.update(_IDENTIFIER.findall(c.value))
    return uses


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _annotations(node: ast.AST) -> Iterable[ast.AST]:
    """The annotations a node holds (string ones name what they mean)."""
    if isinstance(node, (ast.arg, ast.AnnAssign)):
        if node.annotation is not None:
            yield node.annotation
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if node.returns is not None:
            yield node.returns


def variable_names_in_use(text: str, tree: Optional[ast.Module] = None) -> FrozenSet[str]:
    """Names bound by ``from torch... import`` (``Variable``, ``weight_norm``) that the
    text uses: those the fixes may leave unused."""
    if tree is None:
        try:
            tree = parse(text)
        except SyntaxError:
            return frozenset()
    names = {(alias.asname or alias.name) for _, alias, _ in _variable_imports(tree)}
    if not names:
        return frozenset()
    uses = use_counts(tree)
    return frozenset(n for n in names if uses[n])


#: how a note of :func:`project_users` starts
KEPT = "kept the import of"


def kept_imports(notes: Sequence[str]) -> FrozenSet[str]:
    """The names whose imports the notes of :func:`project_users` say were kept."""
    return frozenset(note[len(KEPT):].split("`")[1] for note in notes
                     if note.startswith(KEPT + " `"))


def project_users(path: str, notes: List[str]) -> Callable[[str], Optional[str]]:
    """``taken`` for :func:`remove_variable_imports`: why another module of the
    project of ``path`` takes a name (:func:`.importers.taken_by`), noted in
    ``notes``.  The CLI, the server and every other route that fixes a file get
    it through ``fix_text(path=...)``."""

    def taken(bound: str) -> Optional[str]:
        from ..analysis.project.importers import taken_by

        why = taken_by(path, bound)
        if why is not None:
            notes.append(f"{KEPT} `{bound}` (no use is left here): {why}")
        return why

    return taken


def _in_type_comment(text: str, name: str) -> bool:
    """Whether a ``# type:`` comment names ``name`` (``# type: (Variable) -> Variable``:
    mypy and IDEs read it)."""
    return "type:" in text and re.search(
        rf"#\s*type:[^\n]*(?<![\w.]){re.escape(name)}\b", text) is not None


def remove_variable_imports(text: str, names: Iterable[str], newline: str,
                            tree: Optional[ast.Module] = None,
                            taken: Optional[Callable[[str], Optional[str]]] = None) -> str:
    """Remove the imports from torch of ``names`` (the ``Variable`` a fix unwrapped,
    the ``weight_norm`` it moved) that nothing uses any more.

    Only a statement that stands alone on its lines, holds no comment, and is not
    the only statement of its body is changed; other imported names stay.  Nor is
    an import at module level whose name ``taken(name)`` says another module takes
    (``from model import *`` in ``train.py``): it returns why, or ``None``.
    """
    if tree is None:
        tree = parse(text)
    lines = lines_of(normalize_newlines(text))
    edits = []
    uses: Optional[Counter] = None
    dropped: dict = {}  # (statement -> its aliases that go, body)
    for stmt, alias, body in _variable_imports(tree):
        bound = alias.asname or alias.name
        if bound not in names:
            continue
        if uses is None:
            uses = use_counts(tree)
        if uses[bound] or _in_type_comment(text, bound):
            continue
        if taken is not None and body is tree.body and taken(bound):
            continue
        dropped.setdefault(id(stmt), (stmt, [], body))[1].append(alias)
    for stmt, aliases, body in dropped.values():
        first, last = stmt.lineno, stmt.end_lineno
        segment = "".join(lines[first - 1:last])
        before = lines[first - 1][:stmt.col_offset]
        after = lines[last - 1].encode("utf-8")[stmt.end_col_offset:].decode("utf-8", "replace")
        if "#" in segment or before.strip() or after.strip() or ";" in segment:
            continue
        rest = [a for a in stmt.names if all(a is not alias for alias in aliases)]
        whole_lines = last < len(lines) or lines[-1].endswith("\n")
        if rest:
            kept = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in rest)
            new = f"{before}from {stmt.module} import {kept}" + ("\n" if whole_lines else "")
        elif len(body) > 1:
            new = ""
        else:
            continue
        start, end = (first, 0), (last + 1, 0)
        if not whole_lines:
            end = (last, len(lines[-1]))
            if not new and first > 1:  # keep the file without a final newline
                start = (first - 1, len(lines[first - 2].rstrip("\r\n")))
        edits.append(Edit(start, end, new))
    if not edits:
        return text
    return apply_edits(text, edits, newline)
