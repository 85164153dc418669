"""Names that reach a file from the project's own modules.

``train.py`` does ``from model import *`` and calls ``Variable(x)``: the name
comes from ``model.py``'s ``from torch.autograd import Variable`` and must
resolve as if written in ``train.py``.  Likewise ``from model import Variable``,
``import model`` then ``model.Variable``, relative imports, packages whose
``__init__`` re-exports a submodule (``from .base_network import *``), and
chains of them, cycles included.

What is loaded is bounded to the project's own files:

* a module is looked for only in the directory of the top-level package that
  holds the file (the first ancestor without ``__init__.py``, the script's
  directory for a script) and, for Python 2's implicit relative imports, in the
  file's own directory, and in a directory the file adds to ``sys.path`` by a
  literal path (``sys.path.append("../lib")``, read from the file's directory) or
  one computed from ``__file__`` with ``os.path`` (``dirname``, ``join``, ``abspath``);
  never on the interpreter's ``sys.path``;
* a name of the standard library, or of a package this plugin knows to be
  installed software (``torch``, ``numpy`` ...), is never looked for at all;
* only the files found so are read, and only their top level (function and
  class bodies emptied).  Star imports and imported names are followed here,
  through the same bounded finder.

The project prefers a maintained library to code of its own, except on the hot
path; this module is that line.  What a module binds (its imports, star imports,
local definitions, a literal ``__all__``) is read from the standard library's
``ast`` tree (:func:`.summary.summary`), which gives exactly what astroid's tree gave
(``tests/test_project.py`` compares the two over made-up modules; ``python
bench/benchmark.py --summaries`` over the corpus and torch's source): importing
astroid alone costs ~30 ms and 6 MiB per process.  astroid is imported only for
a module whose ``__all__`` is computed (``__all__ = base + [...]``, ``__all__ +=
[...]``, ``__all__.extend(...)``), which its inference evaluates
(:func:`.astroid_all._inferred_all`), bounded: it follows no import (``sub.__all__ + [...]``
stays unknown: every public name is taken), with astroid's ``TreeRebuilder``,
not the manager's ``ast_from_file``, whose post-build steps import every
star-imported module (torch included).

Nothing is read when an import is bound: a name imported from a project module
is bound to ``PREFIX + path + "." + name`` (a star import is noted as
``PREFIX + path``), and :func:`.lookup.translate` / :func:`.lookup.star_lookup` answer what it
is only when a rule asks.  A module is summarized only when its text may bind
the name by an import or has a star import before its definition (see
:func:`.lookup._binding_lines`); a name bound only by a ``def``, a ``class`` or an
assignment is local without reading more.  So a file without imports of
project modules pays nothing but an ``os.stat`` per import that is neither the
standard library nor known software.  Files, modules and answers are cached per
process and checked against each file's size and modification time (flake8
checks many files in one process; ``-j`` uses processes).

Where it lives: :mod:`.modules` finds a project's modules on disk (``os.stat``
only); :mod:`.summary` says what a module binds at its top level (:mod:`.astroid_all`
for a computed ``__all__``); :mod:`.lookup` answers what an imported name is there,
through star imports; :mod:`.importers` says which modules take a name from a module
(for the fixer: may an import be removed?).
"""
