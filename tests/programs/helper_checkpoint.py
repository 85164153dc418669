"""A 2017 script saves its whole model through the project's save_model helper and reads it back through load_model, both taking the path from the options: what the helper loads is what its callers saved."""
# needs: TV001 TV003 TV106
# flags: --unsafe-fixes
# module: ckpt_utils.py
# before-error: Weights only load failed
import argparse
import os
import shutil
import tempfile

import torch
import torch.nn as nn
from torch.autograd import Variable

import ckpt_utils

parser = argparse.ArgumentParser()
parser.add_argument("--model_file", default=None)
args = parser.parse_args([])

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x = Variable(torch.randn(8, 3))
folder = tempfile.mkdtemp()
args.model_file = os.path.join(folder, "model.th")
try:
    ckpt_utils.save_model(model, args.model_file)
    restored = ckpt_utils.load_model(args.model_file)
finally:
    shutil.rmtree(folder)
print("restored %.5f" % restored(x).sum().data[0])
