"""A PyTorch 0.3-era boundary-equilibrium GAN step: a module-level helper named
``next`` draws batches with the iterator's ``.next()``, and the discriminator's
reconstruction loss is a criterion of its own built on the THNN backend, so
that its target may require grad (0.3's ``nn.L1Loss`` refused that), and that
passed the target no gradient.

On 2.13 the iterator has no ``.next()`` (AttributeError); ``next(it)`` in this
module would call the helper itself.  The THNN backend is gone: ``F.l1_loss``
with the target detached is 0.3's loss, gradients included.
"""
# needs: TV001 TV003 TV110 TV111
# before-error: AttributeError: '_SingleProcessDataLoaderIter' object has no attribute 'next'
# hand-edit: backend_fn = getattr(self._backend, type(self).__name__)\n        return backend_fn(True)(input, target) => return F.l1_loss(input, target.detach())
from __future__ import print_function

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torch.utils.data import DataLoader, TensorDataset


def next(batches):
    return batches.next()[0]


class _Loss(nn.Module):
    def forward(self, input, target):
        backend_fn = getattr(self._backend, type(self).__name__)
        return backend_fn(True)(input, target)


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
    x = Variable(next(batches))
    z = Variable(torch.randn(6, 2))
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
    print('step %d D %.6f G %.6f' % (step, d_loss.data[0], g_loss.data[0]))
