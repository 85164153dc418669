"""The residual depth network, migrated by hand to PyTorch 2.13: ``//`` for
Python 2's integer ``/`` in the block count and the bottleneck width."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Residual(nn.Module):
    def __init__(self, width):
        super(Residual, self).__init__()
        squeeze = width // 2
        self.down = nn.Linear(width, squeeze)
        self.up = nn.Linear(squeeze, width)

    def forward(self, x):
        return x + self.up(F.relu(self.down(x)))


class Stage(nn.Module):
    def __init__(self, blocks, width):
        super(Stage, self).__init__()
        self.body = self._stack(blocks, width)

    def _stack(self, blocks, width):
        layers = []
        for i in range(blocks):
            layers.append(Residual(width))
        return nn.Sequential(*layers)

    def forward(self, x):
        return self.body(x)


class DepthNet(nn.Module):
    def __init__(self, depth, width, classes):
        super(DepthNet, self).__init__()
        per_stage = (depth - 2) // 4
        self.inp = nn.Linear(6, width)
        self.first = Stage(per_stage, width)
        self.second = Stage(per_stage, width)
        self.out = nn.Linear(width, classes)

    def forward(self, x):
        return self.out(self.second(self.first(F.relu(self.inp(x)))))


torch.manual_seed(0)
model = DepthNet(14, 8, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.randn(20, 6)
labels = torch.LongTensor(20).random_(0, 3)
for step in range(6):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(inputs), labels)
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.item()))
print('blocks', len(model.first.body), len(model.second.body))
