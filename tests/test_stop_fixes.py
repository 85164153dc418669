"""Fixes of the TV1xx rules that stop a program (TV102, TV105, TV108, TV109,
TV110, TV112, TV138): (source, expected) and no-op tables.

Each row is fixed with its rule alone, must parse afterwards and be a
fixpoint.  TV101 works on files that do not parse: see test_rescue.py.
"""
import ast
import textwrap

import pytest

from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text

HEADER = "import torch\n"


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


FIXES = {
    "TV102": [
        ("loss.backward(retain_variables=True)\n", "loss.backward(retain_graph=True)\n"),
        ("d_loss.backward(gradient=g, retain_variables=keep)\n",
         "d_loss.backward(gradient=g, retain_graph=keep)\n"),
        ("torch.autograd.grad(y, x, retain_variables=True)\n",
         "torch.autograd.grad(y, x, retain_graph=True)\n"),
        ("from torch.autograd import backward\nbackward([y], retain_variables=True)\n",
         "from torch.autograd import backward\nbackward([y], retain_graph=True)\n"),
        ("loss.backward(\n    retain_variables=True,  # keep\n)\n",
         "loss.backward(\n    retain_graph=True,  # keep\n)\n"),
        ('s = "é"; loss.backward(retain_variables=True)\n',
         's = "é"; loss.backward(retain_graph=True)\n'),
    ],
    "TV105": [
        ("from torch.utils.data import TensorDataset\n"
         "ds = TensorDataset(data_tensor=x, target_tensor=y)\n",
         "from torch.utils.data import TensorDataset\nds = TensorDataset(x, y)\n"),
        ("import torch.utils.data as Data\n"
         "ds = Data.TensorDataset(target_tensor=y[:n], data_tensor=x[:n])\n",
         "import torch.utils.data as Data\nds = Data.TensorDataset(x[:n], y[:n])\n"),
        ("ds = torch.utils.data.TensorDataset(x, target_tensor=y)\n",
         "ds = torch.utils.data.TensorDataset(x, y)\n"),
        ("ds = torch.utils.data.dataset.TensorDataset(data_tensor=x)\n",
         "ds = torch.utils.data.dataset.TensorDataset(x)\n"),
        ("ds = torch.utils.data.TensorDataset(\n    data_tensor=torch.randn(4, 2),\n"
         "    target_tensor=torch.zeros(4),\n)\n",
         "ds = torch.utils.data.TensorDataset(\n    torch.randn(4, 2),\n"
         "    torch.zeros(4),\n)\n"),
        ("ds = torch.utils.data.TensorDataset(data_tensor=(a, b), target_tensor=c)\n",
         "ds = torch.utils.data.TensorDataset((a, b), c)\n"),
        ("ds = torch.utils.data.TensorDataset(data_tensor = (x), target_tensor=(y))\n",
         "ds = torch.utils.data.TensorDataset((x), (y))\n"),
        ("ds = torch.utils.data.TensorDataset(target_tensor=(y), data_tensor=x)\n",
         "ds = torch.utils.data.TensorDataset(x, y)\n"),
    ],
    "TV108": [
        ("a = probs.multinomial()\n", "a = probs.multinomial(num_samples=1)\n"),
        ("a = probs.multinomial( )\n", "a = probs.multinomial( num_samples=1)\n"),
        ("a = probs.multinomial(replacement=True)\n",
         "a = probs.multinomial(replacement=True, num_samples=1)\n"),
        ("w = torch.multinomial(p)\n", "w = torch.multinomial(p, num_samples=1)\n"),
        ("w = torch.multinomial(p,)\n", "w = torch.multinomial(p, num_samples=1,)\n"),
        ("w = torch.multinomial(\n    p,\n)\n",
         "w = torch.multinomial(\n    p, num_samples=1,\n)\n"),
        ("a = model(x).multinomial().data\n", "a = model(x).multinomial(num_samples=1).data\n"),
    ],
    "TV109": [
        ("n = torch.normal(means=m, std=s)\n", "n = torch.normal(mean=m, std=s)\n"),
        ("from torch import normal\nn = normal(std=1.0, means=torch.zeros(2))\n",
         "from torch import normal\nn = normal(std=1.0, mean=torch.zeros(2))\n"),
    ],
    "TV110": [
        ("it = iter(train_loader)\nx, y = it.next()\n",
         "it = iter(train_loader)\nx, y = next(it)\n"),
        ("batch = iter(loader).next()[0]\n", "batch = next(iter(loader))[0]\n"),
        ("from torch.utils.data import DataLoader\n"
         "dl = DataLoader(ds)\nit = iter(dl)\nprint(it.next())\n",
         "from torch.utils.data import DataLoader\n"
         "dl = DataLoader(ds)\nit = iter(dl)\nprint(next(it))\n"),
        (dedent("""
            class Trainer:
                def __init__(self, loader):
                    self.data_iter = iter(loader)

                def step(self):
                    return self.data_iter.next()
            """),
         dedent("""
            class Trainer:
                def __init__(self, loader):
                    self.data_iter = iter(loader)

                def step(self):
                    return next(self.data_iter)
            """)),
    ],
    "TV112": [
        ("import torchvision.transforms as transforms\nt = transforms.Scale(64)\n",
         "import torchvision.transforms as transforms\nt = transforms.Resize(64)\n"),
        ("import torchvision\nt = torchvision.transforms.RandomSizedCrop(224)\n",
         "import torchvision\nt = torchvision.transforms.RandomResizedCrop(224)\n"),
        ("from torchvision import transforms as T\ncls = T.Scale\n",
         "from torchvision import transforms as T\ncls = T.Resize\n"),
        ("import torchvision.transforms as transforms\n"
         "t = transforms.Compose([transforms.Scale(8), transforms.RandomSizedCrop(4)])\n",
         "import torchvision.transforms as transforms\n"
         "t = transforms.Compose([transforms.Resize(8), transforms.RandomResizedCrop(4)])\n"),
    ],
    "TV138": [
        ("import torchvision.utils as vutils\n"
         "vutils.save_image(fake.data, 'out.png', normalize=True, range=(-1, 1))\n",
         "import torchvision.utils as vutils\n"
         "vutils.save_image(fake.data, 'out.png', normalize=True, value_range=(-1, 1))\n"),
        ("import torchvision\ng = torchvision.utils.make_grid(x, normalize=True, range=(0, 1))\n",
         "import torchvision\n"
         "g = torchvision.utils.make_grid(x, normalize=True, value_range=(0, 1))\n"),
        ("from torchvision.utils import save_image\n"
         "save_image(x, 'a.png',\n           range=(-1, 1),  # the generator's tanh\n"
         "           normalize=True)\n",
         "from torchvision.utils import save_image\n"
         "save_image(x, 'a.png',\n           value_range=(-1, 1),  # the generator's tanh\n"
         "           normalize=True)\n"),
        ("from torchvision import utils\ng = utils.make_grid(x, 8, 2, True, range = lims)\n",
         "from torchvision import utils\ng = utils.make_grid(x, 8, 2, True, value_range = lims)\n"),
    ],
}

