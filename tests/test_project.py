"""Names that reach a file from the project's own modules (``flake8_torch04.analysis.project``).

tests/projects/starimport/ has the shape of a 2017 tutorial: ``train.py`` does
``from model import *`` and calls ``Variable``, which ``model.py`` imports from
``torch.autograd``; ``predict.py`` does ``from network import *``, whose
``__init__.py`` does ``from .base_network import *``, which imports ``Variable``.
tests/projects/migrated/starimport/ is the same project migrated by hand.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_runner import in_process

from flake8_torch04.analysis import canonical
from flake8_torch04.analysis.project import modules as project_modules, summary as project_summary
from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.imports import remove_variable_imports

PROJECTS = Path(__file__).parent / "projects"
STARIMPORT = PROJECTS / "starimport"
MIGRATED = PROJECTS / "migrated" / "starimport"


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def found(path, codes=("TV001",)):
    """``(code, line, col)`` of the findings in ``path``, checked under its own name."""
    text = Path(path).read_text(encoding="utf-8")
    return [(f.code, f.line, f.col) for f in check_source(text, str(path), list(codes))]


def run_cli(*args, cwd=None):
    status, out, err = in_process(*args, cwd=cwd)
    assert "internal error" not in err, err
    return status, out, err


# ---------------------------------------------------------------------------
# resolution


def test_a_name_from_a_star_import_of_a_project_module_resolves():
    assert found(STARIMPORT / "train.py") == [("TV001", 10, 8)]


def test_a_package_that_re_exports_a_submodule_with_a_star_import():
    assert found(STARIMPORT / "predict.py") == [("TV001", 5, 4)]


LEGACY_MODEL = "import torch\nfrom torch.autograd import Variable\n"

POSITIVE = {
    "explicit": ({"model.py": LEGACY_MODEL},
                 "from model import Variable\nx = Variable(torch_ones)\n"),
    "alias": ({"model.py": LEGACY_MODEL},
              "from model import Variable as V\nx = V(torch_ones)\n"),
    "module attribute": ({"model.py": LEGACY_MODEL},
                         "import model\nx = model.Variable(torch_ones)\n"),
    "package attribute": ({"pkg/__init__.py": "", "pkg/model.py": LEGACY_MODEL},
                          "import pkg.model\nx = pkg.model.Variable(torch_ones)\n"),
    "submodule alias": ({"pkg/__init__.py": "", "pkg/model.py": LEGACY_MODEL},
                        "import pkg.model as m\nx = m.Variable(torch_ones)\n"),
    "from package import submodule": (
        {"pkg/__init__.py": "", "pkg/model.py": LEGACY_MODEL},
        "from pkg import model\nx = model.Variable(torch_ones)\n"),
    "re-export by name": ({"pkg/__init__.py": "from .model import Variable\n",
                           "pkg/model.py": LEGACY_MODEL},
                          "from pkg import Variable\nx = Variable(torch_ones)\n"),
    "chain of star imports": ({"a.py": "from b import *\n", "b.py": "from c import *\n",
                               "c.py": LEGACY_MODEL},
                              "from a import *\nx = Variable(torch_ones)\n"),
    "torch star import in the module": ({"model.py": "from torch.autograd import *\n"},
                                        "from model import *\nx = Variable(torch_ones)\n"),
    "cycle": ({"a.py": "from b import *\nfrom torch.autograd import Variable\n",
               "b.py": "from a import *\n"},
              "from b import *\nx = Variable(torch_ones)\n"),
    "python 2 implicit relative import": (
        {"pkg/__init__.py": "from base import *\n", "pkg/base.py": LEGACY_MODEL},
        "from pkg import *\nx = Variable(torch_ones)\n"),
    "__all__ names it": ({"model.py": LEGACY_MODEL + "__all__ = ['Variable', 'Net']\n"},
                         "from model import *\nx = Variable(torch_ones)\n"),
    "import inside a conditional": (
        {"model.py": "try:\n    from torch.autograd import Variable\nexcept ImportError:\n"
                     "    pass\n"},
        "from model import *\nx = Variable(torch_ones)\n"),
}


@pytest.mark.parametrize("files, script", POSITIVE.values(), ids=list(POSITIVE))
def test_names_resolve_through_project_modules(tmp_path, files, script):
    write(tmp_path, files)
    (tmp_path / "script.py").write_text(script, encoding="utf-8")
    assert [code for code, _, _ in found(tmp_path / "script.py")] == ["TV001"]


def test_relative_import_inside_a_package(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": LEGACY_MODEL,
                     "pkg/train.py": "from .model import *\nx = Variable(torch_ones)\n",
                     "pkg/sub/__init__.py": "",
                     "pkg/sub/run.py": "from ..model import Variable\ny = Variable(1)\n"})
    assert found(tmp_path / "pkg" / "train.py") == [("TV001", 2, 4)]
    assert found(tmp_path / "pkg" / "sub" / "run.py") == [("TV001", 2, 4)]


NEGATIVE = {
    "the module defines its own Variable": (
        {"model.py": "class Variable(object):\n    pass\n"},
        "from model import *\nx = Variable(1)\n"),
    "a later definition in the module shadows the import": (
        {"model.py": LEGACY_MODEL + "Variable = dict\n"},
        "from model import *\nx = Variable(a=1)\n"),
    "__all__ leaves it out": ({"model.py": LEGACY_MODEL + "__all__ = ['Net']\n"},
                              "from model import *\nx = Variable(1)\n"),
    "defined here after the star import": (
        {"model.py": LEGACY_MODEL},
        "from model import *\n\ndef Variable(x):\n    return x\n\ny = Variable(1)\n"),
    "no such module in the project": ({}, "from helpers import *\nx = Variable(1)\n"),
    "a private name is not taken by *": (
        {"model.py": "from torch.autograd import Variable as _Variable\n"},
        "from model import *\nx = _Variable(1)\n"),
    "numpy is never looked for in the project": (
        {"numpy.py": LEGACY_MODEL}, "from numpy import *\nx = Variable(1)\n"),
    "a module the function imports is local to it": (
        {"model.py": LEGACY_MODEL},
        "def f():\n    from model import Variable\n\nx = Variable(1)\n"),
    "the module does not parse": ({"model.py": "from torch.autograd import Variable\n("},
                                  "from model import *\nx = Variable(1)\n"),
}


@pytest.mark.parametrize("files, script", NEGATIVE.values(), ids=list(NEGATIVE))
def test_names_the_project_does_not_bind_to_torch(tmp_path, files, script):
    write(tmp_path, files)
    (tmp_path / "script.py").write_text(script, encoding="utf-8")
    assert found(tmp_path / "script.py") == []


def test_without_a_file_name_nothing_is_read_from_disk(tmp_path, monkeypatch):
    write(tmp_path, {"model.py": LEGACY_MODEL})
    monkeypatch.chdir(tmp_path)
    source = "from model import *\nx = Variable(1)\n"
    for name in ("", "stdin", "-", "<stdin>"):
        assert check_source(source, name, ["TV001"]) == []


def test_a_changed_module_is_read_again(tmp_path):
    write(tmp_path, {"model.py": "Variable = dict\n",
                     "script.py": "from model import *\nx = Variable(a=1)\n"})
    assert found(tmp_path / "script.py") == []
    (tmp_path / "model.py").write_text(textwrap.dedent(LEGACY_MODEL) + "# now legacy\n",
                                       encoding="utf-8")
    assert found(tmp_path / "script.py") == [("TV001", 2, 4)]


def test_flake8_reads_the_sibling_modules(tmp_path):
    project = tmp_path / "starimport"
    shutil.copytree(STARIMPORT, project)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=TV001", "."],
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    lines = sorted(line.split(" ", 1)[0] for line in proc.stdout.splitlines())
    assert lines == [
        "./model.py:17:9:", "./model.py:18:9:", "./network/base_network.py:16:12:",
        "./predict.py:5:5:", "./train.py:10:9:",
    ]


def test_torch04_reads_the_sibling_modules():
    status, out, _ = run_cli("check", "--select", "TV001", "--output-format", "json",
                             str(STARIMPORT))
    names = sorted((Path(r["filename"]).relative_to(STARIMPORT).as_posix(), r["line"])
                   for r in json.loads(out))
    assert status == 1
    assert ("train.py", 10) in names and ("predict.py", 5) in names


# ---------------------------------------------------------------------------
# cost and bounds, in fresh interpreters


def fresh(script, cwd):
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("\n")


CHECK = """\
    import sys
    from flake8_torch04.analysis.run import check_source
    from flake8_torch04.analysis.project import summary as project_summary
    for name in {names!r}:
        with open(name, encoding="utf-8") as handle:
            print(name, [(f.code, f.line) for f in check_source(handle.read(), name)])
    print("astroid" in sys.modules, project_summary.BUILT[0])
