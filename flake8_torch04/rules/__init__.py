"""One module per rule; importing this package registers them all.

A rule module defines one function decorated with ``_core.rule``; its
docstring is the rule's documentation, with the sections
``## What it does``, ``## Why is this bad?``, ``## Example``, ``Use instead:``
and ``## Fix safety``.
"""
import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
