"""Values through the functions of the project's other modules (analysis/foreign.py):
a helper imported from ``utils`` is read where it is defined."""
import textwrap
from pathlib import Path

import pytest

from flake8_torch04.analysis import foreign
from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.edits import apply_edits

HELPERS = """\
import torch
from torch.autograd import Variable


def to_gpu(gpu, var):
    if gpu:
        return var.cuda()
    return var


def cuda_variable(tensor):
    if torch.cuda.is_available():
        return Variable(tensor.cuda())
    return Variable(tensor)


def str2tensor(msg):
    return cuda_variable(torch.LongTensor([ord(c) for c in msg]))


def pad_mask(seq):
    return seq.data.eq(0).byte()


def bool_mask(seq):
    return seq.data.eq(0)


def total(var):
    return var.sum()


def logged(f):
    return f


@logged
def decorated(gpu, var):
    return var
"""


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def found(path, codes):
    text = Path(path).read_text(encoding="utf-8")
    return [(f.code, f.line) for f in check_source(text, str(path), list(codes))]


@pytest.fixture(autouse=True)
def fresh():
    foreign.forget()
    yield
    foreign.forget()


GRADIENTS = """\
import torch
{imports}


def step(netD, real, cuda):
    errD = netD(real).mean()
    errD.backward({gradient})
"""


@pytest.mark.parametrize("imports, gradient, flagged", [
    ("from utils import to_gpu", "to_gpu(cuda, torch.FloatTensor([1]))", True),
    ("from utils import *", "to_gpu(cuda, torch.FloatTensor([1]))", True),
    ("from utils import to_gpu", "to_gpu(cuda, var=torch.FloatTensor([-1]))", True),
    ("from pkg import to_gpu", "to_gpu(cuda, torch.FloatTensor([1]))", True),  # (re-exported)
    # not followed or not one element
    ("import utils", "utils.to_gpu(cuda, torch.FloatTensor([1]))", False),
    ("from utils import decorated", "decorated(cuda, torch.FloatTensor([1]))", False),
    ("from utils import total", "total(torch.FloatTensor([1, 2]))", False),
    ("from utils import to_gpu", "to_gpu(cuda, torch.ones(2, 2))", False),
    ("from elsewhere import to_gpu", "to_gpu(cuda, torch.FloatTensor([1]))", False),
])
def test_a_gradient_made_by_a_helper_of_another_module(tmp_path, imports, gradient, flagged):
    write(tmp_path, {"utils.py": HELPERS, "pkg/__init__.py": "from utils import *\n",
                     "train.py": GRADIENTS.format(imports=imports, gradient=gradient)})
    assert found(tmp_path / "train.py", ["TV103"]) == ([("TV103", 7)] if flagged else [])


def test_a_helper_called_at_the_top_of_the_module(tmp_path):
    """At the top of a script the helper's name is reached by its import (in a
    function, by nothing): both are read where the helper is defined."""
    write(tmp_path, {"utils.py": HELPERS, "train.py": """\
import torch
from utils import to_gpu

one = to_gpu(False, torch.FloatTensor([1]))
x = torch.randn(3, requires_grad=True)
errD = (x * 2).sum()
errD.backward(one)
"""})
    assert found(tmp_path / "train.py", ["TV103"]) == [("TV103", 7)]


def test_the_helpers_value_gives_the_fix(tmp_path):
    """``one = to_gpu(cuda, FloatTensor([1]))``, ``mone = one * -1``: the fix is
    ``(-errD).backward()`` as for the literal."""
    write(tmp_path, {"utils.py": HELPERS, "train.py": GRADIENTS.format(
        imports="from utils import *", gradient="to_gpu(cuda, torch.FloatTensor([1])) * -1")})
    text = (tmp_path / "train.py").read_text(encoding="utf-8")
    (finding,) = check_source(text, str(tmp_path / "train.py"), ["TV103"])
    assert "(-errD).backward()" in finding.message
    assert finding.fix is not None and finding.fix.edits[0].text == "(-errD).backward()"