NOOPS = {
    "TV102": [
        "loss.backward(retain_variables=True, retain_graph=True)\n",  # message only
        "model.grad(retain_variables=True)\n",
    ],
    "TV105": [
        "from torch.utils.data import TensorDataset\nds = TensorDataset(data_tensor=x, foo=1)\n",
        "from torch.utils.data import TensorDataset\nds = TensorDataset(target_tensor=y)\n",
        "from torch.utils.data import TensorDataset\n"
        "ds = TensorDataset(data_tensor=x,  # the inputs\n    target_tensor=y)\n",
        "from torch.utils.data import TensorDataset\nds = TensorDataset(data_tensor=x, **kw)\n",
    ],
    "TV108": [
        "a = probs.multinomial(  # one\n)\n",
        "a = probs.multinomial(1)\n",
        "a = torch.multinomial(*args)\n",
    ],
    "TV109": ["n = torch.normal(means=m, mean=m)\n"],
    "TV110": [
        "it = iter(lines)\nx = it.next()\n",
        "it = iter(loader)\nit = iter(lines)\nx = it.next()\n",
        "batch = iter(loader).next(  # comment\n)\n",
    ],
    "TV112": ["from torchvision.transforms import Scale\nt = Scale(64)\n"],
    "TV138": [
        "import torchvision.utils as vutils\n"
        "vutils.save_image(x, 'a.png', range=(-1, 1), value_range=(0, 1))\n",  # message only
        "import torchvision.utils as vutils\n"
        "vutils.save_image(x, 'a.png', range=(-1, 1), **options)\n",  # message only
        "import torchvision\nimport numpy as np\nh = np.histogram(x, range=(0, 1))\n",
    ],
}


def _rows(tables):
    for code, rows in tables.items():
        for i, row in enumerate(rows):
            yield pytest.param(code, *([row] if isinstance(row, str) else row), id=f"{code}-{i}")


def run(code, text):
    return fix_text(text, lambda t: Analysis(t, [code]))


@pytest.mark.parametrize("code, source, expected", list(_rows(FIXES)))
def test_fix(code, source, expected):
    assert check_source(HEADER + source, codes=[code]), "the rule finds nothing"
    result = run(code, HEADER + source)
    assert result.text == HEADER + expected
    ast.parse(result.text)
    again = run(code, result.text)
    assert again.text == result.text and not again.fixed
    assert not check_source(result.text, codes=[code])


@pytest.mark.parametrize("code, source", list(_rows(NOOPS)))
def test_noop(code, source):
    text = HEADER + source
    result = run(code, text)
    assert result.text == text
    assert not result.fixed


def test_messages_spell_out_the_fix():
    (finding,) = check_source(HEADER + "it = iter(train_loader)\nx = it.next()\n",
                              codes=["TV110"])
    assert "use `next(it)`" in finding.message
    (finding,) = check_source(
        HEADER + "from torch.utils.data import TensorDataset\n"
        "ds = TensorDataset(data_tensor=x, target_tensor=y)\n", codes=["TV105"])
    assert "use `TensorDataset(x, y)`" in finding.message
    (finding,) = check_source(
        HEADER + "from torchvision.transforms import Scale, RandomSizedCrop\n", codes=["TV112"])
    assert "import `Resize`, `RandomResizedCrop`" in finding.message
    (finding,) = check_source(
        HEADER + "import torchvision.utils as vutils\n"
        "vutils.save_image(fake.data, 'out.png', normalize=True, range=(-1, 1))\n",
        codes=["TV138"])
    assert "`range=` of `vutils.save_image`" in finding.message
    assert finding.message.endswith("use `value_range=(-1, 1)`")
    (finding,) = check_source(
        HEADER + "import torchvision\ntorchvision.utils.make_grid(x, range=r, **kw)\n",
        codes=["TV138"])
    assert "use `value_range=r` (not fixed: the call also unpacks `**kwargs`" in finding.message