"""


def test_a_file_without_project_imports_pays_nothing(tmp_path):
    """Not even the import of astroid: only os.stat calls for the imports that
    are neither the standard library nor known software."""
    write(tmp_path, {
        "legacy.py": """\
            import os
            import numpy as np
            import torch
            import torch.nn as nn
            from torch.autograd import Variable
            import some_installed_package
            from helpers import *

            x = Variable(torch.ones(2))
        """,
        # a project module that binds no name a rule asks about: not built either
        "utils.py": "def to_var(x):\n    return x\n",
        "uses_utils.py": "import torch\nfrom utils import *\nx = Variable(torch.ones(2))\n",
    })
    out = fresh(CHECK.format(names=["legacy.py", "uses_utils.py"]), tmp_path)
    assert out[0] == "legacy.py [('TV001', 9)]"
    assert out[1] == "uses_utils.py []"
    assert out[2] == "False 0"


def test_astroid_is_not_imported_for_literal_all(tmp_path):
    """Project modules are summarized with the standard library's ``ast``."""
    project = tmp_path / "starimport"
    shutil.copytree(STARIMPORT, project)
    write(project, {"lib.py": LEGACY_MODEL + "__all__ = ['Variable', 'Net']\n",
                    "uses_lib.py": "from lib import *\nx = Variable(1)\n"})
    out = fresh(CHECK.format(names=["train.py", "predict.py", "uses_lib.py"]), project)
    assert out[0] == "train.py [('TV001', 10), ('TV003', 15)]"
    assert out[1] == "predict.py [('TV001', 5), ('TV003', 7)]"
    assert out[2] == "uses_lib.py [('TV001', 2)]"
    assert out[3] == "False 4"


