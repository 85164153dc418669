"""A 2018 copy-task trainer: the cost of each batch (a sum of error bits, a number
on 0.3) collected with costs += [cost] and written to a JSON history file."""
import json
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(8, 8)
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.5)


def train_batch(X, Y):
    batch_size = X.size(0)
    optimizer.zero_grad()
    y_out = torch.sigmoid(net(X))
    loss = criterion(y_out, Y)
    loss.backward()
    optimizer.step()
    y_bin = y_out.clone().data
    y_bin.apply_(lambda v: 0 if v < 0.5 else 1)
    cost = torch.sum(torch.abs(y_bin - Y.data))
    return loss.item(), cost.item() / batch_size


def save_history(path, losses, costs):
    content = {"loss": losses, "cost": costs}
    with open(path, "w") as f:
        f.write(json.dumps(content))


def train(path):
    losses = []
    costs = []
    for step in range(20):
        x = torch.rand(4, 8).round()
        loss, cost = train_batch(x, x)
        losses += [loss]
        costs += [cost]
    save_history(path, losses, costs)


history = os.path.join(tempfile.mkdtemp(), "history.json")
train(history)
with open(history) as f:
    saved = json.load(f)
print("last loss %.6f, costs %s" % (saved["loss"][-1], saved["cost"][-5:]))
