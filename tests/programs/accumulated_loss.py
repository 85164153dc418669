"""A PyTorch 0.3 epoch loop: the summed loss read with .data[0] after the loop.

Fixed as a set: the accumulation fix makes ``total`` a float, so the read after
the loop must become ``total``, not ``total.item()`` (a float has no ``.item()``).
"""
# needs: TV001 TV003
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
from torch.autograd import Variable


def train_epoch(model, criterion, optimizer, batches):
    total = 0
    for inputs, targets in batches:
        x, y = Variable(inputs), Variable(targets)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss
    print('epoch loss %.4f' % (total.data[0] / len(batches)))


torch.manual_seed(0)
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
for epoch in range(2):
    train_epoch(model, criterion, optimizer, batches)
