"""Migrated copy of ../settings_passed_on.py: both files hold pickled objects (a Namespace, a whole model), so both are loaded with weights_only=False (files this program wrote)."""
import argparse
import os
import shutil
import tempfile

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=5)
parser.add_argument("--dir", default=None)
opt = parser.parse_args([])


def build(settings):
    return nn.Sequential(nn.Linear(3, settings.hidden), nn.Tanh(),
                         nn.Linear(settings.hidden, 1))


def evaluate(net, x):
    return net(x).sum().item()


torch.manual_seed(0)
opt.dir = tempfile.mkdtemp()
try:
    model = build(opt)
    torch.save({"settings": opt, "model": model.state_dict()}, os.path.join(opt.dir, "run.pt"))
    torch.save(model, os.path.join(opt.dir, "whole.pt"))

    checkpoint = torch.load(os.path.join(opt.dir, "run.pt"), weights_only=False)
    restored = build(checkpoint["settings"])
    restored.load_state_dict(checkpoint["model"])
    whole = torch.load(os.path.join(opt.dir, "whole.pt"), weights_only=False)
finally:
    shutil.rmtree(opt.dir)

x = torch.randn(4, 3)
print("restored %.5f" % evaluate(restored, x))
print("whole %.5f" % evaluate(whole, x))