MASKS = """\
import torch
from utils import *


def attend(scores, seq):
    mask = {mask}
    scores.masked_fill_(mask, -1e9)
    return scores
"""


@pytest.mark.parametrize("mask, flagged", [
    ("pad_mask(seq)", True),
    ("bool_mask(seq)", False),
    ("to_gpu(True, pad_mask(seq))", True),
    ("to_gpu(True, bool_mask(seq))", False),
])
def test_a_byte_mask_made_by_a_helper_of_another_module(tmp_path, mask, flagged):
    """The file never says ``byte``: the mask is one by the helper's return."""
    write(tmp_path, {"utils.py": HELPERS, "model.py": MASKS.format(mask=mask)})
    assert found(tmp_path / "model.py", ["TV129"]) == ([("TV129", 7)] if flagged else [])


def test_a_loss_target_indexed_from_a_helpers_1d_tensor(tmp_path):
    """``target = str2tensor(line)`` (a LongTensor of a list of numbers, through
    ``cuda_variable``, in another module): ``target[c]`` is 0-dim."""
    write(tmp_path, {"utils.py": HELPERS, "train.py": """\
        import torch
        import torch.nn as nn
        from utils import str2tensor, cuda_variable

        criterion = nn.CrossEntropyLoss()


        def train(decoder, line):
            target = str2tensor(line)
            loss = 0
            for c in range(len(target)):
                loss += criterion(decoder(c), target[c])
            rows = cuda_variable(torch.LongTensor(3, 4))
            loss += criterion(decoder(0), rows[0])
            return loss
        """})
    assert found(tmp_path / "train.py", ["TV107"]) == [("TV107", 12)]


def test_a_changed_helper_is_read_again(tmp_path):
    write(tmp_path, {"utils.py": HELPERS, "train.py": GRADIENTS.format(
        imports="from utils import to_gpu", gradient="to_gpu(cuda, torch.FloatTensor([1]))")})
    assert found(tmp_path / "train.py", ["TV103"]) == [("TV103", 7)]
    (tmp_path / "utils.py").write_text(
        HELPERS.replace("        return var.cuda()\n    return var",
                        "        return var.cuda()\n    return var.view(1, 1)"), encoding="utf-8")
    assert found(tmp_path / "train.py", ["TV103"]) == []


def test_an_unreadable_or_broken_helper_module_is_unknown(tmp_path):
    write(tmp_path, {"utils.py": "def to_gpu(gpu, var:\n", "train.py": GRADIENTS.format(
        imports="from utils import to_gpu", gradient="to_gpu(cuda, torch.FloatTensor([1]))")})
    assert found(tmp_path / "train.py", ["TV103"]) == []


MODELS = """\
import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())

    def forward(self, x):
        return self.main(x)


class Plain(object):
    def forward(self, x):
        return nn.Linear(2, 1)(x)


def Factory():
    return nn.Linear(2, 1)
"""


@pytest.mark.parametrize("build, flagged", [
    ("from models import Discriminator as D_class\nD = D_class()", True),
    ("from models import *\nD = Discriminator()", True),
    ("from models import Plain\nD = Plain()", False),  # (not an nn.Module)
    ("import models\nD = models.Discriminator()", True),  # (a class of an imported module)
])
def test_a_module_class_of_another_module_gives_its_forwards_output(tmp_path, build, flagged):
    """``D = Discriminator()`` from ``models.py``, ending in ``Linear(8, 1)``: a
    1-D target of BCELoss on ``D(x)`` is TV117's."""
    write(tmp_path, {"models.py": MODELS, "train.py": f"""\
import torch
import torch.nn as nn
{build}
criterion = nn.BCELoss()


def step(x):
    return criterion(D(x), torch.ones(16))
"""})
    expected = [("TV117", 9)] if flagged else []
    assert found(tmp_path / "train.py", ["TV117"]) == expected


