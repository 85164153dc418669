"""Legacy programs run under PyTorch 2.13 before and after ``torch04 check --fix``.

Each program ``tests/programs/NAME.py`` is a small PyTorch 0.3-era program; a
hand-migrated copy ``tests/programs/migrated/NAME.py`` beside it is what a
person would write for torch 2.13.  The program's header comments say:

- ``# needs: TV001 TV003``: the rules whose fixes it relies on (the tests of
  the fix are skipped until they are all registered);
- ``# flags: --unsafe-fixes``: extra options for ``torch04 check --fix``;
- what torch 2.13 does to the legacy program, at least one of
  ``# before-error: TEXT`` (it stops, with TEXT in stderr),
  ``# before-warning: TEXT`` (it runs to the end and warns TEXT) and
  ``# before-silent: WHY`` (it runs to the end, without a warning from torch,
  and prints something else than the migrated copy: a silent change);
- ``# module: NAME.py``: a module of the program's project that it imports,
  ``tests/programs/modules/NAME.py`` (its migrated copy in
  ``migrated/modules/``): run on the module search path, and copied beside the
  program to be fixed with it, as a project's modules are;
- a library the program imports that is not installed here (gym) has a stand-in
  in ``tests/programs/libraries/``, on the module search path when any program
  runs and never copied beside it: the fixer sees it as an installed library;
- ``# hand-edit: OLD => NEW``: a literal replacement applied after the fix,
  for a change the fixer leaves to a person (a finding without an automatic
  fix); ``\\n`` in OLD or NEW stands for a line break.  OLD must occur exactly
  once in the fixed text (header lines aside), a finding must remain
  on a line OLD spans, and that finding's message must name what NEW brings:
  one of NEW's words (identifiers or keywords of two characters or more that
  OLD does not hold) must occur in the message.  When NEW brings no word
  (a deletion), the remaining finding is enough.

The tests check, for every program:

1. on torch 2.13 the legacy program fails or warns as its header says;
2. the migrated copy runs with *every* warning made an error, and
   ``torch04 check`` finds nothing in it;
3. after ``torch04 check --fix`` (with the program's flags) and the hand edits,
   the program runs with torch's warnings made errors and prints exactly what
   the migrated copy prints; re-fixing the fixed text changes nothing;
4. after ``torch04 check --fix`` with the *safe* fixes alone, a program that
   runs prints the migrated copy's numbers, or the legacy program's where an
   unsafe fix or a hand edit is still missing: never other numbers (a program
   that does not run yet is skipped, with the error, and so is one whose
   legacy form does not run while it declares unsafe fixes or hand edits);
5. every rule with a safe fix has one in some program (but the torchvision
   rules: torchvision is not installed).

**Which warnings are errors.**  A warning torch raises is often attributed to
the caller's frame (``stacklevel=2``; warnings from C++ go to the Python line
that called in), so a filter on torch's modules alone would miss most of them.
Each program runs in a fresh interpreter through ``RUNNER``, which imports torch
first (ignoring only the "Failed to initialize NumPy" warning its import gives
where numpy is missing: that is the environment, not the program), then turns
into an error every warning that is attributed to a module named ``torch`` or
``torch.*`` or to the program (``__main__``) - ``warnings.filterwarnings(
"error", module=...)`` - and, as a second net, every warning that reaches
``showwarning`` with a file name inside torch's package or the program's own
file.  The program itself imports only torch and the standard library, so
everything so caught comes from torch.  Any other warning is still shown.  The
migrated copy runs with ``warnings.simplefilter("error")`` and must leave stderr
empty: no warning at all.  The legacy program runs with warnings shown as
usual (``simplefilter("default")``), so that its header's texts can be found.

Programs are small 0.3-style scripts (synthetic data, tiny tensors, a few
steps, ``torch.manual_seed(0)``, printed numbers), never torchvision; they and
their migrated copies are excluded from flake8 (setup.cfg ``extend-exclude``)
and are not fixtures (tests/fixtures/ holds those).

The programs run under ``$TORCH04_TORCH_PYTHON`` (default: this interpreter),
which must have ``torch==2.13.0``; otherwise these tests are skipped, and the
tests that need no torch (headers, migrated copies present, no findings in the
migrated copies) still run.  Each run is one ``python`` process; a program's
runs are cached within the session, so each file runs once.
"""
import ast
import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import in_process

from flake8_torch04.analysis.registry import all_rules

