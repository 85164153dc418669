"""Analysing one parsed file: the stage that turns a tree into findings.

- :mod:`.findings`: what a rule reports (``Finding``, ``Fix``, ``Report``, safety).
- :mod:`.registry`: the rule table, each rule loaded only when its markers match.
- :mod:`.markers` and :mod:`.gate`: the text search that decides which rules run, where.
- :mod:`.walker`, :mod:`.context`, :mod:`.compat`: the single pass over the tree,
  the per-file context handed to rules, and the compatibility code it skips.
- :mod:`.canonical`, :mod:`.resolve`: names resolved through imports to canonical
  qualified names; :mod:`.project`: names that come from the project's own modules.
- :mod:`.nodes`, :mod:`.lines`, :mod:`.reads`, :mod:`.reaching`, :mod:`.flow`,
  :mod:`.grad`: tree walking, text search by line and intra-function data flow.
- :mod:`.rescue`: TV101, a file that does not parse because of ``async=``.
- :mod:`.run`: :func:`~.run.check`, the entry point of the stage.

Modules are imported by path; this ``__init__`` imports nothing, so that the flake8
plugin pays only for what a file needs (the data-flow modules load on first use)."""