@pytest.mark.parametrize("init, flagged", [
    ("from .models import Discriminator\n", True),  # (a package re-exporting its class)
    ("from .models import Discriminator as Discriminator\n", True),
    ("from .models import Plain as Discriminator\n", False),  # (another class, renamed)
    ("", False),  # (the package binds no such name)
])
def test_a_module_class_re_exported_by_a_package(tmp_path, init, flagged):
    write(tmp_path, {"nets/models.py": MODELS, "nets/__init__.py": init, "train.py": """\
import torch
import torch.nn as nn
from nets import Discriminator
D = Discriminator()
criterion = nn.BCELoss()


def step(x):
    return criterion(D(x), torch.ones(16))
"""})
    expected = [("TV117", 9)] if flagged else []
    assert found(tmp_path / "train.py", ["TV117"]) == expected


LABELS = """\
import torch
from torch.autograd import Variable

labels = torch.LongTensor([3, 5, 7])
{more}
"""


@pytest.mark.parametrize("more, read, flagged", [
    ("", "from data import labels\n\nbucket = labels / 2", True),
    ("", "from data import labels\n\n\ndef bucket():\n    return labels / 2", True),
    ("", "import data\n\n\ndef bucket():\n    return data.labels / 2", True),
    ("", "from data import labels as ys\n\nbucket = ys / 2", True),
    # rebound where the reader cannot see when: unknown
    ("def reload():\n    global labels\n    labels = torch.randn(3)", "from data import labels\n\n"
     "bucket = labels / 2", False),
    ("if torch.cuda.is_available():\n    labels = labels.float()", "from data import labels\n\n"
     "bucket = labels / 2", False),
    ("for labels in [labels]:\n    pass", "from data import labels\n\nbucket = labels / 2", False),
    # bound again in the reader, or not a project module's
    ("", "from data import labels\nlabels = labels.float()\n\nbucket = labels / 2", False),
    ("", "from elsewhere import labels\n\nbucket = labels / 2", False),
    ("", "import data\n\n\ndef bucket(data):\n    return data.labels / 2", False),
])
def test_a_value_bound_at_the_top_of_another_module(tmp_path, more, read, flagged):
    """``labels`` is what ``data.py`` binds at its top by assignments only."""
    write(tmp_path, {"data.py": LABELS.format(more=more),
                     "train.py": f"import torch\nfrom torch.autograd import Variable\n{read}\n"})
    codes = [code for code, _ in found(tmp_path / "train.py", ["TV143"])]
    assert codes == (["TV143"] if flagged else [])


TOPK_SCRIPT = """\
import torch
from torch.autograd import Variable


def accuracy(correct):
    prec1 = correct.float().sum(0)
    return prec1[0]


def evaluate(output, target):
    return accuracy(Variable(output).data.max(1)[1].eq(target).view(-1))
"""


@pytest.mark.parametrize("others, flagged", [
    ({}, True),
    # a script beside it that defines its own ``accuracy`` and never imports it
    ({"test.py": "def accuracy(output, target):\n    return 0.0\n"}, True),
    # one that imports the script's module and spells the name: may call it
    ({"test.py": "from train import accuracy\naccuracy(None, [1])\n"}, False),
    # through a module that re-exports it
    ({"common.py": "from train import *\n",
      "test.py": "from common import accuracy\naccuracy(None, [1])\n"}, False),
    # a package's __init__ re-exports it: an importer of the package spells its name
    ({"pkg/__init__.py": "from train import *\n",
      "test.py": "import pkg\npkg.accuracy(None, [1])\n"}, False),
    # a file that spells it and imports nothing of the project
    ({"plot.py": "import numpy\n\ndef show(accuracy):\n    print(accuracy)\n"}, True),
])
def test_a_function_spelled_only_by_files_that_cannot_import_it(tmp_path, others, flagged):
    """A parameter is followed where no file that can import the script's module
    (one that spells its name, or a re-exporter's) spells the function's name."""
    write(tmp_path, {"train.py": TOPK_SCRIPT, **others})
    assert found(tmp_path / "train.py", ["TV003"]) == ([("TV003", 7)] if flagged else [])