def test_astroid_is_imported_for_a_computed_all_and_builds_only_that_module(tmp_path):
    write(tmp_path, {
        "base.py": LEGACY_MODEL,
        "model.py": "from base import *\n__all__ = ['Net'] + ['Variable']\n",
        "script.py": "from model import *\ny = Variable(1)\n",
    })
    check = textwrap.dedent(CHECK.format(names=["script.py"]))
    out = fresh(check + textwrap.dedent("""\
        from flake8_torch04.analysis.project import astroid_all
        print(astroid_all.ASTROID_BUILT[0])
        from astroid.manager import AstroidManager
        cache = AstroidManager.brain["astroid_cache"]
        print(sorted(name for name in cache if name not in ("", "builtins")))
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy")))
    """), tmp_path)
    assert out[0] == "script.py [('TV001', 2)]"
    assert out[1] == "True 2"  # both modules summarized, ...
    assert out[2] == "1"  # ... astroid built one of them
    built = eval(out[3])  # nothing astroid builds is cached under a module's own name
    assert all(name.startswith(canonical.PREFIX + str(tmp_path)) for name in built)
    assert out[4] == "[]"


COMPUTED_ALL = {
    # (model.py's __all__ lines, whether ``from model import *`` takes Variable)
    "sum of literals, naming it": ("__all__ = ['Net'] + ['Variable']\n", True),
    "sum of literals, leaving it out": ("__all__ = ['Net'] + ['Other']\n", False),
    "+= naming it": ("__all__ = ['Net']\n__all__ += ['Variable']\n", True),
    "+= leaving it out": ("__all__ = ['Net']\n__all__ += ['Other']\n", False),
    "extend naming it": ("__all__ = ['Net']\n__all__.extend(['Variable'])\n", True),
    "append naming it": ("__all__ = ['Net']\n__all__.append('Variable')\n", True),
    "append leaving it out": ("__all__ = ['Net']\n__all__.append('Other')\n", False),
    "names of constants": ("A = 'Net'\n__all__ = (A,) + ('Other',)\n", False),
    # astroid follows no import: it cannot tell, every public name is taken (as before)
    "from a submodule": ("import base\n__all__ = base.__all__ + ['Net']\n", True),
    "a comprehension": ("__all__ = [n for n in ('Net', 'Other')]\n", True),
    "bound in branches": ("if x:\n    __all__ = ['Net']\nelse:\n    __all__ = ['Other']\n",
                          True),
    "appended in a loop": ("__all__ = ['Net']\nfor n in ['Other']:\n    __all__.append(n)\n",
                           True),
    "appended in a function": ("__all__: list = []\ndef f(n):\n    __all__.append(n)\n", True),
}


@pytest.mark.parametrize("lines, takes", COMPUTED_ALL.values(), ids=list(COMPUTED_ALL))
def test_a_computed_all_is_inferred_by_astroid(tmp_path, lines, takes):
    write(tmp_path, {"base.py": "__all__ = ['Other']\nOther = 1\n",
                     "model.py": LEGACY_MODEL + lines,
                     "script.py": "from model import *\nx = Variable(1)\n"})
    assert bool(found(tmp_path / "script.py")) is takes


# ---------------------------------------------------------------------------
# the fixer keeps what another module takes


def test_the_fix_keeps_an_import_that_a_star_import_takes(tmp_path):
    project = tmp_path / "starimport"
    shutil.copytree(STARIMPORT, project)
    status, _, err = run_cli("check", "--fix", "model.py", cwd=project)
    model = (project / "model.py").read_text(encoding="utf-8")
    assert "Variable(" not in model
    assert "from torch.autograd import Variable\n" in model
    assert ("model.py: kept the import of `Variable` (no use is left here): train.py takes "
            "`Variable` from this module with a star import") in err


def test_the_fix_keeps_an_import_that_a_package_re_exports(tmp_path):
    project = tmp_path / "starimport"
    shutil.copytree(STARIMPORT, project)
    run_cli("check", "--fix", os.path.join("network", "base_network.py"), cwd=project)
    text = (project / "network" / "base_network.py").read_text(encoding="utf-8")
    assert "from torch.autograd import Variable\n" in text


