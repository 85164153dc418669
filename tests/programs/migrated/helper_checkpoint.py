"""Migrated copy of ../helper_checkpoint.py: nothing to change here but Variable and .data[0] (the load in the helper module is migrated)."""
import argparse
import os
import shutil
import tempfile

import torch
import torch.nn as nn

import ckpt_utils

parser = argparse.ArgumentParser()
parser.add_argument("--model_file", default=None)
args = parser.parse_args([])

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x = torch.randn(8, 3)
folder = tempfile.mkdtemp()
args.model_file = os.path.join(folder, "model.th")
try:
    ckpt_utils.save_model(model, args.model_file)
    restored = ckpt_utils.load_model(args.model_file)
finally:
    shutil.rmtree(folder)
print("restored %.5f" % restored(x).sum().item())
