"""Configuration: which codes to report for a file, which files to skip, which fixes
to apply.

:mod:`.settings` is the one configuration model every front end reads (the command,
the pre-commit hooks, the language server, the pylint plugin): ``[tool.torch04]``
resolved per file as Ruff does, ``[flake8]`` read by flake8's own option machinery;
:mod:`.select` checks selectors against the rule table; :mod:`.excludes` reads
exclude patterns as git reads them; :mod:`.noqa` reads ``# noqa`` comments exactly
as flake8 reads them.  Nothing here is imported by the flake8 plugin, which takes its
configuration from flake8."""