@pytest.mark.parametrize("other, why", [
    ("from model import Variable\n", "other.py imports `Variable` from this module"),
    ("import model\ny = model.Variable\n", "other.py uses `model.Variable`"),
], ids=["by name", "as an attribute"])
def test_the_fix_keeps_an_import_another_module_takes(tmp_path, other, why):
    write(tmp_path, {
        "model.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n",
        "other.py": other,
    })
    _, _, err = run_cli("check", "--fix", "model.py", cwd=tmp_path)
    assert "from torch.autograd import Variable" in (tmp_path / "model.py").read_text()
    assert why in err


def test_the_fix_removes_an_import_no_module_takes(tmp_path):
    write(tmp_path, {
        "model.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n",
        "train.py": "from model import *\nprint(x)\n",  # takes ``*``, never uses Variable
        "other.py": "from model import x\n",
        "limited.py": "from restricted import *\nVariable(1)\n",
        "restricted.py": LEGACY_MODEL + "__all__ = ['x']\nx = Variable(torch.ones(2))\n",
    })
    _, _, err = run_cli("check", "--fix", "model.py", "restricted.py", cwd=tmp_path)
    assert "autograd" not in (tmp_path / "model.py").read_text()
    assert "autograd" not in (tmp_path / "restricted.py").read_text()
    assert "kept" not in err


@pytest.mark.parametrize("files, why", [
    ({"pkg/__init__.py": "", "pkg/train.py": "from . import model\ny = model.Variable\n"},
     "uses `model.Variable`"),
    ({"pkg/__init__.py": "", "main.py": "import pkg.model\ny = pkg.model.Variable\n"},
     "uses `pkg.model.Variable`"),
    ({"pkg/__init__.py": "", "main.py": "from pkg import model as m\ny = m.Variable\n"},
     "uses `m.Variable`"),
], ids=["from . import model", "import pkg.model", "from pkg import model as m"])
def test_the_fix_keeps_an_import_a_module_reads_as_an_attribute_of_a_submodule(
        tmp_path, files, why):
    """Issue 32: a submodule reached by a relative or dotted import is a user."""
    write(tmp_path, dict(files, **{"pkg/model.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n"}))
    _, _, err = run_cli("check", "--fix", os.path.join("pkg", "model.py"), cwd=tmp_path)
    assert "from torch.autograd import Variable" in (tmp_path / "pkg" / "model.py").read_text()
    assert why in err


def test_the_fix_keeps_the_import_when_the_search_for_importers_is_cut_short(
        tmp_path, monkeypatch):
    """Issue 32: past the bound of the search, it cannot tell: the import stays, and
    the report says why."""
    from flake8_torch04.analysis.project import importers

    monkeypatch.setattr(importers, "MAX_FILES", 20)
    files = {f"m{i:03}.py": "x = 1\n" for i in range(30)}
    files["model.py"] = LEGACY_MODEL + "x = Variable(torch.ones(2))\n"
    files["zz_train.py"] = "from model import *\ny = Variable(x)\n"  # (walked last)
    write(tmp_path, files)
    _, _, err = run_cli("check", "--fix", "model.py", cwd=tmp_path)
    assert "from torch.autograd import Variable" in (tmp_path / "model.py").read_text()
    assert "the search for the modules that import it stopped" in err
    assert "more than 20 files" in err


def test_an_unparsable_module_that_may_take_the_name_keeps_the_import(tmp_path):
    write(tmp_path, {
        "model.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n",
        "train.py": "from model import *\nprint Variable(x)\n",  # Python 2
        "other.py": "print 'Variable'\n",  # names it, never the module
    })
    _, _, err = run_cli("check", "--fix", "model.py", cwd=tmp_path)
    assert "from torch.autograd import Variable" in (tmp_path / "model.py").read_text()
    assert "train.py could not be parsed and names `Variable`" in err


def test_an_import_kept_for_a_module_the_same_run_fixes_is_dropped_after_it(tmp_path):
    """A star importer that does not parse because of 0.3's ``async=`` is read as its
    rescue; once the run has fixed it (its ``Variable(...)`` gone), the import the
    first pass kept for it is dropped, and no note says it was kept.  A module that
    still uses the name keeps it, with the note."""
    write(tmp_path, {
        "model.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n",
        "train.py": "from model import *\ny = Variable(x).cuda(async=True)\n",
    })
    _, _, err = run_cli("check", "--fix", ".", cwd=tmp_path)
    assert "Variable" not in (tmp_path / "model.py").read_text()
    assert "non_blocking=True" in (tmp_path / "train.py").read_text()
    assert "kept the import" not in err
    write(tmp_path, {
        "model.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n",
        "train.py": "from model import *\ny = Variable\nz = x.cuda(async=True)\n",
    })
    _, _, err = run_cli("check", "--fix", ".", cwd=tmp_path)
    assert "from torch.autograd import Variable" in (tmp_path / "model.py").read_text()
    assert "train.py takes `Variable` from this module with a star import" in err


