"""Migrated copy of ../whole_model_checkpoint.py: a state dict saved and loaded into a new model."""
import os
import shutil
import tempfile

import torch
import torch.nn as nn


def build():
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))


torch.manual_seed(0)
folder = tempfile.mkdtemp()
try:
    path = os.path.join(folder, 'model.pth')
    torch.save(build().state_dict(), path)
    model = build()
    model.load_state_dict(torch.load(path))
finally:
    shutil.rmtree(folder)

torch.manual_seed(1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(10, 3)
targets = torch.randn(10, 1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.MSELoss()(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.item()))
