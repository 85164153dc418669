"""A 2017 regression script whose settings come from the project's options module: it saves them beside the weights, reads the checkpoint back and rebuilds the model from the saved settings. What the checkpoint holds is told by what the options module binds."""
# needs: TV001 TV003 TV106
# flags: --unsafe-fixes
# module: run_settings.py
# before-error: IndexError
import os
import shutil
import tempfile

import torch
import torch.nn as nn
from torch.autograd import Variable
from run_settings import opt


def build(settings):
    return nn.Sequential(nn.Linear(2, settings.hidden), nn.Tanh(), nn.Linear(settings.hidden, 1))


torch.manual_seed(0)
x = Variable(torch.randn(12, 2))
y = Variable(x.data.sum(1, keepdim=True) * 0.5)
model = build(opt)
optimizer = torch.optim.SGD(model.parameters(), lr=opt.lr)
for step in range(opt.steps):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.data[0]))

folder = tempfile.mkdtemp()
try:
    path = os.path.join(folder, "checkpoint.pt")
    torch.save({"settings": opt, "state": model.state_dict()}, path)
    checkpoint = torch.load(path)
finally:
    shutil.rmtree(folder)
restored = build(checkpoint["settings"])
restored.load_state_dict(checkpoint["state"])
print("restored %.5f" % restored(x).sum().data[0])
