#!/usr/bin/env python3
"""How much flake8-torch04 costs, measured against baselines in the same run.

Not a test: it prints numbers.  Usage::

    python bench/benchmark.py CORPUS_DIR [CORPUS_DIR ...]
    python bench/benchmark.py --torch-source            # the installed torch package
    python bench/benchmark.py --torch-source --torch-python /path/to/venv/bin/python
    python bench/benchmark.py --fixer-only              # sections [6] and [7] alone
    python bench/benchmark.py --project-only [--summaries] CORPUS_DIR   # section [8]
    python bench/benchmark.py --scaling-only [--scaling-sizes 12500,50000,200000]  # [10]

It measures, on the same files:

1. plain flake8 vs flake8 with the plugin, ``-j1``: two virtual environments
   with the same flake8 version (made once under ``--venv-dir``), runs
   alternated, the median of ``--pairs`` pairs, and the peak memory of each;
2. ``torch04 check -j1`` vs the floor of merely reading and ``ast.parse``-ing
   every file in one process (both as fresh processes; the default ``-j`` is
   shown too, for its CPU time over all its processes), and where ``torch04``'s
   time goes, in this process: the parses, the marker gate and walk with every
   rule a no-op, the full check (see :func:`breakdown`);
3. TorchFix (``torchfix``), where it is installed in the running environment;

4. ``flake8 -`` on a 1,000-line legacy file, as editors call it: the time the
   plugin adds, in milliseconds;
5. the plugin's own cost on legacy files of 1k, 10k and 100k lines, per line,
   to show it grows linearly;
6. the fixer (``torch04 check --fix --unsafe-fixes``, in this process) on the
   same legacy files, and on files with nothing to fix: seconds and per-line
   cost (``--fixer-only`` runs this section and [7] alone);
7. inputs that were quadratic (issue 19): 1,000 ``self.assertEqual(type(x),
   torch.FloatTensor)`` in one function, a 20,001-term ``or`` chain of type
   tests, one 1 MB line with 80,000 findings.
8. project resolution (names from the project's own modules, issue 16):
   ``torch04 check`` over the corpus with it on vs off (``analysis.project.modules.applies``
   made to answer ``False``: no option for users), alternated pairs, median
   CPU time against the budget 1.10, peak memory, whether astroid was imported;
   the same for ``flake8 --select TV -j1`` (``--project-only`` runs this alone;
   ``--summaries`` also compares its module summaries with astroid's, see
   ``flake8_torch04/analysis/project/``).
9. the importer search at scale (issue 32): ``torch04 check --fix -j1`` over a
   generated project of 1,000, 2,500 and 5,000 modules, each importing
   ``Variable`` (every module asks which others take it), and the fix of one
   module beside them; CPU seconds, per module (``--importers-only`` runs this
   alone).  Linear: the per-module cost stays flat.
10. scaling (issue 31): a generated legacy module of the usual shape with dense
    findings (one import block, then many small training and evaluation
    functions with ``Variable(...)``, ``p.data.add_(-lr, g)``, ``loss.data[0]``,
    ``volatile=True``, ``type(x) == torch.FloatTensor``, softmax without dim) at
    12,500, 50,000 and 200,000 lines: per-line CPU time and peak memory of
    ``torch04 check``, ``flake8 --select TV -j1`` (and the plugin alone, as
    flake8 calls it), ``torch04 check --fix`` and ``--fix --unsafe-fixes``,
    each in a fresh process, beside ``ast.parse`` of the same file in the same
    interpreter.  Targets: per-line CPU at the largest size within 1.5x of the
    smallest's; peak memory at most 2x that of ``ast.parse`` (``--scaling-only``
    runs this section alone).

Times are CPU seconds (user + system) of each child process.  Where Linux
``perf`` can count them, each comparison also shows the ratio of user-space
instructions (``perf stat -e instructions:u``, one more run of each command):
CPU time on a shared virtual machine varies by several percent between
identical runs, instruction counts by well under one.
"""
from __future__ import annotations

import argparse
import ast
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_train.py"


def checkout() -> None:
    """Make this checkout's ``flake8_torch04`` importable here (once)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


PARSE_FLOOR = """
import ast, sys
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        source = f.read()
    try:
        ast.parse(source)
    except SyntaxError:
        pass
