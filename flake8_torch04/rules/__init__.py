"""One module per rule; importing this package registers them all.

A rule module defines one function decorated with ``_core.rule``; its
docstring is the rule's documentation, with the sections
``## What it does``, ``## Why is this bad?``, ``## Example``, ``Use instead:``
and ``## Fix safety``.
"""
from . import (  # noqa: F401  (importing a rule module registers its rule)
    data_inplace, module_names, scalar_extraction, type_comparison, variable_wrap, volatile,
)
