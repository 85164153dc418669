"""The generator-encoder step migrated by hand: the reductions keep their
dimension, as 0.1's did."""
import torch
import torch.nn as nn


def normalize(z, dim=1):
    return z.div(z.norm(2, dim, keepdim=True).expand_as(z))


def centered(x):
    return x - x.mean(1, keepdim=True).expand_as(x)


torch.manual_seed(0)
encoder = nn.Linear(6, 4)
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(5, 6)
    z = normalize(encoder(centered(x)))
    loss = (z - 0.5).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print('step %d loss %.6f' % (step, loss.item()))
