"""``torch04 server``: the Language Server (``protocol.py``) and the process
that analyses and fixes for it (``worker.py``).

Nothing is imported here: the worker process loads ``worker`` alone, without
the protocol's libraries.
"""
from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve over stdio until the client exits."""
    from .protocol import main as serve

    return serve(argv)
