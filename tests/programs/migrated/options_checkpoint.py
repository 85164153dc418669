"""Migrated copy of ../options_checkpoint.py: the checkpoint holds the options module's argparse.Namespace, so it is loaded with weights_only=False (a file this program wrote)."""
import os
import shutil
import tempfile

import torch
import torch.nn as nn
from run_settings import opt


def build(settings):
    return nn.Sequential(nn.Linear(2, settings.hidden), nn.Tanh(), nn.Linear(settings.hidden, 1))


torch.manual_seed(0)
x = torch.randn(12, 2)
y = x.sum(1, keepdim=True) * 0.5
model = build(opt)
optimizer = torch.optim.SGD(model.parameters(), lr=opt.lr)
for step in range(opt.steps):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.item()))

folder = tempfile.mkdtemp()
try:
    path = os.path.join(folder, "checkpoint.pt")
    torch.save({"settings": opt, "state": model.state_dict()}, path)
    checkpoint = torch.load(path, weights_only=False)
finally:
    shutil.rmtree(folder)
restored = build(checkpoint["settings"])
restored.load_state_dict(checkpoint["state"])
print("restored %.5f" % restored(x).sum().item())