def test_a_method_of_a_module_class_of_another_module(tmp_path):
    """``network.loss(x, y, size_average=False).data[0]`` where ``network`` is the
    project's ``CapsuleNetwork``, whose ``loss`` may give one loss per sample: the
    value facts read the method where it is defined and find no 0-dim value, so the
    name ``loss`` decides nothing (``.item()`` would raise); a method that evidently
    gives a 0-dim loss is flagged."""
    write(tmp_path, {"capsule_network.py": """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class CapsuleNetwork(nn.Module):
    def __init__(self):
        super(CapsuleNetwork, self).__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def loss(self, x, y, size_average=True):
        err = ((self.fc(x) - y) ** 2).sum(dim=1)
        if size_average:
            err = err.mean()
        return err

    def mean_loss(self, x, y):
        return F.mse_loss(self.fc(x), y)
""", "main.py": """\
import torch
from torch.autograd import Variable
from capsule_network import CapsuleNetwork

network = CapsuleNetwork()


def test(x, y):
    first = network.loss(x, y, size_average=False).data[0]
    mean = network.mean_loss(x, y).data[0]
    return first, mean
"""})
    assert found(tmp_path / "main.py", ["TV003"]) == [("TV003", 10)]


def test_a_zero_dim_value_returned_by_a_helper_of_another_module(tmp_path):
    """``acc = accuracy(output, labels)`` with pygcn's ``accuracy`` (``correct.sum() /
    len(labels)``) in the project's ``utils``: ``acc.data[0]`` raises IndexError."""
    write(tmp_path, {"utils.py": """\
def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


def predictions(output):
    return output.max(1)[1]
""", "train.py": """\
import torch
from utils import accuracy, predictions

out = torch.randn(5, 3)
y = torch.LongTensor([0, 1, 2, 0, 1])
acc = accuracy(out, y)
print(acc.data[0])
first = predictions(out)
print(first.data[0])
"""})
    assert found(tmp_path / "train.py", ["TV003"]) == [("TV003", 7)]


LAYERS = """\
import torch.nn as nn


class Bottle(nn.Module):
    def forward(self, input):
        size = input.size()[:2]
        out = super(Bottle, self).forward(input.view(size[0] * size[1], -1))
        return out.view(size[0], size[1], -1)


class BottleSoftmax(Bottle, nn.Softmax):
    pass


class DimSoftmax(nn.Softmax):
    def __init__(self):
        super(DimSoftmax, self).__init__(dim=1)
"""


@pytest.mark.parametrize("imports, built, fixed", [
    ("from layers import BottleSoftmax", "BottleSoftmax()", "BottleSoftmax(dim=1)"),
    ("import layers", "layers.BottleSoftmax()", "layers.BottleSoftmax(dim=1)"),
    ("from layers import *", "BottleSoftmax()", "BottleSoftmax(dim=1)"),
    # (a class of the file on a mixin of another module)
    ("from layers import Bottle\n\n\nclass LogSoftmax2(Bottle, nn.LogSoftmax):\n    pass",
     "LogSoftmax2()", "LogSoftmax2(dim=1)"),
    ("from layers import DimSoftmax", "DimSoftmax()", None),
    ("from layers import BottleSoftmax", "BottleSoftmax(dim=1)", None),
])
def test_a_class_on_softmax_of_another_module(tmp_path, imports, built, fixed):
    """TV123: the class's chain, and the rank its ``forward`` passes torch's, are
    read in the module that defines it (analysis/hierarchy.py)."""
    write(tmp_path, {"layers.py": LAYERS})
    source = f"import torch.nn as nn\n{imports}\n\n\nsoftmax = {built}\n"
    (tmp_path / "model.py").write_text(source, encoding="utf-8")
    findings = check_source(source, str(tmp_path / "model.py"), ["TV123"])
    if fixed is None:
        assert findings == []
        return
    (finding,) = findings
    assert finding.line == source.count("\n") and "2-D here, so torch picks dim=1" in \
        finding.message
    assert apply_edits(source, finding.fix.edits) == source.replace(built, fixed)


