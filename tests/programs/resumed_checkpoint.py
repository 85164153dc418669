"""A 2017 training script that resumes: its checkpoint dict holds the argparse settings and the weights, and a second run reloads the same file before training on."""
# needs: TV001 TV003 TV106
# flags: --unsafe-fixes
# before-error: invalid index of a 0-dim tensor
import argparse
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=4)
opt = parser.parse_args([])
CHECKPOINT = os.path.join(tempfile.mkdtemp(), "resume.pt")
data = Variable(torch.randn(8, 3))
target = Variable(torch.randn(8, 1))


def create():
    model = nn.Sequential(nn.Linear(3, opt.hidden), nn.Tanh(), nn.Linear(opt.hidden, 1))
    state = {"opt": opt, "epoch": 0}
    if os.path.exists(CHECKPOINT):
        state = torch.load(CHECKPOINT)
        model.load_state_dict(state["params"])
    return model, state


def run():
    model, state = create()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        optimizer.zero_grad()
        loss = F.mse_loss(model(data), target)
        loss.backward()
        optimizer.step()
    state["epoch"] += 1
    state["params"] = model.state_dict()
    torch.save(state, CHECKPOINT)
    return state["epoch"], loss.data[0]


for _ in range(2):
    epoch, loss = run()
    print("epoch %d loss %.5f" % (epoch, loss))
