"""No input that parses may make the plugin raise."""
import ast
import os
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from flake8_torch04.analysis.run import check

hypothesmith = pytest.importorskip("hypothesmith")
ROOT = Path(__file__).resolve().parent.parent
#: raise for a deeper fuzz run, e.g. TORCH04_FUZZ_EXAMPLES=2000
EXAMPLES = int(os.environ.get("TORCH04_FUZZ_EXAMPLES", "100"))


def run_all_rules(source, filename="<fuzz>"):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return check(tree, source.splitlines(keepends=True), filename, prefilter=False)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(source=hypothesmith.from_grammar())
def test_fuzz_grammar(source):
    run_all_rules(source)


@settings(max_examples=max(1, EXAMPLES // 2), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(source=hypothesmith.from_node())
def test_fuzz_nodes(source):
    run_all_rules(source)


def installed_python_files():
    """The standard library and this environment's site-packages.

    A base interpreter's own site-packages below the standard library is left
    out when the tests run in a virtual environment: it is not installed here.
    """
    paths = sysconfig.get_paths()
    site = {Path(paths[key]) for key in ("purelib", "platlib")}
    stdlib = Path(paths["stdlib"])
    seen = set()
    for root in [stdlib, *sorted(site)]:
        for path in sorted(root.rglob("*.py")):  # (the same order in every process)
            if root == stdlib and not any(s in path.parents for s in site) and (
                "site-packages" in path.parts or "dist-packages" in path.parts
            ):
                continue
            if path not in seen:
                seen.add(path)
                yield path


#: the crawl in parts, so that pytest-xdist spreads it over the cores (torch's
#: package alone is 2,300 files, twelve minutes on one core)
PARTS = 8


@pytest.mark.parametrize("part", range(PARTS))
def test_crawl_installed_packages_and_stdlib(part):
    checked = 0
    for i, path in enumerate(installed_python_files()):
        if i % PARTS != part:
            continue
        try:
            source = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        try:
            result = run_all_rules(source, str(path))
        except Exception as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{path}: {type(exc).__name__}: {exc}")
        checked += result is not None
    assert checked > 500 // PARTS, f"only {checked} files crawled"


def test_project_lints_itself_clean():
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "flake8_torch04", "tests"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
