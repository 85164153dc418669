"""A PyTorch 0.1.12 generator-encoder step: latent codes are put on the unit
sphere with ``z.div(z.norm(2, 1).expand_as(z))`` and centred with
``x.mean(1).expand_as(x)``; 0.1's reductions kept their dimension, since 0.2
they drop it and ``expand_as`` aligns the result to the last dimension."""
# needs: TV001 TV003 TV162
# flags: --unsafe-fixes
# before-error: must match the existing size
import torch
import torch.nn as nn
from torch.autograd import Variable


def normalize(z, dim=1):
    return z.div(z.norm(2, dim).expand_as(z))


def centered(x):
    return x - x.mean(1).expand_as(x)


torch.manual_seed(0)
encoder = nn.Linear(6, 4)
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
for step in range(3):
    x = Variable(torch.randn(5, 6))
    z = normalize(encoder(centered(x)))
    loss = (z - 0.5).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print('step %d loss %.6f' % (step, loss.data[0]))