STORAGE = """\
import torch


class Batch(object):
    def __init__(self):
        self.rows = []

    def append(self, row):
        self.rows.append(row)

    def torchify(self):
        self.rewards = torch.stack([torch.FloatTensor(r) for r in self.rows])
{more}"""

COLLECTORS = """\
import pickle

from storage import Batch


def collect(rows):
    b = Batch()
    for row in rows:
        b.append(row)
    b.torchify()
{extra}    return b


def either(rows, path):
    if path is None:
        return collect(rows)
    return pickle.load(open(path, 'rb'))
"""

PG_TRAIN = """\
import numpy as np
import torch
from torch.autograd import Variable
{imports}


def run(batches):
    totals = []
    for rows in batches:
        b = {made}
        totals.append(torch.sum(b.rewards, dim=0).mean())
    return np.array(totals)
{more}

w = Variable(torch.ones(1))
"""


@pytest.mark.parametrize("imports, made, flagged", [
    ("from collectors import collect", "collect(rows)", True),
    ("from collectors import *", "collect(rows)", True),
    ("from storage import Batch", "Batch()", True),
    ("import storage", "storage.Batch()", True),
    # a return that may be anything, a module of the project that is not there
    ("from collectors import either", "either(rows, None)", True),  # (the branch that runs)
    ("from collectors import either", "either(rows, rows)", False),
    ("from nowhere import collect", "collect(rows)", False),
])
def test_an_instance_of_a_plain_class_of_another_module(tmp_path, imports, made, flagged):
    """``b = collect(rows)`` of a function of another module returning an instance
    of a plain class of a third, or ``b = Batch()`` of an imported class:
    ``b.rewards`` is what the class's methods bind to ``self.rewards``, read in its
    module (plain 0.3 float tensors: TV144's numpy sink, the policy-gradient shape)."""
    write(tmp_path, {"storage.py": STORAGE.format(more=""),
                     "collectors.py": COLLECTORS.format(extra=""),
                     "train.py": PG_TRAIN.format(imports=imports, made=made, more="")})
    assert found(tmp_path / "train.py", ["TV144"]) == ([("TV144", 12)] if flagged else [])


@pytest.mark.parametrize("storage, collectors, train", [
    # the class may make its attributes otherwise, or has the name in its body
    ("\n    def __getattr__(self, name):\n        return self.rows\n", "", ""),
    ("\n    rewards = None\n", "", ""),
    # ``.rewards`` assigned through another name: in the module of the function
    # that returns it, of the class, or of the reader
    ("", "    b.rewards = b.rewards.double()\n", ""),
    ("\n\ndef clear(batch):\n    batch.rewards = None\n", "", ""),
    ("", "", "\n\ndef clear(batch):\n    batch.rewards = None\n"),
])
def test_an_instance_of_another_module_whose_attribute_may_be_otherwise(
        tmp_path, storage, collectors, train):
    write(tmp_path, {"storage.py": STORAGE.format(more=storage),
                     "collectors.py": COLLECTORS.format(extra=collectors),
                     "train.py": PG_TRAIN.format(imports="from collectors import collect",
                                                 made="collect(rows)", more=train)})
    assert found(tmp_path / "train.py", ["TV144"]) == []


READ_GIVEN = """\
import numpy as np
import torch
from torch.autograd import Variable
{imports}


def given(b):
    totals = []
    totals.append(torch.sum(b.rewards, dim=0).mean())
    return np.array(totals)


def kept():
    totals = []
    totals.append(torch.sum(made.rewards, dim=0).mean())
    return np.array(totals)


w = Variable(torch.ones(1))
"""


