"""``python -m flake8_torch04``: the ``torch04`` command."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
