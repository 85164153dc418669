"""Configuration: which codes to report for a file and which files to skip.

:mod:`.settings` reads ``[tool.torch04]`` and ``[flake8]`` sections;
:mod:`.select` decides ``--select``/``--ignore`` as flake8 does; :mod:`.excludes`
reads exclude patterns as flake8 and git do; :mod:`.noqa` reads ``# noqa``
comments exactly as flake8 reads them.  Nothing here is imported by the flake8
plugin, which takes its configuration from flake8."""