"""


def run(cmd: Sequence[str], stdin: bytes = b"") -> Tuple[float, int]:
    """CPU time (user + system, s) and peak resident memory (KiB) of one child process.

    CPU time, not wall time: on a shared virtual machine the time other
    tenants take (steal) lands in the wall clock and swamps a 5% difference.
    """
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = usage.ru_utime + usage.ru_stime
    proc.returncode = os.waitstatus_to_exitcode(status) if hasattr(
        os, "waitstatus_to_exitcode") else status >> 8
    err = proc.stderr.read().decode(errors="replace")
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:3])} ... failed ({proc.returncode}):\n{err[-2000:]}")
    return elapsed, usage.ru_maxrss


def instructions(cmd: Sequence[str], stdin: bytes = b"") -> Optional[int]:
    """User-space instructions of one run of ``cmd`` (``None`` without ``perf``)."""
    perf = shutil.which("perf")
    if perf is None:
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as out:
        proc = subprocess.run(
            [perf, "stat", "-x,", "-e", "instructions:u", "-o", out.name, *cmd],
            input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        if proc.returncode not in (0, 1):
            return None
        for line in out.read().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
                return int(fields[0])
    return None


def instruction_ratio(a: Sequence[str], b: Sequence[str], stdin: bytes = b"") -> str:
    count_a, count_b = instructions(a, stdin), instructions(b, stdin)
    if not count_a or not count_b:
        return "instructions: perf not available"
    return (f"instructions {count_a / 1e6:,.0f} M -> {count_b / 1e6:,.0f} M "
            f"(ratio {count_b / count_a:.3f}, +{(count_b - count_a) / 1e6:,.1f} M)")


def config_note() -> str:
    """Whether the commands find a ``[flake8]`` section from the current directory:
    where one is found, ``torch04 check`` reads it through flake8's option machinery
    (about 5% of its instructions on a 37,000-line corpus) and flake8 applies it."""
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        path = Path(name)
        if path.is_file() and "[flake8" in path.read_text(encoding="utf-8", errors="replace"):
            return f"its {name} has a [flake8] section: both tools read it"
    return "no [flake8] section here"


def paired(a: Sequence[str], b: Sequence[str], pairs: int, stdin: bytes = b""):
    """Alternate ``a`` and ``b``; medians of time and of peak memory for each."""
    run(a, stdin), run(b, stdin)  # warm the file cache and the bytecode
    times_a, times_b, mem_a, mem_b = [], [], [], []
    for i in range(pairs):
        order = [(a, times_a, mem_a), (b, times_b, mem_b)]
        if i % 2:
            order.reverse()
        for cmd, times, mems in order:
            t, m = run(cmd, stdin)
            times.append(t)
            mems.append(m)
    return (statistics.median(times_a), statistics.median(mem_a),
            statistics.median(times_b), statistics.median(mem_b))


def python_files(roots: Sequence[Path]) -> List[Path]:
    files = []
    for root in roots:
        if root.is_file():
            files.append(root)
        else:
            files.extend(sorted(p for p in root.rglob("*.py") if p.is_file()))
    return files


def parsable(files: Sequence[Path]) -> Tuple[List[Path], int]:
    ok, lines = [], 0
    for path in files:
        source = path.read_bytes()
        try:
            ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        ok.append(path)
        lines += source.count(b"\n")
    return ok, lines


def make_venvs(venv_dir: Path) -> Tuple[Path, Path]:
    """Two environments with this environment's flake8 version, one with the plugin."""
    import flake8

    version = flake8.__version__
    plain, plugin = venv_dir / f"plain-{version}", venv_dir / f"plugin-{version}"
    for venv, extra in ((plain, []), (plugin, [str(ROOT)])):
        marker = venv / ".ready"
        if plugin == venv or not marker.exists():
            if not (venv / "bin" / "python").exists():
                subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q",
                            f"flake8=={version}", *extra], check=True)
            marker.touch()
    return plain / "bin" / "flake8", plugin / "bin" / "flake8"


def torch_source(python: str) -> Path:
    out = subprocess.run(
        [python, "-c", "import os, torch; print(os.path.dirname(torch.__file__))"],
        capture_output=True, text=True,
    )
    if out.returncode:
        raise SystemExit(f"{python} cannot import torch: {out.stderr.strip()[-300:]}")
    return Path(out.stdout.strip())


def legacy_file(lines: int, directory: Path) -> Path:
    """A file of about ``lines`` lines, made by repeating the legacy example."""
    unit = EXAMPLE.read_text(encoding="utf-8")
    count = max(1, round(lines / unit.count("\n")))
    path = directory / f"legacy_{lines}.py"
    path.write_text(unit * count, encoding="utf-8")
    return path


