"""The ``torch04`` command: arguments and subcommands (:mod:`.command`), which
files to check (:mod:`.discover`), output formats, statistics and the summary
(:mod:`.output`).  Each file goes through :func:`flake8_torch04.pipeline.check_file`,
the same check the other front ends use."""
from .command import GC_THRESHOLD, build_parser, main

__all__ = ["GC_THRESHOLD", "build_parser", "main"]
