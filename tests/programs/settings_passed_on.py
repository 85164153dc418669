"""A 2017 run saves its settings (an argparse.Namespace) beside the weights, and a whole model, then reads both back and hands them on unread: the loads' uses say nothing, the saves say what the files hold."""
# needs: TV001 TV003 TV106
# flags: --unsafe-fixes
# before-error: Weights only load failed
import argparse
import os
import shutil
import tempfile

import torch
import torch.nn as nn
from torch.autograd import Variable

parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=5)
parser.add_argument("--dir", default=None)
opt = parser.parse_args([])


def build(settings):
    return nn.Sequential(nn.Linear(3, settings.hidden), nn.Tanh(),
                         nn.Linear(settings.hidden, 1))


def evaluate(net, x):
    return net(x).sum().data[0]


torch.manual_seed(0)
opt.dir = tempfile.mkdtemp()
try:
    model = build(opt)
    torch.save({"settings": opt, "model": model.state_dict()}, os.path.join(opt.dir, "run.pt"))
    torch.save(model, os.path.join(opt.dir, "whole.pt"))

    checkpoint = torch.load(os.path.join(opt.dir, "run.pt"))
    restored = build(checkpoint["settings"])
    restored.load_state_dict(checkpoint["model"])
    whole = torch.load(os.path.join(opt.dir, "whole.pt"))
finally:
    shutil.rmtree(opt.dir)

x = Variable(torch.randn(4, 3))
print("restored %.5f" % evaluate(restored, x))
print("whole %.5f" % evaluate(whole, x))
