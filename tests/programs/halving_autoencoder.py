"""A PyTorch 0.3-era autoencoder written for Python 2: its bottleneck halves the
input width with ``/``, which floored two ints there.

On Python 3 ``dim / 2`` is a float, which torch refuses as a layer size, a
constructor's size and a ``view`` size; ``//`` is Python 2's division exactly.
"""
# needs: TV003 TV149
# before-error: TypeError: empty(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 0
from __future__ import print_function

import torch
import torch.nn as nn


class HalvingAutoencoder(nn.Module):
    def __init__(self, dim, pieces):
        super(HalvingAutoencoder, self).__init__()
        self.encode = nn.Linear(dim, dim / 2)
        self.norm = nn.BatchNorm1d(dim / 2)
        self.decode = nn.Linear(dim / 2, dim)
        self.dim = dim
        self.pieces = pieces

    def forward(self, x):
        code = torch.tanh(self.norm(self.encode(x)))
        # each piece of the code is centred on its own mean
        split = code.view(-1, self.pieces, self.dim / 2 / self.pieces)
        code = (split - split.mean(2, keepdim=True)).view(-1, self.dim / 2)
        return self.decode(code + torch.ones(self.dim / 2) * 0.1)


torch.manual_seed(0)
model = HalvingAutoencoder(12, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(16, 12)
for step in range(5):
    optimizer.zero_grad()
    loss = ((model(data) - data) ** 2).mean()
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.data[0]))
