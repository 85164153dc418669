"""Values a script passes to the functions and classes of another module of its
project: a scheduler given to a training function (TV130), an MNIST dataset given
to a ``Dataset`` class (TV107).  Each is read in the module that makes it."""
import textwrap

import pytest

from flake8_torch04.analysis.project import importers
from flake8_torch04.analysis.run import check_source

TRAINER = """\
def train_epoch(model, optimizer):
    optimizer.zero_grad()
    model().backward()
    optimizer.step()


def fit(model, optimizer, scheduler, n_epochs):
    for epoch in range(n_epochs):
        scheduler.step()
        train_epoch(model, optimizer)
"""

RUN = """\
import torch
import torch.optim as optim
from torch.optim import lr_scheduler

from trainer import fit

w = torch.zeros(2, requires_grad=True)
optimizer = optim.SGD([w], lr=0.1)
scheduler = {scheduler}
fit(lambda: (w ** 2).sum(), optimizer, scheduler, 3)
"""


def _findings(tmp_path, files, checked, codes):
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    importers.forget()
    path = tmp_path / checked
    return [(f.code, f.line) for f in check_source(path.read_text(encoding="utf-8"),
                                                   str(path), codes)]


def test_a_scheduler_made_in_the_script_that_calls_the_training_function(tmp_path):
    files = {"trainer.py": TRAINER,
             "run.py": RUN.format(scheduler="lr_scheduler.StepLR(optimizer, 8, gamma=0.1)")}
    assert _findings(tmp_path, files, "trainer.py", ["TV130"]) == [("TV130", 9)]


@pytest.mark.parametrize("scheduler", [
    "lr_scheduler.ReduceLROnPlateau(optimizer)",  # (its step takes a metric)
    "make_scheduler(optimizer)",  # (not evidently a scheduler)
])
def test_not_a_scheduler_that_warns_so(tmp_path, scheduler):
    files = {"trainer.py": TRAINER, "run.py": "from helpers import make_scheduler\n" +
             RUN.format(scheduler=scheduler)}
    assert _findings(tmp_path, files, "trainer.py", ["TV130"]) == []


def test_one_caller_of_another_kind_is_enough_to_stay_silent(tmp_path):
    files = {"trainer.py": TRAINER,
             "run.py": RUN.format(scheduler="lr_scheduler.StepLR(optimizer, 8)")
             + "fit(None, optimizer, object(), 1)\n"}
    assert _findings(tmp_path, files, "trainer.py", ["TV130"]) == []


DATASETS = """\
import numpy as np
from torch.utils.data import Dataset


class Pairs(Dataset):
    def __init__(self, mnist):
        self.mnist = mnist
        self.labels = mnist.test_labels
        self.by_class = {c: np.where(self.labels.numpy() == c)[0]
                         for c in set(self.labels.numpy())}

    def __getitem__(self, index):
        return self.by_class[self.labels[index]]
"""


@pytest.mark.parametrize("made, expected", [
    ("MNIST('../data', train=False)", [("TV107", 13)]),
    # CIFAR10's labels are a list of ints: its elements are numbers
    ("CIFAR10('../data', train=False)", []),
])
def test_the_labels_of_a_dataset_the_script_makes(tmp_path, made, expected):
    files = {"datasets.py": DATASETS,
             "run.py": "from torchvision.datasets import MNIST, CIFAR10\n"
                       "from datasets import Pairs\n"
                       f"pairs = Pairs({made})\n"}
    assert _findings(tmp_path, files, "datasets.py", ["TV107"]) == expected


LAYERED = """\
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, size, n_layers, dropout):
        super(Encoder, self).__init__()
        self.gru = nn.GRU(size, size, n_layers, dropout=dropout)
"""

FIT = """\
from layered import Encoder


def fit(size, n_layers):
    return Encoder(size, n_layers, 0.1)
"""

MAIN = """\
import argparse

from fit import fit

parser = argparse.ArgumentParser()
parser.add_argument("--layer", type=int, default={default})


def run(args):
    size, n_layers = 8, args.layer
    fit(size, n_layers)


run(parser.parse_args())
"""


@pytest.mark.parametrize("default, found", [(1, [("TV134", 7)]), (2, [])])
def test_a_layer_count_from_an_option_passed_through_two_modules(tmp_path, default, found):
    # (the count of layers is 1 where the script runs with its defaults: the dropout warns)
    files = {"layered.py": LAYERED, "fit.py": FIT, "main.py": MAIN.format(default=default)}
    assert _findings(tmp_path, files, "layered.py", ["TV134"]) == found


HELPERS = """\
import torch


def batch_acc(out, y):
    pred = out.data.max(1)[1]
    return torch.eq(y, pred).float().mean()
"""

TRAIN = """\
import torch
from torch.autograd import Variable

import helpers

total = 0
for step in range(3):
    x = Variable(torch.randn(4, 5))
    {}
print(total / 3)
"""


@pytest.mark.parametrize("line, found", [
    ("total += helpers.batch_acc(x, torch.LongTensor([0, 1, 2, 3]))", [("TV144", 6)]),
    ("helpers.batch_acc(x, torch.LongTensor([0, 1, 2, 3]))", []),  # (its result unused)
])
def test_a_helper_that_returned_a_number_to_another_module(tmp_path, line, found):
    # (0.3's mean of a plain tensor was a float: the helper's return gets ``.item()``)
    files = {"helpers.py": HELPERS, "train.py": TRAIN.format(line)}
    assert _findings(tmp_path, files, "helpers.py", ["TV144"]) == found
