"""What a function's parameters take from the calls of the project modules that
import it (analysis/importing.py): a helper of ``search.py`` called from
``main.py``, a class of ``trainer.py`` built in ``main.py``."""
import textwrap
from pathlib import Path

import pytest
from cli_runner import in_process

from flake8_torch04.analysis import foreign
from flake8_torch04.analysis.project import importers
from flake8_torch04.analysis.run import check_source

SEARCH = """\
import torch


def linesearch(f):
    fval = f(True).data
    print(fval[0])


def step(get_loss):
    linesearch(get_loss)
"""

#: a caller whose callback returns a 0-dim ``.mean()``; {imports} and {call}
CALLER = """\
import torch
from torch.autograd import Variable
{imports}


def update(model, x, adv):
    def get_loss(volatile=False):
        prob = model(Variable(x))
        return (-Variable(adv) * prob).mean()
    {call}
"""

#: a caller whose callback returns a 1-D tensor
VECTOR = """\
import torch
from search import step


def fit():
    def loss(volatile=False):
        return torch.zeros(3)
    step(loss)
"""


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def found(path, codes=("TV003",)):
    text = Path(path).read_text(encoding="utf-8")
    return [(f.code, f.line) for f in check_source(text, str(path), list(codes))]


@pytest.fixture(autouse=True)
def fresh():
    importers.forget()
    yield
    importers.forget()


def caller(imports="from search import step", call="step(get_loss)"):
    return CALLER.format(imports=imports, call=call)


@pytest.mark.parametrize("files", [
    {"main.py": caller()},
    {"main.py": caller("import search", "search.step(get_loss)")},
    {"main.py": caller("from search import *")},
    # (a re-export: ``utils`` hands it on)
    {"utils.py": "from search import step\n",
     "main.py": caller("from utils import step")},
    {"utils.py": "from search import *\n",
     "main.py": caller("import utils", "utils.step(get_loss)")},
    # (``from pkg import search``, a submodule)
    {"pkg/__init__.py": "", "pkg/search.py": SEARCH,
     "main.py": caller("from pkg import search", "search.step(get_loss)")},
], ids=["from", "module", "star", "re-exported", "module-re-exported", "submodule"])
def test_the_callers_of_another_module_reach_the_parameter(tmp_path, files):
    write(tmp_path, {"search.py": SEARCH, **files})
    target = tmp_path / ("pkg/search.py" if "pkg/search.py" in files else "search.py")
    assert found(target) == [("TV003", 6)]


REPORT = """\
import torch


def report(total):
    value = total.data
    print(value[0])
"""


@pytest.mark.parametrize("second, flagged", [
    ("torch.ones(2).mean()", True),
    ("torch.ones(2)", False),
], ids=["agree", "disagree"])
def test_two_importers_join_as_two_callers_do(tmp_path, second, flagged):
    """Two importers that pass 0-dim tensors: flagged; a 0-dim and a 1-D: unknown.
    (A module that spells ``report`` as another object's method is not a caller.)"""
    write(tmp_path, {
        "report.py": REPORT,
        "main.py": "import torch\nfrom report import report\n\nreport(torch.zeros(3).sum())\n",
        "train.py": f"import torch\nimport report\n\n\ndef go(log):\n"
                    f"    log.report()\n    report.report({second})\n"})
    assert found(tmp_path / "report.py") == ([("TV003", 6)] if flagged else [])


