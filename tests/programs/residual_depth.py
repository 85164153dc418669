"""A PyTorch 0.3-era residual network for Python 2, sized by its depth: the
number of blocks per stage is ``(depth - 2) / 4``, passed on through a stage
class to ``range()``, and a bottleneck halves its width with ``/``.

On Python 3 both are floats: ``range()`` and ``nn.Linear`` refuse them, so
the program stops before it trains; ``//`` is Python 2's division exactly.
"""
# needs: TV003 TV149
# flags: --unsafe-fixes
# before-error: TypeError: 'float' object cannot be interpreted as an integer
from __future__ import print_function

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class Residual(nn.Module):
    def __init__(self, width):
        super(Residual, self).__init__()
        squeeze = width / 2
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
        per_stage = (depth - 2) / 4
        self.inp = nn.Linear(6, width)
        self.first = Stage(per_stage, width)
        self.second = Stage(per_stage, width)
        self.out = nn.Linear(width, classes)

    def forward(self, x):
        return self.out(self.second(self.first(F.relu(self.inp(x)))))


torch.manual_seed(0)
model = DepthNet(14, 8, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = Variable(torch.randn(20, 6))
labels = Variable(torch.LongTensor(20).random_(0, 3))
for step in range(6):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(inputs), labels)
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.data[0]))
print('blocks', len(model.first.body), len(model.second.body))