HERE = Path(__file__).parent
PROGRAMS = sorted((HERE / "programs").glob("*.py"))
MIGRATED = HERE / "programs" / "migrated"
TORCH_VERSION = "2.13.0"
BEFORE_KEYS = ("before-error", "before-warning", "before-silent")
#: the header keys a program may use
KEYS = {"needs", "flags", "hand-edit", "module", *BEFORE_KEYS}
#: the project modules programs import (``# module:``), and their migrated copies
MODULES = HERE / "programs" / "modules"
MIGRATED_MODULES = MIGRATED / "modules"
#: stand-ins for libraries programs import that are not installed here (gym): on
#: the module search path when a program runs, never beside it (not the project's)
LIBRARIES = HERE / "programs" / "libraries"

#: ``python -c RUNNER MODE PATH``: run PATH as ``__main__``; MODE is ``observe``
#: (warnings shown as usual), ``torch`` (torch's warnings are errors) or ``all``
#: (every warning is an error).  See the module docstring.
RUNNER = r"""
import os, runpy, sys, warnings
mode, path = sys.argv[1], os.path.abspath(sys.argv[2])
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch
warnings.resetwarnings()
warnings.simplefilter("default")
if mode == "torch":
    warnings.filterwarnings("error", module=r"(torch|__main__)(\.|$)")
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    shown = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        where = os.path.abspath(filename)
        if where.startswith(torch_dir) or where == path:
            raise category(f"{message} (warned at {filename}:{lineno})")
        shown(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning
elif mode == "all":
    warnings.simplefilter("error")
sys.argv = [path]
sys.path[0] = os.path.dirname(path)
sys.path.insert(1, os.path.join(os.path.dirname(path), "modules"))  # (``# module:``)
if os.environ.get("TORCH04_LIBRARIES"):  # (stand-ins for libraries: gym)
    sys.path.insert(1, os.environ["TORCH04_LIBRARIES"])
runpy.run_path(path, run_name="__main__")
"""


@functools.lru_cache(maxsize=None)
def torch_python():
    """The interpreter that runs the programs; skips unless it has torch 2.13.0."""
    python = os.environ.get("TORCH04_TORCH_PYTHON", sys.executable)
    if python == sys.executable:
        torch = pytest.importorskip("torch")
        version = torch.__version__
    else:
        proc = subprocess.run([python, "-c", "import torch; print(torch.__version__)"],
                              capture_output=True, text=True)
        if proc.returncode:
            pytest.skip(f"{python} cannot import torch")
        version = proc.stdout.strip()
    if version.split("+")[0] != TORCH_VERSION:
        pytest.skip(f"torch {version} is not {TORCH_VERSION}")
    return python


def header(path):
    """``{key: [values]}`` from the program's ``# key: value`` comments."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"# ([\w-]+): (.*)", line)
        if match:
            found.setdefault(match.group(1), []).append(match.group(2))
    return found


def hand_edits(meta):
    edits = []
    for line in meta.get("hand-edit", []):
        old, sep, new = line.partition(" => ")
        assert sep and old, f"hand-edit needs 'OLD => NEW': {line!r}"
        edits.append((old.replace(r"\n", "\n"), new.replace(r"\n", "\n")))
    return edits


#: what a program may import besides torch and the standard library
OPTIONAL_MODULES = ("numpy",)


@functools.lru_cache(maxsize=None)
def importable(python, module):
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def execute(mode, path):
    """Run ``path`` with ``RUNNER`` in ``mode``, in its own directory (skipped where
    the interpreter lacks a module the program imports: numpy, say)."""
    python = torch_python()
    text = path.read_text(encoding="utf-8")
    for module in OPTIONAL_MODULES:
        if re.search(rf"^(?:import|from)\s+{module}\b", text, re.M) \
                and not importable(python, module):
            pytest.skip(f"{path.name} imports {module}, which {python} cannot import")
    env = dict(os.environ)
    env.pop("PYTHONWARNINGS", None)
    env["TORCH04_LIBRARIES"] = str(LIBRARIES)
    return subprocess.run([python, "-c", RUNNER, mode, str(path)], capture_output=True,
                          text=True, env=env, cwd=path.parent, timeout=300)


@functools.lru_cache(maxsize=None)
def run_legacy(program):
    return execute("observe", program)


@functools.lru_cache(maxsize=None)
def run_migrated(program):
    return execute("all", MIGRATED / program.name)


def torch04(*args):
    """``torch04 ARGS`` in this process: (status, stdout, stderr)."""
    status, out, err = in_process(*args)
    assert "internal error" not in err, err
    return status, out, err


def findings(path):
    """The findings ``torch04 check`` reports in ``path``, as JSON records."""
    status, out, err = torch04("check", "--output-format", "json", "-q", str(path))
    assert status in (0, 1), err
    return json.loads(out)


def occurrences(text, old):
    """Where ``old`` starts in ``text``, outside the ``# hand-edit:`` header lines."""
    header_lines = [m.span() for m in re.finditer(r"(?m)^# hand-edit: .*$", text)]
    found, at = [], text.find(old)
    while at != -1:
        if not any(start <= at < end for start, end in header_lines):
            found.append(at)
        at = text.find(old, at + 1)
    return found


