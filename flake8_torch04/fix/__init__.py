"""Fixing one text, the pyupgrade/Ruff way: the findings of a text as the fixer sees
them (:mod:`.analysis`), edits as text spans (:mod:`.edits`), import management
(:mod:`.imports`), what a fix must not change (:mod:`.guard`) and the loop that
applies non-overlapping fixes, re-parses and repeats to a fixpoint (:mod:`.fixer`)."""
