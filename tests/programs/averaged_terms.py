"""A PyTorch 0.3-era variational autoencoder whose loss method returns its
terms per example or, with ``average=True``, their means; the training loop
logs the averaged terms with ``.data[0]`` and keeps the per-example terms of
the last batch for a histogram.

On 0.3 the means were one-element tensors; on 2.13 they are 0-dim and
``.data[0]`` raises IndexError.  Which ones are means depends on the constant
the call passes: the per-example terms are 1-D, and their ``.data[0]`` is an
element (a 0-dim tensor now, a number then).
"""
# needs: TV001 TV003 TV144
# before-error: IndexError: invalid index of a 0-dim tensor
from __future__ import print_function

import torch
import torch.nn as nn
from torch.autograd import Variable


class TinyVAE(nn.Module):
    def __init__(self):
        super(TinyVAE, self).__init__()
        self.enc = nn.Linear(6, 4)
        self.dec = nn.Linear(2, 6)

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = h[:, :2], h[:, 2:]
        z = mu + torch.exp(0.5 * logvar) * 0.1
        return self.dec(z), mu, logvar

    def calculate_loss(self, x, beta=1.0, average=False):
        recon, mu, logvar = self.forward(x)
        RE = ((recon - x) ** 2).sum(1)
        KL = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)
        loss = RE + beta * KL
        if average:
            loss = torch.mean(loss)
            RE = torch.mean(RE)
            KL = torch.mean(KL)
        return loss, RE, KL


torch.manual_seed(0)
model = TinyVAE()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
data = torch.randn(32, 6)
for epoch in range(4):
    for i in range(0, 32, 8):
        x = Variable(data[i:i + 8])
        optimizer.zero_grad()
        loss, RE, KL = model.calculate_loss(x, average=True)
        loss.backward()
        optimizer.step()
    print('epoch %d loss %.5f RE %.5f KL %.5f' % (epoch, loss.data[0], RE.data[0], KL.data[0]))
each, RE_each, KL_each = model.calculate_loss(Variable(data[:4]))
print('first example RE %.5f KL %.5f' % (RE_each.data[0], KL_each.data[0]))