def test_the_importer_search_reads_each_module_once_per_run(tmp_path, monkeypatch):
    """Issue 32: a whole-project fix builds one index of importers, not one walk
    per module (quadratic); and never walks the parent of a script's directory."""
    from flake8_torch04.analysis.project import importers

    write(tmp_path, {"home/script.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n",
                     "home/other.py": "import os\n",
                     "far.py": "import os\n"})
    for i in range(20):
        write(tmp_path, {f"proj/m{i}.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n"})
    reads = []
    real = importers._imports_of

    def counted(path):
        reads.append(os.path.basename(path))
        return real(path)

    monkeypatch.setattr(importers, "_imports_of", counted)
    run_cli("check", "--fix", "-j", "1", ".", cwd=tmp_path / "proj")
    assert sorted(reads) == sorted(f"m{i}.py" for i in range(20))  # each once
    assert all("autograd" not in p.read_text() for p in (tmp_path / "proj").iterdir())
    reads.clear()
    run_cli("check", "--fix", "script.py", cwd=tmp_path / "home")
    assert "far.py" not in reads and "autograd" not in (tmp_path / "home/script.py").read_text()


def test_remove_variable_imports_asks_what_other_modules_take():
    text = "import torch\nfrom torch.autograd import Variable\nx = torch.ones(2)\n"
    kept = remove_variable_imports(text, {"Variable"}, "\n", taken=lambda name: "train.py")
    assert kept == text
    assert "Variable" not in remove_variable_imports(text, {"Variable"}, "\n")
    asked = []
    remove_variable_imports(text, {"Variable"}, "\n", taken=lambda name: asked.append(name))
    assert asked == ["Variable"]


# ---------------------------------------------------------------------------
# the project as a program under torch 2.13


def run_python(python, script, cwd):
    env = dict(os.environ, PYTHONWARNINGS="default")
    return subprocess.run([python, script], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=300)


def test_the_star_import_project_runs_after_the_fix(tmp_path):
    from test_torch_programs import RUNNER, torch_python

    def strict(python, script, cwd, mode):
        """The programs suite's runner: torch's warnings (``torch``) or all (``all``)
        are errors."""
        env = dict(os.environ)
        env.pop("PYTHONWARNINGS", None)
        return subprocess.run([python, "-c", RUNNER, mode, script], cwd=cwd,
                              capture_output=True, text=True, env=env, timeout=300)

    python = torch_python()
    project = tmp_path / "starimport"
    shutil.copytree(STARIMPORT, project)
    scripts = ("train.py", "predict.py")
    for script in scripts:
        before = run_python(python, script, project)
        assert before.returncode != 0
        assert "invalid index of a 0-dim tensor" in before.stderr

    status, _, err = run_cli("check", "--fix", "--unsafe-fixes", ".", cwd=project)
    # (the imports the first pass kept for the scripts' uses are dropped once the
    # scripts are fixed: no use of ``Variable`` is left anywhere)
    assert "kept the import of `Variable`" not in err
    assert not any("import Variable" in p.read_text() for p in project.rglob("*.py"))
    for script in scripts:
        after = strict(python, script, project, "torch")
        assert after.returncode == 0, after.stderr
        migrated = strict(python, script, MIGRATED, "all")
        assert migrated.returncode == 0, migrated.stderr
        assert after.stdout == migrated.stdout

    # a second run changes nothing
    texts = {p: p.read_text() for p in project.rglob("*.py")}
    status, _, _ = run_cli("check", "--fix", "--unsafe-fixes", ".", cwd=project)
    assert status == 0
    assert texts == {p: p.read_text() for p in project.rglob("*.py")}
    for script in scripts:
        assert run_python(python, script, project).returncode == 0


def test_the_fix_keeps_an_import_a_script_beside_a_namespace_package_takes(tmp_path):
    write(tmp_path, {
        "models/model.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n",
        "train.py": "from models.model import *\ny = Variable(x)\n",
    })
    assert found(tmp_path / "train.py") == [("TV001", 2, 4)]
    _, _, err = run_cli("check", "--fix", os.path.join("models", "model.py"), cwd=tmp_path)
    assert "from torch.autograd import Variable" in (tmp_path / "models" / "model.py").read_text()
    assert "train.py takes `Variable`" in err


def test_a_star_importer_that_imports_the_name_itself_does_not_take_it(tmp_path):
    write(tmp_path, {
        "models.py": LEGACY_MODEL + "x = Variable(torch.ones(2))\n",
        "gan.py": "from torch.autograd import Variable\nfrom models import *\ny = Variable(x)\n",
    })
    _, _, err = run_cli("check", "--fix", "models.py", cwd=tmp_path)
    assert "autograd" not in (tmp_path / "models.py").read_text()
    assert "kept" not in err


def test_installed_packages_are_not_projects(tmp_path):
    """Checking torch's own source never builds torch's modules."""
    write(tmp_path, {
        "site-packages/lib/__init__.py": "from .model import *\nx = Variable(1)\n",
        "site-packages/lib/model.py": LEGACY_MODEL,
    })
    assert found(tmp_path / "site-packages" / "lib" / "__init__.py") == []