def corpus_file(files: Sequence[Path], lines: int, directory: Path):
    """About ``lines`` lines of real torch code: whole corpus files that import
    torch, joined, largest first."""
    checkout()
    from flake8_torch04.analysis.markers import text_imports_torch

    chosen, total = [], 0
    for path in sorted(files, key=lambda p: -p.stat().st_size):
        text = path.read_text(encoding="utf-8", errors="replace")
        n = text.count("\n")
        if "__future__" in text or n > lines or total + n > lines * 1.1:
            continue
        if re.search(r"(?im)^#\s*flake8[:=]\s*noqa", text):  # flake8 would skip it all
            continue
        if not text_imports_torch(text):
            continue
        chosen.append(text if text.endswith("\n") else text + "\n")
        total += n
        if total >= lines * 0.9:
            break
    if not chosen:
        return None
    path = directory / "corpus_joined.py"
    path.write_text("".join(chosen), encoding="utf-8")
    try:
        ast.parse(path.read_bytes())
    except SyntaxError:
        return None
    return path


def plugin_cost(path: Path, repeat: int = 5) -> Tuple[float, int]:
    """Median seconds of the plugin's ``check`` on an already parsed file."""
    checkout()
    from flake8_torch04.analysis.run import check

    source = path.read_text(encoding="utf-8")
    tree, lines = ast.parse(source), source.splitlines(keepends=True)
    times = []
    for _ in range(repeat):
        start = time.process_time()
        check(tree, lines)
        times.append(time.process_time() - start)
    return statistics.median(times), len(lines)


def breakdown(files: Sequence[Path], repeat: int = 3) -> Tuple[float, float, float, float]:
    """Where ``torch04 check``'s time goes, in CPU seconds in this process (the
    minimum of ``repeat`` rounds, with ``torch04``'s garbage-collector threshold):
    parsing every file in a row; ``check()`` on each tree with every rule
    replaced by one that reports nothing (the marker gate and the walk alone);
    ``check()`` in full; and the parses made between those full checks (each
    check leaves the processor's caches to the next parse colder)."""
    import gc

    checkout()
    from flake8_torch04 import cli
    from flake8_torch04.analysis.registry import RULES, all_rules
    from flake8_torch04.analysis.run import check
    from flake8_torch04.source.text import lines_of

    rules = all_rules()
    quiet = {c: r._replace(check=lambda ctx, node: ()) for c, r in rules.items()}
    sources = []
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        sources.append((text, lines_of(text)))
    clock = time.process_time
    threshold = gc.get_threshold()
    gc.set_threshold(cli.GC_THRESHOLD, *threshold[1:])
    gc.freeze()  # the sources are not the collector's work in a real run
    best = [float("inf")] * 4
    try:
        for _ in range(repeat):
            spent = [0.0] * 4
            start = clock()
            for text, _ in sources:
                ast.parse(text)
            spent[0] = clock() - start
            for step, table in ((1, quiet), (2, rules)):
                RULES.update(table)
                try:
                    for text, lines in sources:
                        start = clock()
                        tree = ast.parse(text)
                        middle = clock()
                        check(tree, lines)
                        spent[step] += clock() - middle
                        if step == 2:
                            spent[3] += middle - start
                        del tree
                finally:
                    RULES.update(rules)
            best = [min(b, s) for b, s in zip(best, spent)]
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
    return best[0], best[1], best[2], best[3]


CHECK_ONE = """
import ast, sys
sys.path.insert(0, sys.argv[1])
from flake8_torch04.analysis.registry import all_rules
from flake8_torch04.analysis.run import check
from flake8_torch04.source.text import lines_of
all_rules()
source = open(sys.argv[2], encoding="utf-8").read()
tree, lines = ast.parse(source), lines_of(source)
if sys.argv[3] == "check":
    check(tree, lines)
"""


def check_instructions(path: Path) -> Optional[int]:
    """Instructions of ``check()`` on ``path``: a child that checks minus one that only parses."""
    runs = [instructions([sys.executable, "-c", CHECK_ONE, str(ROOT), str(path), step])
            for step in ("parse", "check")]
    return runs[1] - runs[0] if all(runs) else None


