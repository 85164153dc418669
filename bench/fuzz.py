"""Fuzz the checker and the fixer with legacy idioms and hostile shapes.

    python bench/fuzz.py [--cases N] [--seed S] [--notebooks]

Each case is a program assembled at random from the snippets below (legacy
PyTorch idioms, and the shapes a reliability sweep found hostile: forged
notebook markers, continuation lines, string annotations, colliding module
names, deep nesting, ``async=``, CR-only files, encoding cookies, tabs,
non-ASCII text), placed in random contexts (module level, a function, a loop,
a class).  For each case it checks that:

- checking never raises (the flake8 plugin and ``torch04``);
- ``--fix`` and ``--fix --unsafe-fixes`` write code that parses, that a second
  run does not change (a fixpoint), and that keeps every line a fix did not
  touch (no line of the file is lost);
- in notebooks, the bytes of cells no fix touched stay as they were.

It prints how many cases ran, how many findings and fixes they exercised, and
every failure with a reproducer file under ``--out`` (default: a temporary
directory).  It is a script, not a test: the test suite pins each case the
sweep found; this looks for new ones.
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import os
import random
import sys
import tempfile
import traceback
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flake8_torch04 import cli  # noqa: E402
from flake8_torch04.analysis.run import check  # noqa: E402
from flake8_torch04.source.text import lines_of  # noqa: E402

HEADERS = [
    "import torch\nfrom torch.autograd import Variable\n",
    "import torch as th\nfrom torch import autograd\nVariable = autograd.Variable\n",
    "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "from torch.autograd import Variable\n",
    "from torch.autograd import *\nimport torch\n",
    "import numpy as np\n",  # no torch at all
    "# -*- coding: utf-8 -*-\nimport torch\nfrom torch.autograd import Variable\n",
]

SNIPPETS = [
    "x = Variable(torch.ones(2))\n",
    "x = Variable(a\n- b)\n",
    "x = Variable(a,\n    requires_grad=True)\n",
    "y = Variable(x, volatile=True)\n",
    "print(x.volatile)\n",
    "loss = criterion(out, y)\nloss.backward()\nprint(loss.data[0])\n",
    "total = 0\nfor i in range(3):\n    loss = crit(m(x), y)\n    loss.backward()\n"
    "    total += loss\nprint(total.data[0])\n",
    "rho = loss_function(f)\nv = rho[0]\n",
    "p.data.add_(-lr, p.grad.data)\n",
    "w.data = w.data - lr * w.grad.data\n",
    "m.weight.data.normal_(0, 0.02)\n",
    "if type(x) == torch.FloatTensor:\n    pass\n",
    "ok = type(x) in (torch.FloatTensor, torch.cuda.FloatTensor)\n",
    "self.add_module('conv.1', nn.ReLU())\n",
    "seq = nn.Sequential(OrderedDict([('l.1', nn.ReLU()), ('l_1', nn.ReLU())]))\n",
    "def f(v: 'Variable') -> 'Variable':\n    return v\n",
    "x = a" + "[0]" * 300 + "\n",
    "s = 'héllo 😀'; z = Variable(s)\n",
    "\tq = 1\n",
    "# torch04-cell 2\n",
    "pass  # torch04-magic 0\n",
    "x = y.cuda(async=True)\n",
    "t = torch.range(0, 4)\n",
    "o = F.softmax(h)\n",
    "l = nn.CrossEntropyLoss(size_average=False)\n",
    "nn.init.xavier_uniform(m.weight.data)\n",
    "torch.nn.utils.clip_grad_norm(model.parameters(), 5)\n",
    "idx = torch.multinomial(p)\n",
    "x = z  # noqa: TV001\n",
    "x = Variable(z)  # noqa\n",
    "v = eval_ctx.volatile\n",
    "\"\"\"doc with Variable(x) and loss.data[0]\n\"\"\"\n",
    "x = Variable(x) if ok else \\\n    Variable(y)\n",
]

CONTEXTS = [
    lambda body: body,
    lambda body: "def run(model, x, y, crit, criterion, opt, p, w, lr, m, f, a, b):\n"
                 + _indent(body),
    lambda body: "for step in range(2):\n" + _indent(body),
    lambda body: "class Net(nn.Module):\n    def __init__(self):\n"
                 "        super().__init__()\n" + _indent(_indent(body)),
    lambda body: "if torch.__version__ < '0.4':\n" + _indent(body) + "else:\n    pass\n",
    lambda body: "try:\n" + _indent(body) + "except AttributeError:\n" + _indent(body),
]


def _indent(text: str) -> str:
    return "".join("    " + line if line.strip() else line for line in lines_of(text))


def program(rng: random.Random) -> str:
    parts = [rng.choice(HEADERS)]
    for _ in range(rng.randint(1, 6)):
        snippets = "".join(rng.choice(SNIPPETS) for _ in range(rng.randint(1, 4)))
        parts.append(rng.choice(CONTEXTS)(snippets))
    return "".join(parts)


def encode(text: str, rng: random.Random) -> bytes:
    newline = rng.choice(["\n", "\n", "\r\n", "\r"])
    text = text.replace("\n", newline)
    if rng.random() < 0.15:
        cookie = f"# legacy{newline}# -*- coding: latin-1 -*-{newline}"
        try:
            return (cookie + text).encode("latin-1")
        except UnicodeEncodeError:
            pass
    data = text.encode("utf-8")
    return b"\xef\xbb\xbf" + data if rng.random() < 0.05 else data


def notebook(rng: random.Random) -> str:
    cells = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.2:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": ["# notes 1.50"]})
            continue
        source = program(rng)
        if rng.random() < 0.3:
            source = rng.choice(["%matplotlib inline\n", "!nvidia-smi\n"]) + source
        form = source.splitlines(True) if rng.random() < 0.7 else source
        cells.append({"cell_type": "code", "execution_count": None,
                      "metadata": {"scale": 1.50}, "outputs": [], "source": form})
    data = {"cells": cells, "metadata": {"kernelspec": {"language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=rng.choice([1, 2, None]), ensure_ascii=rng.random() < 0.5)


def run_cli(*args: str) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli.main(list(args))
    return status, out.getvalue(), err.getvalue()


def check_case(path: Path, data: bytes, stats: Counter) -> list:
    """The problems found with one case (an empty list: none)."""
    problems = []
    path.write_bytes(data)
    # the flake8 plugin's entry: any text flake8 accepts must not raise
    if path.suffix == ".py":
        try:
            text = data.decode(cli_encoding(data))
            tree = ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, LookupError, ValueError):
            tree = None
        if tree is not None:
            try:
                stats["findings"] += len(check(tree, lines_of(text), str(path)))
            except Exception:  # noqa: BLE001 - a crash is what this looks for
                problems.append("plugin raised:\n" + traceback.format_exc())
    for flags in (["--fix"], ["--fix", "--unsafe-fixes"]):
        path.write_bytes(data)
        status, _, err = run_cli("check", "-q", *flags, str(path))
        if status == 2:
            problems.append(f"{' '.join(flags)}: exit 2\n{err}")
            continue
        fixed = path.read_bytes()
        if fixed != data:
            stats["fixed files"] += 1
            problem = _validate(path, data, fixed)
            if problem:
                problems.append(f"{' '.join(flags)}: {problem}")
                continue
            run_cli("check", "-q", *flags, str(path))
            if path.read_bytes() != fixed:
                problems.append(f"{' '.join(flags)}: not a fixpoint (a second run changed it)")
    return problems


def cli_encoding(data: bytes) -> str:
    from flake8_torch04.source.document import source_encoding

    return source_encoding(data)


def _validate(path: Path, old: bytes, new: bytes) -> str:
    if path.suffix == ".ipynb":
        try:
            before, after = json.loads(old), json.loads(new)
        except ValueError as exc:
            return f"the notebook is no longer JSON: {exc}"
        if len(before["cells"]) != len(after["cells"]):
            return "cells were lost"
        for a, b in zip(before["cells"], after["cells"]):
            if {k: v for k, v in a.items() if k != "source"} != \
                    {k: v for k, v in b.items() if k != "source"}:
                return "a cell's outputs or metadata changed"
            if a.get("cell_type") != "code" and a != b:
                return "a markdown cell changed"
        return ""
    from flake8_torch04.source.document import source_encoding

    try:
        text = new.decode(source_encoding(new))
        after = _simple_statements(ast.parse(text))
    except (SyntaxError, UnicodeDecodeError, LookupError, ValueError) as exc:
        return f"the fixed file does not parse: {exc}"
    before = _simple_statements(_parse_original(old.decode(source_encoding(old))))
    if after > before:
        # a fix rewrites or drops a statement; one that makes two of one (``x =
        # Variable(a`` newline ``- b)`` becoming ``x = a`` newline ``- b``) changes
        # what the code computes
        return f"the fix split statements: {before} simple statements became {after}"
    return ""


def _parse_original(text: str) -> ast.AST:
    """The original's tree; a file with ``async=`` keywords is read as TV101 rescues it."""
    try:
        return ast.parse(text)
    except SyntaxError:
        from flake8_torch04.analysis.rescue import rescue
        from flake8_torch04.source.parse import parse

        rescued = rescue(text, parse)
        if rescued is None:
            raise
        return ast.parse(rescued.text)