# ---------------------------------------------------------------------------
# the standard library's summary gives what astroid's tree gave


TRICKY = {
    "blocks": """\
        import os
        if os.name:
            from torch.autograd import Variable
        else:
            Variable = None
        try:
            import numpy as np
        except ImportError as np:
            pass
        else:
            from a import b
        finally:
            c = 1
        with open(x) as (f, g), open(y) as h:
            from torch import nn
        for i, (j, *k) in z:
            import torch.nn.functional as F
        else:
            F = 2
        while cond:
            from m import *
            del cond
        """,
    "later binding wins": """\
        Variable = 1
        from torch.autograd import Variable
        from torch.autograd import Function
        Function = 2
        import torch; torch = 3
        x = 1; import x
        def Tensor(): pass
        from torch import Tensor
        class Module: pass
        from torch.nn import Module
        @decorator(
            1,
        )

        @other
        def Parameter(): pass
        from torch.nn import Parameter
        """,
    "deletions and annotations": """\
        from torch.autograd import Variable
        del Variable
        from torch import Tensor
        Tensor: int
        x: int = 1
        y[0] = z.attr = 2
        a += 1
        global b
        """,
    "walrus": """\
        from torch.autograd import Variable
        if (Variable := f()):
            pass
        [y := v for v in w if (z := v)]
        lam = lambda q=(r := 1): (s := 2)
        def fn(a=(t := 1), b=g(u := 2), *, c: (v2 := int) = 3) -> (w2 := int):
            global Variable
            Variable = 1
        @(dec := deco)
        @call(kw=(kwv := 1))
        class C((base := object), metaclass=(meta := type)):
            pass
        f(key=(k := 1))
        {(a2 := 1): (b2 := 2)}
        print(f"{(fs := 1)}")
        d[(sub := 1)] = 2
        """,
    "__all__ literal": "__all__ = ['a', 'b']\nfrom m import *\n",
    "__all__ tuple": "__all__ = ('a',)\n",
    "__all__ annotated": "__all__: list = ['a']\n",
    "__all__ twice": "__all__ = ['a']\n__all__ = ['b']\n",
    "__all__ augmented": "__all__ = ['a']\n__all__ += ['b']\n",
    "__all__ not strings": "__all__ = ['a', b]\n",
    "__all__ unpacked": "__all__, x = ['a'], 1\n",
    "__all__ imported": "from m import __all__\n",
    "__all__ from import": "import __all__\n",
    "__all__ in a block": "if x:\n    __all__ = ['a']\nelse:\n    __all__ = ['b']\n",
    "match": """\
        from torch.autograd import Variable
        match x:
            case [Variable, *rest] if (g := 1):
                import torch
            case {"k": v, **others}:
                def inner(): pass
            case Point(x=px) | (px as alias):
                pass
        """,
    "async blocks at module level": """\
        async with a as b:
            from torch.autograd import Variable
        async for c in d:
            import torch.nn as nn
            Variable = 1
        """,
    "relative imports and chains": """\
        from . import a
        from .a import *
        from .. import up
        import pkg.a, os.path as osp
        import pkg.a as a2; a2 = 1
        *s1, s2 = t = u = v
        with ctx as obj.attr, ctx as lst[0]:
            pass
        w = [[(x3 := i) for i in j] for j in k]
        g = (lambda: (y3 := 1))
        h = lambda: [(z3 := i) for i in j]
        global q
        q = 1
        del __all__
        """,
    "decorated class and comments between decorators": """\
        from torch import nn
        @a.b(
            # a comment
            c,
        )
        # between
        @d
        class nn:
            pass
        from torch.nn import functional
        @decorate
        def functional(): pass
        """,
    "try star": """\
        try:
            from torch.autograd import Variable
        except* ValueError as group:
            import numpy
        """,
}


#: names astroid 3 (what Python 3.9 installs) does not see bound at module
#: level: a ``:=`` in a decorator
ASTROID_3_UNSEEN = frozenset(("dec", "kwv"))
ASTROID_MAJOR = int(__import__("astroid").__version__.split(".")[0])


def test_the_standard_library_summary_is_astroid_s(tmp_path):
    """Over the test projects and made-up modules (``bench/benchmark.py``'s
    ``--summaries`` compares them over any tree, the corpus and torch's source)."""
    write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "", "m.py": "", "a.py": "",
                     **{f"pkg/t{i}.py": text for i, text in enumerate(TRICKY.values())}})
    paths = [*PROJECTS.rglob("*.py"), *(tmp_path / "pkg").glob("t*.py")]
    compared = 0
    for path in paths:
        parsed = project_summary.parse(str(path))
        if parsed is None:
            continue
        text, tree = parsed
        expected = project_summary.astroid_summary(str(path), text, tree)
        for walrus in {True, ":=" in text}:
            got, settled = project_summary.summary(str(path), tree, walrus)
            names = got.names
            if ASTROID_MAJOR < 4:  # (Python binds them; astroid 4 agrees)
                names = {k: v for k, v in names.items() if k not in ASTROID_3_UNSEEN}
            assert (names, got.stars) == (expected.names, expected.stars), path
            if settled:
                assert got.all_names == expected.all_names, path
            else:
                assert expected.all_names is None, path
        compared += 1
    # (``match`` needs Python 3.10, ``except*`` 3.11)
    assert compared == len(paths) - (sys.version_info < (3, 10)) - (sys.version_info < (3, 11))