@pytest.mark.parametrize("files", [
    # (passed as a value, stored, rebound, renamed: its calls are not all in view)
    {"main.py": caller(call="run(step, get_loss)")},
    {"main.py": caller(call="hooks = [step]")},
    {"main.py": caller(call="step(get_loss)\n    step = None")},
    {"main.py": caller(call="step(get_loss)") + "\n\ndef other(step):\n    step(1)\n"},
    {"main.py": caller("from search import step as go", "go(get_loss)")},
    {"main.py": caller("import search", "search.step(get_loss)\n    run(search)")},
    {"main.py": caller("", "from search import step\n    step(get_loss)")},
    {"main.py": caller("from search import *", "step(get_loss)\n    hooks = [step]")},
    # (a star import beside a function of the same name: which one is called?)
    {"main.py": caller("from search import *") + "\n\ndef step(f):\n    return f\n"},
    # (two importers that pass two functions: a callback is one function for all callers)
    {"main.py": caller(), "fit.py": VECTOR},
    # (an importer that cannot be read)
    {"main.py": caller(), "broken.py": "from search import step\nstep(lambda v: v\n"},
    {"pkg/__init__.py": "", "pkg/search.py": SEARCH,
     "main.py": caller("from pkg import search", "search.step(get_loss)\n    run(search)")},
    # (a module that re-exports it by a star import, passed around)
    {"utils.py": "from search import *\n",
     "main.py": caller("import utils", "utils.step(get_loss)\n    run(utils)")},
], ids=["passed", "stored", "rebound", "parameter", "renamed", "module-passed", "local-import",
        "star-stored", "star-shadowed", "two-callbacks", "unreadable", "submodule-passed",
        "re-exporter-passed"])
def test_not_every_call_in_view_is_unknown(tmp_path, files):
    write(tmp_path, {"search.py": SEARCH, **files})
    target = tmp_path / ("pkg/search.py" if "pkg/search.py" in files else "search.py")
    assert found(target) == []


@pytest.mark.parametrize("here, flagged", [
    ("report(torch.ones(4).sum())", True),
    ("report(torch.ones(4))", False),
], ids=["agree", "disagree"])
def test_the_same_file_and_another_module_together(tmp_path, here, flagged):
    write(tmp_path, {
        "report.py": f"{REPORT}\n\n{here}\n",
        "main.py": "import torch\nfrom report import report\n\nreport(torch.zeros(3).sum())\n"})
    assert found(tmp_path / "report.py") == ([("TV003", 6)] if flagged else [])


TRAINER = """\
import torch
import torch.nn as nn
from torch.autograd import Variable


class Trainer(object):
    def __init__(self, D):
        self.D = D

    def train(self):
        criterion = nn.BCELoss()
        label = Variable(torch.ones(4))
        return criterion(self.D(Variable(torch.randn(4, 8))), label)
"""

MODEL = """\
import torch.nn as nn


class D(nn.Module):
    def __init__(self):
        super(D, self).__init__()
        self.main = nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1, 1)
"""


@pytest.mark.parametrize("main, flagged", [
    ("from model import D\nfrom trainer import Trainer\n\nprint(Trainer(D()).train())\n", True),
    ("from model import D\nimport trainer\n\nt = trainer.Trainer(D())\n", True),
    # (a subclass, a class passed around: not every construction in view)
    ("from model import D\nfrom trainer import Trainer\n\n\nclass T(Trainer):\n    pass\n\n"
     "print(T(D()).train())\n", False),
    ("from model import D\nfrom trainer import Trainer\n\nmake(Trainer, D())\n", False),
], ids=["from", "module", "subclass", "passed"])
def test_a_constructor_parameter_takes_what_another_module_builds(tmp_path, main, flagged):
    write(tmp_path, {"trainer.py": TRAINER, "model.py": MODEL, "main.py": main})
    assert found(tmp_path / "trainer.py", ["TV117"]) == ([("TV117", 13)] if flagged else [])


def test_fix_reads_the_other_modules_as_they_were(tmp_path):
    """``--fix`` writes the files once every one is checked: ``main.py``'s
    ``Variable`` fix (checked first) does not hide the value ``search.py`` takes
    from it."""
    write(tmp_path, {"search.py": SEARCH, "main.py": caller()})
    status, out, _ = in_process("check", "--fix", "-j1", "--isolated", ".", cwd=tmp_path)
    assert "fval.item()" in (tmp_path / "search.py").read_text(encoding="utf-8"), out
    assert "Variable" not in (tmp_path / "main.py").read_text(encoding="utf-8")
    foreign.forget()