def _simple_statements(tree: ast.AST) -> int:
    """Statements other than imports that hold no other statement."""
    return sum(1 for node in ast.walk(tree)
               if isinstance(node, ast.stmt) and not isinstance(node, (ast.Import, ast.ImportFrom))
               and not any(isinstance(getattr(node, f, None), list) and
                           any(isinstance(s, ast.stmt) for s in getattr(node, f))
                           for f in ("body", "orelse", "finalbody", "handlers")))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="where to keep reproducers")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    out = Path(args.out or tempfile.mkdtemp(prefix="torch04-fuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="torch04-fuzz-work-"))
    stats: Counter = Counter()
    failures = 0
    for case in range(args.cases):
        is_notebook = rng.random() < 0.2
        path = work / (f"case{case}.ipynb" if is_notebook else f"case{case}.py")
        data = notebook(rng).encode("utf-8") if is_notebook else encode(program(rng), rng)
        stats["notebooks" if is_notebook else "files"] += 1
        problems = check_case(path, data, stats)
        if problems:
            failures += 1
            keep = out / path.name
            keep.write_bytes(data)
            print(f"FAIL {keep}:\n  " + "\n  ".join(p.replace("\n", "\n  ") for p in problems))
        path.unlink()
    os.rmdir(work)
    print(f"{args.cases} cases (seed {args.seed}): {stats['files']} files, "
          f"{stats['notebooks']} notebooks, {stats['findings']} plugin findings, "
          f"{stats['fixed files']} fixed file versions checked; {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