@pytest.mark.parametrize("more, flagged", [
    ("", [("TV144", 10), ("TV144", 16)]),
    # the module that makes them assigns ``.rewards`` through another name
    ("\n\ndef clear(batch):\n    batch.rewards = None\n", []),
])
def test_an_instance_passed_or_bound_by_another_module(tmp_path, more, flagged):
    """``made`` bound at the top of another module to a ``Batch()``, and ``b`` a
    parameter every caller (in that module) gives one: read there."""
    write(tmp_path, {
        "storage.py": STORAGE.format(more=""),
        "top.py": "from storage import Batch\nfrom train import given\n\nmade = Batch()\n"
                  f"made.torchify()\ngiven(Batch())\n{more}",
        "train.py": READ_GIVEN.format(imports="from top import made")})
    assert found(tmp_path / "train.py", ["TV144"]) == flagged


BATCHNORM_MODEL = """\
import torch.nn as nn
from torch.autograd import Variable


class VGG(nn.Module):
    def __init__(self):
        super(VGG, self).__init__()
        self.bn = nn.BatchNorm2d(8)
"""


@pytest.mark.parametrize("train, sibling, flagged", [
    ("net = models.VGG()\n", "", True),
    # what applies to any model sets the weights: TV157 stays silent
    ("net = models.VGG()\nfor m in net.modules():\n    if isinstance(m, nn.BatchNorm2d):\n"
     "        m.weight.data.fill_(1)\n", "", False),
    ("net = models.VGG()\nnet.apply(weights_init)\n", "", False),
    # a sibling model file's own initialization loop sets its own classes' weights
    ("net = models.VGG()\n", "class Res(nn.Module):\n    def __init__(self):\n"
     "        for m in self.modules():\n            if isinstance(m, nn.BatchNorm2d):\n"
     "                m.weight.data.fill_(1)\n", True),
])
def test_batchnorm_weights_set_by_the_modules_that_import_the_model(
        tmp_path, train, sibling, flagged):
    write(tmp_path, {"models/vgg.py": BATCHNORM_MODEL,
                     "models/__init__.py": "from .vgg import VGG\n",
                     "models/res.py": '"""the models"""\nimport torch.nn as nn\n' + sibling,
                     "train.py": "import torch.nn as nn\nimport models\n" + train})
    expected = [("TV157", 8)] if flagged else []
    assert found(tmp_path / "models" / "vgg.py", ["TV157"]) == expected


@pytest.mark.parametrize("path, flagged", [
    ('sys.path.append("../lib")', True),
    ("sys.path.insert(0, '../lib')", True),
    ('sys.path.append("../elsewhere")', False),  # (no such directory)
    ("", False),
    # computed from ``__file__`` with ``os.path``
    ("import os\nsys.path.append(os.path.abspath(os.path.join(os.path.dirname(__file__), "
     "'..', 'lib')))", True),
    ("import os\nsys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname("
     "os.path.realpath(__file__))), 'lib'))", True),
    ("import os\nsys.path.append(os.path.join(os.getcwd(), 'lib'))", False),  # (not the file's)
])
def test_a_module_found_through_a_literal_sys_path_entry(tmp_path, path, flagged):
    write(tmp_path, {
        "lib/inference/__init__.py": "from .bound import Bound\n",
        "lib/inference/bound.py": "import torch\nfrom torch import nn\n\n\n"
                                  "class Bound(nn.Module):\n    def forward(self, x):\n"
                                  "        return torch.mean(x ** 2)\n",
        "examples/main.py": f"import sys\nimport torch\n{path}\nfrom inference import Bound\n"
                            "elbo = Bound()\nL = -elbo(torch.randn(4, 3))\nprint(L.data[0])\n"})
    expected = [("TV003", 7 + path.count("\n"))] if flagged else []
    assert found(tmp_path / "examples" / "main.py", ["TV003"]) == expected


