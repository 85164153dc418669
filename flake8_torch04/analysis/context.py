"""The per-file context handed to rules: source, scopes, name resolution, data flow."""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Tuple

from ..source.text import Source
from . import resolve as analysis_resolve
from .markers import match_offsets, text_imports_torch
from .project import lookup, modules as project_modules
from .resolve import Scope

# ---------------------------------------------------------------------------
# the per-file context handed to rules


class Context:
    """What a rule may ask about the file and the node it is looking at."""

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str = "",
                 text: Optional[str] = None) -> None:
        self.tree = tree
        self.filename = filename
        self.source = Source(lines)
        #: the lines joined (``check`` has joined them already for the gate)
        self.text = "".join(lines) if text is None else text
        self.scope = Scope("module", tree, None)
        self.parents: List[ast.AST] = []
        #: names assigned a torch-version test, with its polarity
        self.version_flags: Dict[str, int] = {}
        self._flows: Dict[ast.AST, object] = {}
        #: per-file caches a rule may keep, under a key of its own
        self.memo: Dict[str, object] = {}
        #: the file mentions ``__version__`` (else no test can read torch's version)
        self.has_version = "__version__" in self.text
        self.imports_torch = text_imports_torch(self.text)
        #: imports may resolve through the project's modules beside the file
        self.project = project_modules.applies(filename)
        #: the file works with torch tensors: imports torch, or uses
        #: ``Variable``/``.backward(`` (helper modules often import nothing);
        #: not ``tf.Variable`` (another object's attribute), the only
        #: ``Variable`` of a TensorFlow file
        self.uses_torch = (
            self.imports_torch
            or ".backward(" in self.text
            or bool(match_offsets(self.text, r"(?<![\w.])Variable\b"))
            or bool(match_offsets(self.text, r"\bautograd\.(?:variable\.)?Variable\b"))
        )

    def release(self) -> None:
        """Drop what the rules kept of the file: data-flow facts point back at
        the context, and so would keep the file's tree alive until the cyclic
        garbage collector finds them (see :func:`collector_off`)."""
        self._flows.clear()
        self.memo.clear()

    def project_import(self, node: ast.AST) -> Optional[tuple]:
        """What an import of the project's own modules binds (see ``_project``), or ``None``."""
        if self.project and project_modules.candidate(node):
            return lookup.import_bindings(self.filename, node)
        return None

    def import_bindings(self, node: ast.AST) -> Tuple[List[tuple], List[str]]:
        """What an import statement binds: ``(name, qualified name)`` pairs (see
        :func:`.resolve.import_bindings`; the project's own modules through
        :meth:`project_import`), and the modules its star import takes every
        name of."""
        project = self.project_import(node)
        if project is not None:
            return project
        stars = []
        if isinstance(node, ast.ImportFrom) and not node.level and node.module \
                and any(alias.name == "*" for alias in node.names):
            stars.append(node.module)
        return analysis_resolve.import_bindings(node), stars

    @property
    def parent(self) -> Optional[ast.AST]:
        return self.parents[-1] if self.parents else None

    def resolve(self, node: ast.AST) -> Optional[str]:
        """Canonical qualified name of a name or attribute chain, through imports."""
        return analysis_resolve.resolve(node, self.scope)

    def file_parents(self) -> Dict[int, ast.AST]:
        """``id(node) -> parent`` for every node of the file (the walker's
        :attr:`parents` hold only the current node's), made once, when a rule
        first asks; expression contexts and operators are left out."""
        parents = self.memo.get("file parents")
        if parents is None:
            from .nodes import children

            parents = {}
            stack = [self.tree]  # (``children`` alone: ``ast.walk`` would list them twice)
            while stack:
                node = stack.pop()
                below = children(node)
                for child in below:
                    parents[id(child)] = node
                stack += below
            self.memo["file parents"] = parents
        return parents  # type: ignore[return-value]

    def parent_of(self, node: ast.AST, visiting: Optional[ast.AST] = None) -> Optional[ast.AST]:
        """The parent of ``node``: read off the walker's :attr:`parents` when ``node``
        is the node being visited (``visiting``) or one of its ancestors, else
        from :meth:`file_parents` (made then)."""
        parents = self.parents
        if node is visiting:
            return parents[-1] if parents else self.tree
        for i in range(len(parents) - 1, 0, -1):
            if parents[i] is node:
                return parents[i - 1]
        return self.file_parents().get(id(node))

    def statement_parents(self) -> Dict[int, ast.AST]:
        """:func:`.nodes.statement_parents` of the file (made once): the parents of
        statements without :meth:`file_parents`' walk of every expression."""
        found = self.memo.get("statement parents")
        if found is None:
            found = self.memo.get("file parents")  # (a superset, when made already)
            if found is None:
                from .nodes import statement_parents

                found = statement_parents(self.tree)
            self.memo["statement parents"] = found
        return found  # type: ignore[return-value]

    def defined_once(self) -> Dict[str, ast.AST]:
        """:func:`.nodes.defined_once` of the file (made once)."""
        found = self.memo.get("defined once")
        if found is None:
            from .nodes import defined_once

            found = self.memo["defined once"] = defined_once(self.tree)
        return found  # type: ignore[return-value]

    def flow(self):
        """Data-flow facts of the innermost function (or module) around the node."""
        scope = self.scope.function() or self.scope.module()
        return self.flow_of(scope.node)

    def flow_of(self, scope_node: ast.AST):
        """Data-flow facts of the function (or module) ``scope_node`` (made once)."""
        from .flow import Flow  # (loaded on the first rule that asks)

        facts = self._flows.get(scope_node)
        if facts is None:
            facts = self._flows[scope_node] = Flow(scope_node, self)
        return facts