def fixer_cost(path: Path) -> Tuple[float, int, int]:
    """CPU seconds of ``torch04 check --fix --unsafe-fixes`` on one file (read, check,
    fix, re-check; nothing written), its lines, and the fixes applied."""
    checkout()
    from flake8_torch04.analysis.registry import all_rules
    from flake8_torch04.pipeline import Options, check_document
    from flake8_torch04.source.document import Document

    codes = tuple(all_rules())
    data = path.read_bytes()
    start = time.process_time()
    result = check_document(Document(data, path.name), Options(codes, fix=True, unsafe=True))
    return time.process_time() - start, data.count(b"\n"), sum(result.fixed.values())


def clean_file(lines: int, directory: Path) -> Path:
    """About ``lines`` lines of modern torch code (nothing to fix)."""
    unit = ("import torch\n\n\ndef step(model, x, opt):\n    opt.zero_grad()\n"
            "    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n"
            "    return loss.item()\n")
    path = directory / f"clean_{lines}.py"
    path.write_text(unit * max(1, lines // unit.count("\n")), encoding="utf-8")
    return path


def hang_files(directory: Path) -> List[Tuple[str, Path]]:
    """The inputs issue 19 found quadratic."""
    asserts = directory / "assert_types.py"
    asserts.write_text(
        "import torch\nimport unittest\n\n\nclass T(unittest.TestCase):\n"
        "    def test(self):\n        x = torch.zeros(1)\n"
        + "        self.assertEqual(type(x), torch.FloatTensor)\n" * 1000, encoding="utf-8")
    chain = directory / "or_chain.py"
    chain.write_text("import torch\n\n\ndef f(x):\n    return "
                     + " or ".join(["type(x) == torch.FloatTensor"] * 20001) + "\n",
                     encoding="utf-8")
    line = directory / "long_line.py"
    line.write_text("import torch\nfrom torch.autograd import Variable\nx = ["
                    + ", ".join(["Variable(a)"] * 80000) + "]\n", encoding="utf-8")
    return [("1,000 assertEqual(type(x), torch.FloatTensor) in one function", asserts),
            ("a 20,001-term `or` chain of type tests", chain),
            ("one 1 MB line with 80,000 findings", line)]


def check_cost(path: Path) -> Tuple[float, int]:
    """CPU seconds of ``torch04 check`` (no fix) on one file, and its findings."""
    checkout()
    from flake8_torch04.analysis.registry import all_rules
    from flake8_torch04.pipeline import Options, check_document
    from flake8_torch04.source.document import Document

    codes = tuple(all_rules())
    data = path.read_bytes()
    start = time.process_time()
    result = check_document(Document(data, path.name), Options(codes))
    return time.process_time() - start, len(result.findings)


def fixer_sections() -> None:
    """Sections [6] and [7], with ``torch04``'s garbage-collector threshold."""
    import gc

    checkout()
    from flake8_torch04 import cli

    threshold = gc.get_threshold()
    gc.set_threshold(cli.GC_THRESHOLD, *threshold[1:])
    try:
        _fixer_sections()
    finally:
        gc.set_threshold(*threshold)


def _fixer_sections() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        print("\n[6] the fixer by file size (check --fix --unsafe-fixes in this process, "
              "CPU s)")
        for size in (1000, 10000, 100000):
            for what, path in (("legacy (a finding every 5 lines)", legacy_file(size, tmpdir)),
                               ("modern (nothing to fix)", clean_file(size, tmpdir))):
                seconds, n, fixes = fixer_cost(path)
                print(f"    {n:>7} lines, {what}: {seconds:8.3f} s, "
                      f"{seconds / n * 1e6:7.1f} us/line, {fixes} fixes")
        print("\n[7] inputs that were quadratic (torch04 check in this process, CPU s)")
        for what, path in hang_files(tmpdir):
            seconds, found = check_cost(path)
            print(f"    {what}: {seconds:.3f} s, {found} findings")


DENSE_HEAD = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
              "from torch.autograd import Variable\n\n")
DENSE_UNIT = '''

def train_{i}(model, optimizer, data, target, lr):
    model.train()
    x = Variable(data)
    y = Variable(target)
    output = model(x)
    prob = F.softmax(output)
    loss = F.nll_loss(output, y)
    optimizer.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data.add_(-lr, p.grad.data)
    if type(x.data) == torch.FloatTensor:
        x = x.cuda()
    return loss.data[0], prob


def evaluate_{i}(model, data, target):
    model.eval()
    x = Variable(data, volatile=True)
    y = Variable(target, volatile=True)
    output = model(x)
    prob = F.softmax(output)
    loss = F.nll_loss(output, y, size_average=False)
    correct = (output.data.max(1)[1] == y.data).sum()
    return loss.data[0], correct, prob
'''


def dense_file(lines: int, directory: Path) -> Path:
    """About ``lines`` lines of the legacy shape of issue 31: one import block, then
    small training and evaluation functions, about one finding every 2 lines."""
    count = max(1, (lines - DENSE_HEAD.count("\n")) // DENSE_UNIT.count("\n"))
    path = directory / f"dense_{lines}.py"
    path.write_text(DENSE_HEAD + "".join(DENSE_UNIT.format(i=i) for i in range(count)),
                    encoding="utf-8")
    return path


#: one measured step in a fresh interpreter: its CPU seconds (the step alone, not
#: the start and the imports) and the process's peak RSS, on the last line of stderr
SCALE_CHILD = """
import ast, resource, sys, time
root, step, path = sys.argv[1:4]
sys.path.insert(0, root)
if step == "torch04":
    from flake8_torch04.cli import main
elif step == "flake8":
    from flake8.main.cli import main
elif step == "plugin":
    from flake8_torch04.plugin import Plugin
start = time.process_time()
if step == "parse":
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read())
elif step == "torch04":
    main(sys.argv[4:])
elif step == "flake8":
    try:
        main(sys.argv[4:])
    except SystemExit:
        pass
else:  # the plugin alone: on the tree and lines flake8 would hand it
    with open(path, encoding="utf-8") as handle:
        lines = handle.readlines()
    tree = ast.parse("".join(lines))
    start = time.process_time()
    found = sum(1 for _ in Plugin(tree, lines, path).run())
spent = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"SCALE {spent:.6f} {peak}", file=sys.stderr)
"""


def scale_step(step: str, path: Path, *args: str) -> Tuple[float, int]:
    """CPU seconds of ``step`` on ``path`` in a fresh interpreter, and its peak RSS (KiB)."""
    proc = subprocess.run([sys.executable, "-c", SCALE_CHILD, str(ROOT), step, str(path),
                           *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines = [line for line in proc.stderr.decode(errors="replace").splitlines()
             if line.startswith("SCALE ")]
    if not lines:
        raise SystemExit(f"{step} on {path.name} failed:\n{proc.stderr.decode()[-2000:]}")
    _, seconds, peak = lines[-1].split()
    return float(seconds), int(peak)


def scaling_section(sizes: Sequence[int]) -> None:
    """[10]: per-line CPU time and peak memory by file size (issue 31)."""
    print(f"\n[10] scaling on the dense legacy shape (a fresh process per step; CPU of the "
          f"step alone, peak RSS of the process; {platform.python_version()})")
    steps = [
        ("torch04 check", "torch04", ("check", "--quiet", "-j1", "--isolated")),
        ("flake8 --select TV -j1", "flake8", ("--select", "TV", "-j1", "--isolated",
                                              "--exit-zero")),
        ("  the plugin alone", "plugin", ()),
        ("torch04 check --fix", "torch04", ("check", "--quiet", "-j1", "--isolated", "--fix")),
        ("  --fix --unsafe-fixes", "torch04", ("check", "--quiet", "-j1", "--isolated", "--fix",
                                               "--unsafe-fixes")),
    ]
    per_line: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        sources, runs = Path(tmp) / "sources", Path(tmp) / "runs"
        sources.mkdir()
        runs.mkdir()
        for size in sizes:
            original = dense_file(size, sources)
            n = original.read_bytes().count(b"\n")
            t_parse, m_parse = scale_step("parse", original)
            print(f"    {n:>7} lines: ast.parse {t_parse / n * 1e6:6.1f} us/line, "
                  f"peak {m_parse / 1024:7.1f} MiB")
            for what, step, args in steps:
                # (--fix writes: a copy each time, alone in its directory and with
                # no module beside that directory, where --fix would look for
                # modules that import the file: see ``_project.taken_by``)
                with tempfile.TemporaryDirectory(dir=runs) as alone:
                    path = Path(alone) / "dense.py"
                    shutil.copyfile(original, path)
                    seconds, peak = scale_step(step, path, *args, str(path))
                per_line.setdefault(what, []).append(seconds / n)
                print(f"      {what:<24} {seconds:8.2f} s, {seconds / n * 1e6:6.1f} us/line,"
                      f" peak {peak / 1024:7.1f} MiB = {peak / m_parse:.2f} x ast.parse's")
    if len(sizes) > 1:
        print(f"    per-line CPU at {sizes[-1]:,} lines / at {sizes[0]:,} (target <= 1.5): "
              + ", ".join(f"{what.strip()} {v[-1] / v[0]:.2f}" for what, v in per_line.items()))


PROJECT_WRAPPER = """
import os, sys
mode, tool = sys.argv.pop(1), sys.argv.pop(1)
if os.environ.get("TORCH04_BENCH_PROBE"):
    # (at exit: ``torch04`` ends its process with ``os._exit`` once its output is
    # flushed, unless an ``atexit`` function is there; only the probe run has one)
    import atexit
    atexit.register(lambda: print("astroid" in sys.modules, file=sys.stderr))
from flake8_torch04.analysis.project import modules as project_modules
if mode == "off":
    project_modules.applies = lambda filename: False
if tool == "torch04":
    from flake8_torch04.cli import main
    sys.argv = ["torch04", "check", "--quiet", "-j1", *sys.argv[1:]]
else:
    from flake8.main.cli import main
    sys.argv = ["flake8", "--select", "TV", "-j1", "--exit-zero", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
"""


def project_section(python: str, names: Sequence[str], pairs: int) -> None:
    """[8]: what resolving names through the project's modules costs (issue 16)."""
    print(f"\n[8] project resolution on vs off, median of {pairs} alternated pairs ({python})")
    for tool in ("torch04", "flake8"):
        on = [python, "-c", PROJECT_WRAPPER, "on", tool, *names]
        off = [python, "-c", PROJECT_WRAPPER, "off", tool, *names]
        t_off, m_off, t_on, m_on = paired(off, on, pairs)
        astroid = subprocess.run(on, capture_output=True, text=True,
                                 env={**os.environ, "TORCH04_BENCH_PROBE": "1"}).stderr.split()[-1:]
        what = "torch04 check" if tool == "torch04" else "flake8 --select TV -j1"
        print(f"    {what}: off {t_off:.3f} s, peak {m_off / 1024:.1f} MiB; "
              f"on {t_on:.3f} s, peak {m_on / 1024:.1f} MiB")
        print(f"      time ratio {t_on / t_off:.3f} (budget 1.10), memory ratio "
              f"{m_on / m_off:.3f}; astroid imported: {' '.join(astroid) or '?'}")


IMPORTERS_MODULE = ("import torch\nfrom torch.autograd import Variable\n\n\n"
                    "def f{i}(x):\n    return Variable(x) + {i}\n")


def importers_project(directory: Path, modules: int) -> None:
    """``modules`` modules to fix, and a ``train.py`` that takes ``Variable`` from
    the first with a star import (so its import is kept)."""
    directory.mkdir()
    for i in range(modules):
        (directory / f"m{i:05}.py").write_text(IMPORTERS_MODULE.format(i=i))
    (directory / "train.py").write_text("from m00000 import *\ny = Variable(1)\n")


IMPORTERS_RUN = """
import sys
sys.path.insert(0, sys.argv.pop(1))
from flake8_torch04.cli import main
sys.exit(main(["check", "--fix", "-q", "-j1", "--select", "TV001", *sys.argv[1:]]))
"""


def importers_section(sizes: Sequence[int] = (1000, 2500, 5000)) -> None:
    """[9]: a whole-project fix, and one module's, as the project grows (issue 32)."""
    print("\n[9] the importer search by project size (torch04 check --fix -j1, CPU s)")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / "project"
            importers_project(project, size)
            one, _ = run([sys.executable, "-c", IMPORTERS_RUN, str(ROOT),
                          str(project / f"m{size - 1:05}.py")])
            whole, peak = run([sys.executable, "-c", IMPORTERS_RUN, str(ROOT), str(project)])
            kept = "from torch.autograd import Variable" in (project / "m00000.py").read_text()
            removed = "autograd" not in (project / f"m{size // 2:05}.py").read_text()
            print(f"    {size:>5} modules: whole project {whole:7.2f} s "
                  f"({whole / size * 1000:5.2f} ms/module, peak {peak / 1024:.0f} MiB); "
                  f"one module {one:5.2f} s; import kept where taken: {kept}, "
                  f"removed elsewhere: {removed}")


def summaries_section(files: Sequence[Path]) -> None:
    """The standard library's module summaries against astroid's, file by file."""
    checkout()
    from flake8_torch04.analysis.project import astroid_all, summary as project_summary

    compared = differences = computed = inferred = checked = wrong = 0
    for path in files:
        parsed = project_summary.parse(str(path))
        if parsed is None:
            continue
        text, tree = parsed
        got, settled = project_summary.summary(str(path), tree, ":=" in text)
        expected = astroid_all.astroid_summary(str(path), text, tree)
        compared += 1
        same = (got.names, got.stars) == (expected.names, expected.stars)
        if settled:
            same = same and got.all_names == expected.all_names
        else:  # astroid read no computed ``__all__`` before: now its inference does
            computed += 1
            names = astroid_all._inferred_all(str(path), text, tree)
            inferred += names is not None
            real = imported_all(path) if names is not None else None
            if real is not None:  # installed software: compare with the module's own
                checked += 1
                if real != names:
                    wrong += 1
                    print(f"    inferred __all__ differs from the imported one: {path}")
        if not same:
            differences += 1
            print(f"    differs: {path}")
    print(f"    summaries: {compared} modules compared with astroid's, {differences} "
          f"differences; {computed} computed __all__, {inferred} inferred by astroid, "
          f"{checked} of them imported: {wrong} differ")


def imported_all(path: Path) -> Optional[set]:
    """``__all__`` of an installed module, imported (``None`` outside site-packages)."""
    import importlib
    import warnings

    parts = path.with_suffix("").parts
    if "site-packages" not in parts:
        return None
    name = parts[len(parts) - parts[::-1].index("site-packages"):]
    if name[-1] == "__init__":
        name = name[:-1]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return set(importlib.import_module(".".join(name)).__all__)
    except BaseException:  # (a module that cannot be imported here)
        return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="*", type=Path, help="files or directories")
    parser.add_argument("--torch-source", action="store_true",
                        help="add the Python source of the installed torch package")
    parser.add_argument("--torch-python", default=sys.executable,
                        help="interpreter that imports torch (for --torch-source)")
    parser.add_argument("--pairs", type=int, default=5, help="alternated pairs (>= 5)")
    parser.add_argument("--venv-dir", type=Path, default=ROOT / ".bench")
    parser.add_argument("--fixer-only", action="store_true",
                        help="only the fixer and the once-quadratic inputs ([6], [7])")
    parser.add_argument("--project-only", action="store_true",
                        help="only project resolution's cost ([8])")
    parser.add_argument("--summaries", action="store_true",
                        help="with [8]: compare module summaries with astroid's")
    parser.add_argument("--importers-only", action="store_true",
                        help="only the importer search by project size ([9])")
    parser.add_argument("--project-python", default=sys.executable,
                        help="interpreter with flake8-torch04 installed, for [8]")
    parser.add_argument("--scaling-only", action="store_true",
                        help="only the scaling on the dense legacy shape ([10])")
    parser.add_argument("--scaling-sizes", default="12500,50000,200000",
                        help="file sizes in lines for [10], comma-separated")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.scaling_sizes.split(",")]
    if args.fixer_only:
        fixer_sections()
        return 0
    if args.importers_only:
        importers_section()
        return 0
    if args.scaling_only:
        scaling_section(sizes)
        return 0
    roots = list(args.corpus)
    if args.torch_source:
        roots.append(torch_source(args.torch_python))
    if not roots:
        parser.error("give a corpus directory or --torch-source")
    pairs = max(5, args.pairs)

    files, lines = parsable(python_files(roots))
    if not files:
        raise SystemExit("no parsable Python files in the corpus")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, {platform.platform()}")
    print(f"corpus: {', '.join(map(str, roots))}")
    print(f"files: {len(files)} parsable, lines: {lines}")
    print(f"run from: {os.getcwd()} ({config_note()})")
    if args.project_only:
        project_section(args.project_python, [str(p) for p in files], pairs)
        if args.summaries:
            summaries_section(files)
        return 0

    plain, plugin = make_venvs(args.venv_dir)
    names = [str(p) for p in files]
    t_plain, m_plain, t_plugin, m_plugin = paired(
        [str(plain), "-j1", "--exit-zero", *names],
        [str(plugin), "-j1", "--exit-zero", *names], pairs)
    print(f"\n[1] flake8 -j1, median of {pairs} alternated pairs")
    print(f"    without plugin: {t_plain:.3f} s, peak {m_plain / 1024:.1f} MiB")
    print(f"    with plugin:    {t_plugin:.3f} s, peak {m_plugin / 1024:.1f} MiB")
    print(f"    time ratio {t_plugin / t_plain:.3f} (budget 1.10), "
          f"memory ratio {m_plugin / m_plain:.3f} (budget 1.05)")
    print("    " + instruction_ratio([str(plain), "-j1", "--exit-zero", *names],
                                     [str(plugin), "-j1", "--exit-zero", *names]))

    # (before this process grows: a child's peak memory counts the pages it
    # shares with this process when it starts, hundreds of MiB after [5])
    project_section(args.project_python, names, pairs)

    torch04 = shutil.which("torch04", path=str(plugin.parent))
    floor_cmd = [sys.executable, "-c", PARSE_FLOOR, *names]
    print(f"\n[2] torch04 check vs ast.parse floor, median of {pairs} alternated pairs")
    if torch04:
        # the installed command: ``python -m`` would import this checkout from the
        # current directory instead (without its bytecode when writing it is off)
        # one process, as the floor: the CPU time of the work itself (the default
        # ``-j`` spreads files over worker processes, each of which starts Python
        # and imports the rules: less wall time, more CPU time; shown after)
        check_cmd = [torch04, "check", "--quiet", "-j1", *names]
        t_floor, _, t_check, _ = paired(floor_cmd, check_cmd, pairs)
        print(f"    ast.parse floor: {t_floor:.3f} s; torch04 check -j1: {t_check:.3f} s; "
              f"ratio {t_check / t_floor:.3f} (budget 2.45)")
        print("    " + instruction_ratio(floor_cmd, check_cmd))
        t_parallel, _ = run([torch04, "check", "--quiet", *names])
        print(f"    torch04 check with its default -j ({os.cpu_count()} cores): "
              f"{t_parallel:.3f} s CPU in all its processes")
    else:
        print("    skipped: no torch04 command in the plugin environment")
    t_parse, t_walk, t_check, t_between = breakdown(files)
    print(f"    in one process, min of 3 rounds: ast.parse of every file {t_parse:.3f} s; "
          f"check() with every rule a\n    no-op (marker gate and walk) {t_walk:.3f} s "
          f"= {t_walk / t_parse:.2f} of a parse; check() {t_check:.3f} s = "
          f"{t_check / t_parse:.2f} of a parse;\n    the parses between those checks "
          f"{t_between:.3f} s = {t_between / t_parse:.2f} of the parses in a row")

    print("\n[3] TorchFix")
    torchfix = shutil.which("torchfix")
    if torchfix:
        runs = [run([torchfix, *names]) for _ in range(pairs)]
        t_fix = statistics.median(t for t, _ in runs)
        m_fix = statistics.median(m for _, m in runs)
        print(f"    torchfix: {t_fix:.3f} s, peak {m_fix / 1024:.1f} MiB")
    else:
        print("    skipped: torchfix is not installed in this environment")

    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        print(f"\n[4] flake8 - on a 1,000-line legacy file (editor save), "
              f"median of {max(pairs, 21)} alternated pairs")
        editors = [("corpus files that import torch, joined", corpus_file(files, 1000, tmpdir)),
                   ("the example repeated (a finding every 5 lines)", legacy_file(1000, tmpdir))]
        for what, editor in editors:
            if editor is None:
                continue
            stdin = editor.read_bytes()
            e_plain, _, e_plugin, _ = paired(
                [str(plain), "--stdin-display-name", "x.py", "-"],
                [str(plugin), "--stdin-display-name", "x.py", "-"], max(pairs, 21), stdin)
            n_lines = stdin.count(b"\n")
            print(f"    {what}, {n_lines} lines:"
                  f" without plugin {e_plain * 1000:.1f} ms, with {e_plugin * 1000:.1f} ms, "
                  f"plugin adds {(e_plugin - e_plain) * 1000:.1f} ms (budget 5 ms)")
            print("      " + instruction_ratio(
                [str(plain), "--stdin-display-name", "x.py", "-"],
                [str(plugin), "--stdin-display-name", "x.py", "-"], stdin))

        print("\n[5] plugin cost by file size (check() on a parsed tree, median of 5)")
        for size in (1000, 10000, 100000):
            path = legacy_file(size, tmpdir)
            seconds, n = plugin_cost(path)
            counted = check_instructions(path)
            per_line = f", {counted / n:,.0f} instructions/line" if counted else ""
            print(f"    {n:>7} lines: {seconds * 1000:8.1f} ms, "
                  f"{seconds / n * 1e6:.2f} us/line{per_line}")
    if args.summaries:
        summaries_section(files)
    fixer_sections()
    importers_section()
    scaling_section(sizes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
