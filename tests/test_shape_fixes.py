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


#: an optimizer and one of 0.3's schedulers made on it
EPOCHS = ("opt = torch.optim.SGD(params, lr=0.1)\n"
          "sched = torch.optim.lr_scheduler.MultiStepLR(opt, [2])\n")
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
    # TV159: 0.1's `c and t or d` of a tensor t, written as the conditional it meant
    "TV159": [
        ("h = Variable(torch.zeros(2, 4))\nstate = (h, h)\n"
         "out = isinstance(state, tuple) and state[0] or state\n",
         "h = Variable(torch.zeros(2, 4))\nstate = (h, h)\n"
         "out = state[0] if isinstance(state, tuple) else state\n", True),
        ("h = Variable(torch.zeros(2, 4))\nout = [h.dim() > 1 and h.sum(1) or h]\n",
         "h = Variable(torch.zeros(2, 4))\nout = [h.sum(1) if h.dim() > 1 else h]\n", True),
        ("h = Variable(torch.zeros(2, 4))\nout = 2 * (h.dim() > 1 and h.sum(1) or h)\n",
         "h = Variable(torch.zeros(2, 4))\nout = 2 * (h.sum(1) if h.dim() > 1 else h)\n", True),
    ],
    # TV148: the column's .view(-1) goes after a value over several lines, which keeps
    # its lines (and a comment after it) as they were
    "TV148": [
        ("critic = nn.Linear(4, 1)\nmask = torch.ByteTensor([1, 0, 1])\n"
         "target = torch.zeros(3)\ntarget[mask] = critic(\n"
         "    torch.randn(2, 4))  # two rows\n",
         "critic = nn.Linear(4, 1)\nmask = torch.ByteTensor([1, 0, 1])\n"
         "target = torch.zeros(3)\ntarget[mask] = critic(\n"
         "    torch.randn(2, 4)).view(-1)  # two rows\n", False),
    ],
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
                if epoch > 0:
                    sched.step()
                train()
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
                    if epoch > 0:
                        sched.step()
                    for x in data:
                        opt.step()
                    print(epoch)
            """), True),
        # an epoch given at the top: the fix TV151 offers, applied once with it
        (EPOCHS + "for epoch in range(3):\n    sched.step(epoch)\n    opt.step()\n",
         EPOCHS + "for epoch in range(3):\n    if epoch > 0:\n        sched.step()\n"
         "    opt.step()\n", True),
    ],
    "TV151": [
        # at the end of the epoch, and at its top: the same replacement
        (EPOCHS + "for epoch in range(3):\n    opt.step()\n    sched.step(epoch)  # decay\n",
         EPOCHS + "for epoch in range(3):\n    opt.step()\n    if epoch > 0:\n"
         "        sched.step()  # decay\n", True),
        (EPOCHS + "for e in range(0, 3):\n    sched.step(epoch=e)\n    opt.step()\n",
         EPOCHS + "for e in range(0, 3):\n    if e > 0:\n        sched.step()\n"
         "    opt.step()\n", True),
        # a tab-indented loop in a function
        ("def fit(params, n):\n\topt = torch.optim.SGD(params, lr=0.1)\n"
         "\ts = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.9 ** e)\n"
         "\tfor e in range(n):\n\t\topt.step()\n\t\ts.step(e)\n",
         "def fit(params, n):\n\topt = torch.optim.SGD(params, lr=0.1)\n"
         "\ts = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.9 ** e)\n"
         "\tfor e in range(n):\n\t\topt.step()\n\t\tif e > 0:\n\t\t\ts.step()\n", True),
        # from 1, after the optimizer's steps: the count of bare steps is the epoch
        (EPOCHS + "for epoch in range(1, 4):\n    opt.step()\n    sched.step(epoch)\n",
         EPOCHS + "for epoch in range(1, 4):\n    opt.step()\n    sched.step()\n", True),
        # the start a name bound only to 0
        (EPOCHS + "start = 0\nfor epoch in range(start, 3):\n    opt.step()\n"
         "    sched.step(epoch)\n",
         EPOCHS + "start = 0\nfor epoch in range(start, 3):\n    opt.step()\n    if epoch > 0:\n"
         "        sched.step()\n", True),
        # one scheduler made per run of the epochs
        ("opt = torch.optim.SGD(params, lr=0.1)\nfor run in range(2):\n"
         "    sched = torch.optim.lr_scheduler.StepLR(opt, 2)\n"
         "    for epoch in range(3):\n        opt.step()\n        sched.step(epoch)\n",
         "opt = torch.optim.SGD(params, lr=0.1)\nfor run in range(2):\n"
         "    sched = torch.optim.lr_scheduler.StepLR(opt, 2)\n"
         "    for epoch in range(3):\n        opt.step()\n        if epoch > 0:\n"
         "            sched.step()\n", True),
    ],
    "TV153": [
        # a piece of a stack of 2-D pieces: 0.1.12's swap of dims 0 and 1, safe
        ("def head(y):\n    y = y.view(-1, 9)\n    m = torch.stack(torch.split(y, 3, 1)[:-1])\n"
         "    w, mu, s = torch.split(m, 1, 2)\n    return F.softmax(w.t().squeeze(), dim=1)\n",
         "def head(y):\n    y = y.view(-1, 9)\n    m = torch.stack(torch.split(y, 3, 1)[:-1])\n"
         "    w, mu, s = torch.split(m, 1, 2)\n"
         "    return F.softmax(w.transpose(0, 1).squeeze(), dim=1)\n", False),
        # the function, by position and by keyword; an operand in parentheses
        ("h = torch.randn(5, 4, 2)\na = torch.t(h)\nb = torch.t(input=h)\nc = (h * 2).t()\n",
         "h = torch.randn(5, 4, 2)\na = torch.transpose(h, 0, 1)\n"
         "b = torch.transpose(input=h, dim0=0, dim1=1)\nc = (h * 2).transpose(0, 1)\n", False),
        # imported by name: the import of transpose added (and t's, unused now, gone)
        ("from torch import t\nh = torch.randn(5, 4, 2)\na = t(h)\n",
         "from torch import transpose\nh = torch.randn(5, 4, 2)\n"
         "a = transpose(h, 0, 1)\n", False),
    ],
}

NOOPS = {
    # TV159: a comment between the parts: the message alone
    "TV159": [
        "h = Variable(torch.zeros(2, 4))\nstate = (h, h)\n"
        "out = (isinstance(state, tuple) and  # a pair\n       state[0] or state)\n",
    ],
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
        # an epoch argument at the top that is not the loop's from 0: no move, no fix
        EPOCHS + "for epoch in range(1, 4):\n    sched.step(epoch)\n    opt.step()\n",
    ],
    # TV151: the message alone
    "TV151": [
        # a resumed start (or one a checkpoint may set), another argument
        EPOCHS + "start = 0\nif resume:\n    start = 5\nfor epoch in range(start, 9):\n"
        "    opt.step()\n    sched.step(epoch)\n",
        EPOCHS + "for epoch in range(start, 9):\n    opt.step()\n    sched.step(epoch)\n",
        EPOCHS + "for i in range(9):\n    opt.step()\n    sched.step(start + i)\n",
        # from 1 at the top (a bare step would come before the optimizer's)
        EPOCHS + "for epoch in range(1, 4):\n    sched.step(epoch)\n    opt.step()\n",
        # stepped twice in the file, or skipped by a continue, or in a branch
        EPOCHS + "sched.step(0)\nfor epoch in range(3):\n    opt.step()\n    sched.step(epoch)\n",
        EPOCHS + "for epoch in range(3):\n    if epoch == 1:\n        continue\n"
        "    opt.step()\n    sched.step(epoch)\n",
        EPOCHS + "for epoch in range(3):\n    opt.step()\n    if epoch % 2:\n"
        "        sched.step(epoch)\n",
        # made in the loop, or once for several runs of it, or resumed
        "opt = torch.optim.SGD(params, lr=0.1)\nfor epoch in range(3):\n"
        "    sched = torch.optim.lr_scheduler.StepLR(opt, 2)\n    sched.step(epoch)\n",
        EPOCHS + "for run in range(2):\n    for epoch in range(3):\n        opt.step()\n"
        "        sched.step(epoch)\n",
        "opt = torch.optim.SGD(params, lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.StepLR(opt, 2, last_epoch=4)\n"
        "for epoch in range(3):\n    opt.step()\n    sched.step(epoch)\n",
        "opt = torch.optim.SGD(params, lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.1, 4)\n"
        "for epoch in range(3):\n    opt.step()\n    sched.step(epoch)\n",
        # a scheduler 0.3 did not have
        "opt = torch.optim.SGD(params, lr=0.1)\nsched = torch.optim.lr_scheduler.LinearLR(opt)\n"
        "for epoch in range(3):\n    opt.step()\n    sched.step(epoch)\n",
        # the loop variable rebound before the call
        EPOCHS + "for epoch in range(3):\n    opt.step()\n    epoch = epoch * 2\n"
        "    sched.step(epoch)\n",
    ],
    # TV153: a comment where the dims would go: the message alone
    "TV153": [
        "h = torch.randn(5, 4, 2)\nc = h.t(  # swap\n)\n",
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


def test_scheduler_epoch_fixes_compose():
    """At the top of the loop TV130 (the order) and TV151 (the epoch) flag one
    ``sched.step(epoch)`` and offer one fix, applied once."""
    text = HEADER + EPOCHS + "for epoch in range(3):\n    sched.step(epoch)\n    opt.step()\n"
    findings = check_source(text, codes=["TV130", "TV151"])
    assert sorted(f.code for f in findings) == ["TV130", "TV151"]
    assert findings[0].fix.edits == findings[1].fix.edits
    result = fix_text(text, lambda t: Analysis(t, ["TV130", "TV151"]), True)
    assert result.text == HEADER + EPOCHS + (
        "for epoch in range(3):\n    if epoch > 0:\n        sched.step()\n    opt.step()\n")
    assert not check_source(result.text, codes=["TV130", "TV151"])


def test_transpose_of_3d_names_the_rank_the_error_and_what_ran():
    text = HEADER + "v = torch.zeros(2, 3, 4, 5)\nw = v.t()\n"
    [finding] = check_source(text, codes=["TV153"])
    assert finding.message == (
        "`v.t()` of a 4-D tensor raises since PyTorch 0.2 (RuntimeError: t() expects a "
        "tensor with <= 2 dimensions); 0.1.12 swapped dims 0 and 1: use `v.transpose(0, 1)`")


def test_tv130_moves_the_step_in_modern_code_and_guards_it_in_03_code():
    """Code written for 0.4 and later gets the step moved after the training (the
    order the warning asks for); 0.3 code gets ``if epoch > 0:`` in place, the
    same rates, which TV163 does not take for 0.3's end-of-epoch step."""
    body = ("opt = torch.optim.SGD(params, lr=0.1)\n"
            "sched = torch.optim.lr_scheduler.StepLR(opt, 2)\n"
            "for epoch in range(3):\n    sched.step()\n    opt.step()\n")
    modern = "import torch\n" + body
    result = fix_text(modern, lambda t: Analysis(t, ["TV130", "TV163"]), True)
    assert result.text.endswith("for epoch in range(3):\n    opt.step()\n    sched.step()\n")
    legacy = HEADER + body
    result = fix_text(legacy, lambda t: Analysis(t, ["TV130", "TV163"]), True)
    assert result.text.endswith(
        "for epoch in range(3):\n    if epoch > 0:\n        sched.step()\n    opt.step()\n")
    assert not check_source(result.text, codes=["TV130", "TV163"])
