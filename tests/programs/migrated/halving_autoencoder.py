"""The halving autoencoder, migrated by hand to PyTorch 2.13: ``//`` for Python 2's
integer ``/`` in the sizes."""

import torch
import torch.nn as nn


class HalvingAutoencoder(nn.Module):
    def __init__(self, dim, pieces):
        super(HalvingAutoencoder, self).__init__()
        self.encode = nn.Linear(dim, dim // 2)
        self.norm = nn.BatchNorm1d(dim // 2)
        self.decode = nn.Linear(dim // 2, dim)
        self.dim = dim
        self.pieces = pieces

    def forward(self, x):
        code = torch.tanh(self.norm(self.encode(x)))
        # each piece of the code is centred on its own mean
        split = code.view(-1, self.pieces, self.dim // 2 // self.pieces)
        code = (split - split.mean(2, keepdim=True)).view(-1, self.dim // 2)
        return self.decode(code + torch.ones(self.dim // 2) * 0.1)


torch.manual_seed(0)
model = HalvingAutoencoder(12, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(16, 12)
for step in range(5):
    optimizer.zero_grad()
    loss = ((model(data) - data) ** 2).mean()
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.item()))
