"""Renamed torch names that tests patch by string (``mock.patch("torch.nn.utils.
clip_grad_norm")``, ``patch.object(torch.nn.utils, "clip_grad_norm")``): shared by
the rename rules (TV121, TV122, TV124).

Renaming only the call breaks such a test (the mock no longer replaces what the
code calls), and renaming only the string breaks it the other way.  So the two
go together, in the *unsafe* class: the patch target, where it is exactly the
old name, is renamed by an unsafe fix, and a call's rename becomes unsafe where
a string of the file or of another module of its project names the old name
(a search of each file's text, once per name: linear in the project).  ``torch04
check --fix --unsafe-fixes`` over the project renames both; ``--fix`` alone
renames neither.
"""
from __future__ import annotations

import ast
import re
from typing import Dict, Optional

from ...analysis.findings import UNSAFE, Fix, Report
from ...source.text import Edit

_PATCH = frozenset(("unittest.mock.patch", "mock.patch"))
_PATCH_OBJECT = frozenset(("unittest.mock.patch.object", "mock.patch.object"))


def patched_name(ctx, call: ast.Call, module: str, renames: Dict[str, str]) -> Optional[Report]:
    """The report (with an unsafe fix renaming the string) for ``patch("module.old")``
    or ``patch.object(module, "old")``, where ``old`` is in ``renames``."""
    func = ctx.resolve(call.func)
    if func in _PATCH:
        target = call.args[0] if call.args else next(
            (kw.value for kw in call.keywords if kw.arg == "target"), None)
        prefix = module + "."
    elif func in _PATCH_OBJECT and len(call.args) >= 2 and ctx.resolve(call.args[0]) == module:
        target, prefix = call.args[1], ""
    else:
        return None
    if not (isinstance(target, ast.Constant) and isinstance(target.value, str)
            and target.value.startswith(prefix)):
        return None
    old = target.value[len(prefix):]
    new = renames.get(old)
    if new is None:
        return None
    text = ctx.source.text(target)
    quote = text[:1]
    fix = None
    if quote in ("'", '"') and text == f"{quote}{target.value}{quote}":
        fix = Fix((Edit(ctx.source.start(target), ctx.source.end(target),
                        f"{quote}{prefix}{new}{quote}"),), UNSAFE)
    return Report(target, f"patches `{module}.{old}`, which the code calls as `{new}` once "
                          f"fixed; patch `{prefix}{new}` (with the calls it patches)", fix)


def _pattern(module: str, old: str) -> "re.Pattern[str]":
    """A string that names ``module.old``, as a patch target or an attribute name."""
    name = re.escape(old)
    return re.compile(r"""["']""" + re.escape(module) + r"\." + name + r"""["']"""
                      r"""|\b(?:object|setattr)\(\s*[\w.]+\s*,\s*["']""" + name + """["']""")


def named_in_a_string(ctx, module: str, old: str) -> Optional[str]:
    """Where a string names ``module.old`` (``this file``, or another module of
    the project), or ``None``; asked once per name and file."""
    cache = ctx.memo.setdefault("patched names", {})
    found = cache.get((module, old), False)
    if found is False:
        from ...analysis.project.importers import mentioned_by

        pattern = _pattern(module, old)
        found = "this file" if pattern.search(ctx.text) else mentioned_by(
            ctx.filename, pattern, old)
        cache[(module, old)] = found
    return found  # type: ignore[no-any-return]


def patched_elsewhere(ctx, fix: Optional[Fix], module: str, old: str, message: str):
    """``fix`` made unsafe, and ``message`` saying why, where a string names the
    old name (a test that patches it)."""
    if fix is None:
        return fix, message
    where = named_in_a_string(ctx, module, old)
    if where is None:
        return fix, message
    return (Fix(fix.edits, UNSAFE, fix.imports),
            f"{message}; unsafe fix: {where} names `{module}.{old}` in a string "
            "(a mock.patch target?): rename it there too")