def test_a_module_found_for_a_directory_is_not_the_importing_file_itself(tmp_path):
    """``find`` shares what it found among the files of a directory, but a
    script importing its own name (``import model`` in ``model.py``) finds nothing."""
    write(tmp_path, {"model.py": "import model\n", "train.py": "import model\n"})
    model, train = str(tmp_path / "model.py"), str(tmp_path / "train.py")
    assert project_modules.find(model, "model") is None
    assert project_modules.find(train, "model") == model
    assert project_modules.find(model, "model") is None


# ---------------------------------------------------------------------------
# TV107: a container named like a mapping that a project module makes a list


GENERATE = """\
import torch
import data

corpus = data.Corpus()
word_weights = torch.ones(10)
word_idx = torch.multinomial(word_weights, 1)[0]
word = corpus.dictionary.idx2word[word_idx]
"""


@pytest.mark.parametrize("made, flagged", [
    ("[]", False),  # a list: indexing it with a 0-dim tensor works
    ("list()", False),
    ("{}", True),  # a dict: the tensor hashes by identity (KeyError)
    ("dict()", True),
])
def test_a_mapping_name_made_a_list_in_an_imported_module(tmp_path, made, flagged):
    """``corpus.dictionary.idx2word[word_idx]`` (pytorch/examples' and
    awd-lstm-lm's word language models): ``idx2word`` is named like a mapping
    but ``data.py`` makes it a list."""
    write(tmp_path, {
        "data.py": f"""\
            class Dictionary(object):
                def __init__(self):
                    self.word2idx = {{}}
                    self.idx2word = {made}


            class Corpus(object):
                def __init__(self):
                    self.dictionary = Dictionary()
            """,
        "generate.py": GENERATE,
    })
    expected = [("TV107", 7, 34)] if flagged else []
    assert found(tmp_path / "generate.py", ("TV107",)) == expected


@pytest.mark.parametrize("made, expected", [("[]", []), ("{}", [("TV107", 8, 16)])])
def test_a_mapping_name_made_a_list_in_the_file(tmp_path, made, expected):
    text = GENERATE.replace("import data\n", f"import data\nidx2word = {made}\n")
    write(tmp_path, {"generate.py": text.replace("corpus.dictionary.idx2word[", "idx2word[")})
    assert found(tmp_path / "generate.py", ("TV107",)) == expected


# ---------------------------------------------------------------------------
# class hierarchies across modules (TV104)

BASE_FUNCTION = """\
    import torch
    from torch.autograd import Function


    class BaseFn(Function):
        def forward(self, x):
            return x * 2

        def backward(self, g):
            return g * 2


    class Plain(object):
        pass
"""


@pytest.mark.parametrize("imports, base, flagged", [
    ("from .base import BaseFn", "BaseFn", True),
    ("from pkg.base import BaseFn as Renamed", "Renamed", True),
    ("from . import base", "base.BaseFn", False),  # (an attribute base: not followed)
    ("from .reexport import *", "BaseFn", True),
    ("from .base import Plain", "Plain", False),
    ("from .missing import BaseFn", "BaseFn", False),
    ("import torch.nn as nn", "nn.Module", False),
])
def test_a_legacy_function_through_a_project_class(tmp_path, imports, base, flagged):
    write(tmp_path, {
        "setup.py": "",
        "pkg/__init__.py": "",
        "pkg/base.py": BASE_FUNCTION,
        "pkg/reexport.py": "from .base import *\n",
        "pkg/ops.py": f"""\
            import torch
            {imports}


            class Sub({base}):
                def forward(self, x):
                    return x * 3

                def backward(self, g):
                    return g * 3
        """,
    })
    ops = tmp_path / "pkg" / "ops.py"
    assert found(ops, ("TV104",)) == ([("TV104", 5, 0)] if flagged else [])
    # no fix through another class: what it inherits is not rewritten with it
    status, out, _ = run_cli("check", "--select", "TV104", "--unsafe-fixes", "--diff",
                             str(ops), cwd=tmp_path)
    assert "@@" not in out


