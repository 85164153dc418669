"""Migrated copy of ../gan_models_module.py: targets shaped like D's (N, 1) output, .item()."""
import torch
import torch.nn as nn
import torch.optim as optim
from gan_models import Discriminator, Generator

torch.manual_seed(0)
nz, batch_size = 3, 16
D = Discriminator()
G = Generator(nz)
criterion = nn.BCELoss()
optD = optim.Adam(D.parameters(), lr=1e-3)
optG = optim.Adam(G.parameters(), lr=1e-3)

for step in range(3):
    real = torch.randn(batch_size, 2) * 0.5 + 1.0
    fake = G(torch.randn(batch_size, nz))
    D.zero_grad()
    lossD = criterion(D(real), torch.ones(batch_size, 1)) + \
        criterion(D(fake.detach()), torch.zeros(batch_size, 1))
    lossD.backward()
    optD.step()
    G.zero_grad()
    lossG = criterion(D(fake), torch.ones(batch_size, 1))
    lossG.backward()
    optG.step()
    print("step %d lossD %.6f lossG %.6f" % (step, lossD.item(), lossG.item()))