def words(text):
    return {w for w in re.findall(r"[A-Za-z_]\w+", text)}


def modules_of(program):
    """The names of the project modules ``program`` imports (``# module:``)."""
    return [name for line in header(program).get("module", []) for name in line.split()]


def copy_program(program, tmp_path):
    """``program`` and its project modules copied side by side into ``tmp_path``:
    the paths to fix, the program's first."""
    copy = tmp_path / program.name
    copy.write_text(program.read_text(encoding="utf-8"), encoding="utf-8")
    paths = [copy]
    for name in modules_of(program):
        paths.append(tmp_path / name)
        paths[-1].write_text((MODULES / name).read_text(encoding="utf-8"), encoding="utf-8")
    return paths


def needs_rules(meta):
    missing = [c for line in meta["needs"] for c in line.split() if c not in all_rules()]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")


def shown(proc):
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}"


ids = functools.partial(pytest.mark.parametrize, "program", PROGRAMS, ids=lambda p: p.stem)


def test_every_program_declares_what_it_needs_and_has_a_migrated_copy():
    assert len(PROGRAMS) >= 5
    for path in PROGRAMS:
        meta = header(path)
        assert set(meta) <= KEYS, f"{path.name}: unknown header keys {set(meta) - KEYS}"
        assert meta.get("needs"), path.name
        assert any(meta.get(key) for key in BEFORE_KEYS), path.name
        assert (MIGRATED / path.name).is_file(), f"{path.name} has no migrated copy"
        for name in modules_of(path):
            assert (MODULES / name).is_file(), f"{path.name}: no module {name}"
            assert (MIGRATED_MODULES / name).is_file(), f"{name} has no migrated copy"
        hand_edits(meta)
    extra = {p.name for p in MIGRATED.glob("*.py")} - {p.name for p in PROGRAMS}
    assert not extra, f"migrated copies without a program: {sorted(extra)}"


@ids()
def test_migrated_copy_has_no_finding(program):
    assert findings(MIGRATED / program.name) == []
    for name in modules_of(program):
        assert findings(MIGRATED_MODULES / name) == [], name


@ids()
def test_legacy_program_fails_or_warns_as_its_header_says(program):
    meta = header(program)
    before = run_legacy(program)
    errors = meta.get("before-error", [])
    if errors:
        assert before.returncode != 0, shown(before)
    else:
        assert before.returncode == 0, shown(before)
    for text in errors + meta.get("before-warning", []):
        assert text in before.stderr, shown(before)
    if meta.get("before-silent"):
        assert "Warning" not in before.stderr, shown(before)
        assert before.stdout != run_migrated(program).stdout, shown(before)


@ids()
def test_migrated_copy_runs_without_any_warning(program):
    migrated = run_migrated(program)
    assert migrated.returncode == 0, shown(migrated)
    assert migrated.stderr == "", shown(migrated)
    assert migrated.stdout.strip(), "the migrated copy prints nothing"


