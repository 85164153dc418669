"""Fixes of the issue-27 rules that follow values and loops (TV117, ...):
(source, expected, unsafe) and no-op tables.

Each row is fixed with its rule alone, must parse afterwards, be a fixpoint and
leave no finding of the rule.
"""
import ast
import textwrap

import pytest

from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text

HEADER = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
          "from torch.autograd import Variable\n")


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


HEAD = "head = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())\nx = torch.randn(3, 4)\n"
MODULE = dedent("""
    class D(nn.Module):
        def __init__(self):
            super(D, self).__init__()
            self.fc = nn.Linear(4, 1)

        def forward(self, x):
            return F.sigmoid(self.fc(x))


    netD = D()
    criterion = nn.BCELoss()
    """)

GAN = dedent("""
    G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
    opt_G = torch.optim.Adam(G.parameters())
    opt_D = torch.optim.Adam(D.parameters())
    criterion = nn.BCELoss()
    real, fake_label = torch.ones(4, 1), torch.zeros(4, 1)
    """)

FIXES = {
    "TV117": [
        (HEAD + "loss = nn.BCELoss()(head(x), torch.ones(3))\n",
         HEAD + "loss = nn.BCELoss()(head(x), torch.ones(3, 1))\n", False),
        (HEAD + "loss = F.mse_loss(head(x), Variable(torch.FloatTensor(3).fill_(1)).cuda())\n",
         HEAD + "loss = F.mse_loss(head(x), Variable(torch.FloatTensor(3, 1).fill_(1)).cuda())\n",
         False),
        # one assignment used as the target of two loss calls: the definition changes
        (MODULE + "for i in range(2):\n    n = x.size(0)\n    real = Variable(torch.ones(n))\n"
         "    a = criterion(netD(x), real)\n    b = criterion(netD(x + 1), real)\n",
         MODULE + "for i in range(2):\n    n = x.size(0)\n    real = Variable(torch.ones(n, 1))\n"
         "    a = criterion(netD(x), real)\n    b = criterion(netD(x + 1), real)\n", True),
    ],
    "TV114": [
        # D's loss through G's output after opt_G.step(), then D's step: detach
        (GAN + dedent("""
            for i in range(2):
                fake = G(torch.randn(4, 4))
                criterion(D(fake), real).backward(retain_graph=True)
                opt_G.step()
                d_loss = (criterion(D(fake), fake_label)
              + 0.5 * criterion(D(fake), fake_label))
                d_loss.backward()
                opt_D.step()
            """), GAN + dedent("""
            for i in range(2):
                fake = G(torch.randn(4, 4))
                criterion(D(fake), real).backward(retain_graph=True)
                opt_G.step()
                d_loss = (criterion(D(fake.detach()), fake_label)
              + 0.5 * criterion(D(fake.detach()), fake_label))
                d_loss.backward()
                opt_D.step()
            """), True),
    ],
    "TV115": [
        ("def f():\n    h, b = torch.zeros(5, 3, 4), 0.5\n"
         "    s = torch.tanh(h.transpose(0, 1) + b)\n"
         "    return s.view(-1, 4)\n",
         "def f():\n    h, b = torch.zeros(5, 3, 4), 0.5\n"
         "    s = torch.tanh(h.transpose(0, 1) + b)\n"
         "    return s.reshape(-1, 4)\n",
         True),
    ],
    "TV130": [
        (dedent("""
            opt = torch.optim.SGD(params, lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, 2)


            def train():
                opt.step()


            for epoch in range(3):
                sched.step()
                train()
                print(epoch)
            """), dedent("""
            opt = torch.optim.SGD(params, lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, 2)


            def train():
                opt.step()


            for epoch in range(3):
                train()
                sched.step()
                print(epoch)
            """), True),
        (dedent("""
            def fit(data, model):
                opt = torch.optim.Adam(model.parameters())
                sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)
                for epoch in range(3):
                    sched.step()
                    for x in data:
                        opt.step()
                    print(epoch)
            """), dedent("""
            def fit(data, model):
                opt = torch.optim.Adam(model.parameters())
                sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)
                for epoch in range(3):
                    for x in data:
                        opt.step()
                    sched.step()
                    print(epoch)
            """), True),
    ],
}

NOOPS = {
    "TV114": [
        # the D output is shared with G's loss, made before the step: message only
        GAN + "fake = G(torch.randn(4, 4))\nout = D(fake)\n"
        "criterion(out, real).backward(retain_graph=True)\nopt_G.step()\n"
        "criterion(out, fake_label).backward()\nopt_D.step()\n",
        # the next step is over G and D: the loss is meant to reach G
        GAN + "both = torch.optim.Adam(list(G.parameters()) + list(D.parameters()))\n"
        "fake = G(torch.randn(4, 4))\ncriterion(D(fake), real).backward(retain_graph=True)\n"
        "opt_G.step()\ncriterion(D(fake), fake_label).backward()\nboth.step()\n",
        # no step after the backward: whose loss it is is not evident
        GAN + "fake = G(torch.randn(4, 4))\ncriterion(D(fake), real).backward(retain_graph=True)\n"
        "opt_G.step()\ncriterion(D(fake), fake_label).backward()\n",
        # fake reaches the loss outside D too
        GAN + "fake = G(torch.randn(4, 4))\ncriterion(D(fake), real).backward(retain_graph=True)\n"
        "opt_G.step()\n(criterion(D(fake), fake_label) + fake.mean()).backward()\nopt_D.step()\n",
    ],
    "TV117": [
        # the target is used elsewhere too: message only
        HEAD + "t = torch.ones(3)\nprint(t.sum())\nloss = F.mse_loss(head(x), t)\n",
        # a 3-D input: torch.ones(n, 1) would not be its shape
        "m = nn.Linear(4, 1)\nloss = F.l1_loss(m(torch.randn(2, 3, 4)), torch.ones(6))\n",
    ],
    "TV130": [
        # not a statement of its own line: message only
        "opt = torch.optim.SGD(ps, lr=0.1)\ns = torch.optim.lr_scheduler.StepLR(opt, 2)\n"
        "for e in range(3):\n    s.step(); opt.step()\n",
    ],
}


def _rows(tables):
    for code, rows in tables.items():
        for i, row in enumerate(rows):
            yield pytest.param(code, *([row] if isinstance(row, str) else row), id=f"{code}-{i}")


def run(code, text, unsafe=False):
    return fix_text(text, lambda t: Analysis(t, [code]), unsafe)


@pytest.mark.parametrize("code, source, expected, unsafe", list(_rows(FIXES)))
def test_fix(code, source, expected, unsafe):
    assert check_source(HEADER + source, codes=[code]), "the rule finds nothing"
    if unsafe:
        assert run(code, HEADER + source).text == HEADER + source, "an unsafe fix ran"
    result = run(code, HEADER + source, unsafe)
    assert result.text == HEADER + expected
    ast.parse(result.text)
    again = run(code, result.text, unsafe)
    assert again.text == result.text and not again.fixed
    assert not check_source(result.text, codes=[code])


@pytest.mark.parametrize("code, source", list(_rows(NOOPS)))
def test_noop(code, source):
    text = HEADER + source
    assert check_source(text, codes=[code]), "the rule finds nothing"
    result = run(code, text, unsafe=True)
    assert result.text == text
    assert not result.fixed
