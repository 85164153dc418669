"""Run the ``torch04`` command in this process, for the tests of several files."""
import io
import os
import sys

from flake8_torch04 import cli


def in_process(*args, cwd=None, stdin=None):
    """``torch04 ARGS`` in ``cwd`` with ``stdin`` (text): (exit status, stdout, stderr)."""
    err = io.StringIO()
    old = os.getcwd()
    stdin_obj = sys.stdin
    if cwd is not None:
        os.chdir(cwd)
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
    out_buffer = io.BytesIO()
    out = io.TextIOWrapper(out_buffer, encoding="utf-8", newline="")
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        status = cli.main(list(args))
    finally:
        sys.stdout, sys.stderr = saved
        sys.stdin = stdin_obj
        os.chdir(old)
    out.flush()
    return status, out_buffer.getvalue().decode("utf-8"), err.getvalue()