@ids()
def test_program_runs_after_the_fix_as_the_migrated_copy(program, tmp_path):
    meta = header(program)
    needs_rules(meta)
    torch_python()
    original = program.read_text(encoding="utf-8")
    paths = copy_program(program, tmp_path)
    copy = paths[0]

    flags = [f for line in meta.get("flags", []) for f in line.split()]
    torch04("check", "--fix", "-q", *flags, *map(str, paths))
    fixed = copy.read_text(encoding="utf-8")
    assert fixed != original, "the fix changed nothing"
    ast.parse(fixed)
    torch04("check", "--fix", "-q", *flags, *map(str, paths))
    assert copy.read_text(encoding="utf-8") == fixed, "a second run changed the file"

    edits = hand_edits(meta)
    if edits:
        remaining = findings(copy)
        edited = fixed
        for old, new in edits:
            places = occurrences(fixed, old)
            assert len(places) == 1, f"hand-edit {old!r} occurs {len(places)} times:\n{fixed}"
            start = fixed.count("\n", 0, places[0]) + 1
            lines = range(start, start + old.count("\n") + 1)
            here = [f for f in remaining if f["line"] in lines]
            assert here, f"no finding left on line {start} for hand-edit {old!r}:\n{fixed}"
            brought = {w for w in words(new) - words(old)}
            if brought:
                assert any(brought & words(f["message"]) for f in here), (
                    f"hand-edit {old!r} => {new!r}: no remaining finding on line {start} names "
                    f"any of {sorted(brought)}: {[f['message'] for f in here]}")
            at = occurrences(edited, old)[0]
            edited = edited[:at] + new + edited[at + len(old):]
        ast.parse(edited)
        copy.write_text(edited, encoding="utf-8")

    after = execute("torch", copy)
    text = copy.read_text(encoding="utf-8")
    assert after.returncode == 0, f"{text}\n{shown(after)}"
    migrated = run_migrated(program)
    assert migrated.returncode == 0, shown(migrated)
    assert after.stdout == migrated.stdout, f"{text}\n{shown(after)}"


def numbers(text):
    """The numbers a program printed, in order (what a fix must keep)."""
    return re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)


@ids()
def test_safe_fixes_keep_the_migrated_numbers(program, tmp_path):
    """A *safe* fix may not change what the program prints: after ``--fix``
    without ``--unsafe-fixes`` (and without hand edits), a program that runs
    prints the migrated copy's numbers, or, where a change that only an unsafe
    fix or a hand edit makes is still missing, what the legacy program printed.
    A program that does not run yet is reported as skipped."""
    torch_python()
    paths = copy_program(program, tmp_path)
    copy = paths[0]
    torch04("check", "--fix", "-q", *map(str, paths))
    after = execute("observe", copy)
    if after.returncode != 0:
        pytest.skip("not yet runnable with its safe fixes alone: "
                    + (after.stderr.strip().splitlines() or ["?"])[-1])
    printed = numbers(after.stdout)
    if printed == numbers(run_migrated(program).stdout):
        return
    legacy = run_legacy(program)
    meta = header(program)
    if legacy.returncode != 0 and (meta.get("flags") or meta.get("hand-edit")):
        pytest.skip("prints the migrated numbers only once its unsafe fixes or hand edits "
                    "are made (the legacy program does not run to compare with)")
    assert legacy.returncode == 0 and printed == numbers(legacy.stdout), (
        f"a safe fix changed the numbers:\n{copy.read_text(encoding='utf-8')}\n{shown(after)}")
    pytest.skip("prints the legacy numbers until its unsafe fixes or hand edits are made")


#: rules with a safe fix that no program can exercise: torchvision is not installed
NOT_IN_PROGRAMS = {"TV112": "torchvision", "TV116": "torchvision", "TV128": "torchvision",
                   "TV138": "torchvision", "TV139": "torchvision"}


def test_every_rule_with_a_safe_fix_is_exercised_by_a_program():
    from flake8_torch04 import ruledocs

    safe = {code for code, rule in all_rules().items()
            if ruledocs.fix_summary(rule) in ("safe", "safe and unsafe")}
    seen = {f["code"] for path in PROGRAMS for f in findings(path)
            if f.get("fix") and f["fix"]["applicability"] == "safe"}
    assert safe - seen <= set(NOT_IN_PROGRAMS), sorted(safe - seen - set(NOT_IN_PROGRAMS))


def test_runner_makes_torch_warnings_errors(tmp_path):
    """The runner catches a warning torch attributes to the caller and one from C++."""
    torch_python()
    cases = {
        "python.py": "import torch.nn.functional as F\nimport torch\n"
                     "print(F.softmax(torch.ones(2, 2)).sum().item())\n",
        "cpp.py": "import torch\nx = torch.ones(3)\nx.add_(1, torch.ones(3))\nprint(x)\n",
        "clean.py": "import torch\nprint(torch.ones(2).sum().item())\n",
    }
    for name, source in cases.items():
        path = tmp_path / name
        path.write_text(source, encoding="utf-8")
        strict = execute("torch", path)
        if name == "clean.py":
            assert strict.returncode == 0 and strict.stderr == "", shown(strict)
        else:
            assert strict.returncode != 0 and "Warning" in strict.stderr, shown(strict)