def test_a_method_whose_number_another_module_uses_gets_its_item_at_the_return(tmp_path):
    """Rainbow's ``Agent.act`` (``...max(1)[1][0]`` of a module whose output is
    evidently 3-D, times a support kept in ``self`` and moved by ``self.support =
    self.support.cuda()``): 0.3 returned an int, and ``main.py``'s ``env.step(action)``
    gets a 0-dim tensor now; the method's ``return`` gets the finding, naming the
    caller of the other module.  A method no caller's result is read of has none."""
    write(tmp_path, {"agent.py": """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, actions, atoms):
        super(Net, self).__init__()
        self.actions, self.atoms = actions, atoms
        self.fc = nn.Linear(8, actions * atoms)

    def forward(self, x):
        q = self.fc(x).view(-1, self.actions, self.atoms)
        return F.softmax(q, dim=2)


class Agent(object):
    def __init__(self, args):
        self.support = torch.linspace(args.v_min, args.v_max, args.atoms)
        self.online = Net(args.actions, args.atoms)
        if args.cuda:
            self.support = self.support.cuda()

    def act(self, state):
        return (self.online(state.unsqueeze(0)).data * self.support).sum(2).max(1)[1][0]

    def noted(self, state):
        return (self.online(state.unsqueeze(0)).data * self.support).sum(2).max(1)[0][0]
""", "main.py": """\
from torch.autograd import Variable
from agent import Agent


def run(args, env, state):
    dqn = Agent(args)
    action = dqn.act(Variable(state, volatile=True))
    dqn.noted(state)
    return env.step(action)
"""})
    findings = check_source((tmp_path / "agent.py").read_text(), str(tmp_path / "agent.py"),
                            ["TV144"])
    assert [(f.code, f.line) for f in findings] == [("TV144", 25)]
    assert "`main.py` line 7 uses it" in findings[0].message


@pytest.mark.parametrize("saved, whole", [("model", True), ("model.state_dict()", False)])
def test_weight_norm_keeps_no_fix_where_the_project_saves_a_whole_model(tmp_path, saved, whole):
    """TCN (sweep 32): ``weight_norm`` in ``blocks.py``, ``torch.save(model, f)`` in
    ``main.py``; the parametrized module refuses to be pickled whole on 2.13, so
    TV135 gives no fix and names the save; a saved ``state_dict()`` keeps the fix."""
    write(tmp_path, {"blocks.py": """\
import torch.nn as nn
from torch.nn.utils import weight_norm


class Block(nn.Module):
    def __init__(self):
        super(Block, self).__init__()
        self.conv = weight_norm(nn.Conv1d(2, 2, 3, padding=1))
""", "main.py": f"""\
import torch
from blocks import Block

model = Block()
with open('model.pt', 'wb') as f:
    torch.save({saved}, f)
"""})
    [finding] = check_source((tmp_path / "blocks.py").read_text(), str(tmp_path / "blocks.py"),
                             ["TV135"])
    assert (finding.fix is None) == whole
    assert ("`main.py:6` saves a whole model" in finding.message) == whole


@pytest.mark.parametrize("use, flagged", [
    ("loaded.eval()", True),
    ("net.load_state_dict(loaded)", False),
    ("print(len(loaded))", False),
])
def test_a_helper_returning_a_load_is_judged_by_what_its_callers_do(tmp_path, use, flagged):
    """end-to-end-negotiator (sweep 32): ``def load_model(path): return
    torch.load(f)`` in ``utils.py``, ``model = utils.load_model(...)`` then
    ``model.eval()`` in ``main.py``: a whole model, refused by ``weights_only``."""
    write(tmp_path, {"utils.py": """\
import torch


def load_model(file_name):
    with open(file_name, 'rb') as f:
        return torch.load(f)
""", "main.py": f"""\
import torch.nn as nn
import utils

net = nn.Linear(2, 2)
loaded = utils.load_model('m.pt')
{use}
"""})
    findings = check_source((tmp_path / "utils.py").read_text(), str(tmp_path / "utils.py"),
                            ["TV106"])
    assert [(f.code, f.line) for f in findings] == ([("TV106", 6)] if flagged else [])
    if flagged:
        assert "returned by `load_model`; main.py:5: `.eval` on it" in findings[0].message