_LAGGING_TRAIN = """\
    import torch
    from torch.autograd import Variable


    def make_scheduler(optim):
        return torch.optim.lr_scheduler.StepLR(optimizer=optim, step_size=1, gamma=0.5)


    def train(model, optim, sched, epochs):
        for epoch in range(epochs):
            optim.zero_grad()
            model(Variable(torch.ones(2, 3))).sum().backward()
            optim.step()
            sched.step()


    def main():
        model = torch.nn.Linear(3, 1)
        optim = torch.optim.SGD(model.parameters(), lr=1.0)
        train(model, optim, make_scheduler(optim), 3)
"""


@pytest.mark.parametrize("sibling, flagged", [
    # spells ``train`` (the module's name and the function's) but imports nothing from it
    ("import torch\n\n\ndef batches(mode='train'):\n    return mode == 'train'\n", True),
    # imports the function and calls it with a scheduler of today's schedule: unknown
    ("import torch\nfrom train import train\n\n\ndef run(model, optim, sched):\n"
     "    train(model, optim, sched, 2)\n", False),
])
def test_tv163_follows_a_parameter_whose_callers_are_all_in_the_file(tmp_path, sibling, flagged):
    """The scheduler reaches ``train`` as a parameter from ``main``: followed where
    no other module of the project calls ``train``, though one spells its name."""
    write(tmp_path, {"train.py": _LAGGING_TRAIN, "data.py": sibling})
    assert bool(found(tmp_path / "train.py", ("TV163",))) is flagged


def test_tv129_follows_a_mask_into_a_helper_module_without_torch(tmp_path):
    """The mask reaches ``masked_total`` from the one caller of the project: the
    helper module never imports torch, the value facts still know the mask."""
    write(tmp_path, {
        "scoring.py": "def masked_total(scores, mask):\n"
                      "    return scores.masked_select(mask).sum()\n",
        "run.py": "import torch\nfrom scoring import masked_total\n\n"
                  "mask = torch.zeros(2, 4).byte()\nprint(masked_total(torch.ones(2, 4), mask))\n",
        "other.py": "def masked_total(scores, mask):\n"
                    "    return scores.masked_select(mask).sum()\n",
    })
    assert found(tmp_path / "scoring.py", ("TV129",)) == [("TV129", 2, 32)]
    assert found(tmp_path / "other.py", ("TV129",)) == []  # (no caller gives it a mask)


_CRF = """\
import torch.nn as nn


class CRF(nn.Module):
    def __init__(self, tags):
        super(CRF, self).__init__()
        print("build CRF")  # (the class's name in a string)
        self.tags = tags

    def loss(self, scores, mask):
        return scores.masked_select(mask).sum()
"""
_TAGGER = """\
import torch.nn as nn
from crf import CRF


class Tagger(nn.Module):
    def __init__(self):
        super(Tagger, self).__init__()
        self.crf = CRF(4)

    def loss(self, scores, mask):
        return self.crf.loss(scores, mask)
"""
_MAIN = """\
import torch
from tagger import Tagger

model = Tagger()
mask = torch.zeros(2, 4).byte()
print(model.loss(torch.ones(2, 4), mask))
"""


@pytest.mark.parametrize("extra, flagged", [
    ({}, True),
    # another module calls ``loss`` on a receiver of unknown class: every caller is not in view
    ({"other.py": "def total(model, s, m):\n    return model.loss(s, m)\n"}, False),
])
def test_a_method_s_parameters_are_followed_to_callers_in_other_modules(
        tmp_path, extra, flagged):
    """``CRF.loss`` is called only by ``Tagger.loss`` (on ``self.crf``, a ``CRF``),
    which ``main.py`` calls on a ``Tagger``: the uint8 mask made there reaches
    ``masked_select`` in crf.py (``main.py``'s ``model.loss`` is ``Tagger``'s own
    method, not ``CRF``'s)."""
    write(tmp_path, {"crf.py": _CRF, "tagger.py": _TAGGER, "main.py": _MAIN, **extra})
    assert bool(found(tmp_path / "crf.py", ("TV129",))) is flagged


def test_a_package_that_star_imports_modules_importing_a_sibling_is_searched_once(
        tmp_path, monkeypatch):
    """asyncio's shape: ``__init__`` star-imports every submodule, and each does
    ``from . import exceptions``, which its star import passes on. Where
    ``exceptions`` is defined was looked for along every path through the
    package (64 s for asyncio/futures.py); each module is now asked once."""
    from flake8_torch04.analysis.project import lookup

    names = [f"m{i}" for i in range(12)]
    for name in names:
        write(tmp_path, {f"pkg/{name}.py": "from . import m0\n"})
    write(tmp_path, {"pkg/__init__.py": "".join(f"from .{n} import *\n" for n in names)})
    asked = []
    real = lookup.attribute

    def counted(path, name, star=False):
        asked.append((path, name))
        return real(path, name, star)

    monkeypatch.setattr(lookup, "attribute", counted)
    init = str(tmp_path / "pkg" / "__init__.py")
    assert lookup.definition_site(f"{canonical.PROJECT}{init}.m0") is None
    assert len(asked) <= 4 * len(names)  # (was 24,519)
