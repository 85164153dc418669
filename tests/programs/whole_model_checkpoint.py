"""Resumes from a whole-model checkpoint: torch.save(model, path), then model = torch.load(path)."""
# needs: TV001 TV003 TV106
# flags: --unsafe-fixes
# before-error: Weights only load failed
import os
import shutil
import tempfile

import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
folder = tempfile.mkdtemp()
try:
    path = os.path.join(folder, 'model.pth')
    torch.save(nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1)), path)
    model = torch.load(path)
finally:
    shutil.rmtree(folder)

torch.manual_seed(1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(10, 3)
targets = torch.randn(10, 1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.MSELoss()(model(Variable(inputs)), Variable(targets))
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.data[0]))
