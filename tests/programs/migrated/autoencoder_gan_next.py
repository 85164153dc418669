"""The GAN step with a ``next`` helper, migrated by hand to PyTorch 2.13: the
iterator's ``__next__`` (the module's own ``next`` shadows the builtin) and
``F.l1_loss`` with the target detached for the THNN criterion."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def next(batches):
    return batches.__next__()[0]


class _Loss(nn.Module):
    def forward(self, input, target):
        return F.l1_loss(input, target.detach())


class L1Loss(_Loss):
    pass


torch.manual_seed(0)
D = nn.Sequential(nn.Linear(6, 3), nn.Tanh(), nn.Linear(3, 6))
G = nn.Sequential(nn.Linear(2, 6))
opt_D = torch.optim.SGD(D.parameters(), lr=0.1)
opt_G = torch.optim.SGD(G.parameters(), lr=0.1)
l1 = L1Loss()
loader = DataLoader(TensorDataset(torch.randn(24, 6)), batch_size=6)
batches = iter(loader)
for step in range(4):
    x = next(batches)
    z = torch.randn(6, 2)
    fake = G(z)
    opt_D.zero_grad()
    d_loss = l1(D(x), x) - 0.5 * l1(D(fake.detach()), fake.detach())
    d_loss.backward()
    opt_D.step()
    opt_G.zero_grad()
    reconstructed = D(fake)
    g_loss = l1(fake, reconstructed)
    g_loss.backward()
    opt_D.step()
    opt_G.step()
    print('step %d D %.6f G %.6f' % (step, d_loss.item(), g_loss.item()))
