"""A GAN whose discriminator (ending in Linear(8, 1)) is defined in the project's
models module: BCELoss on D(x) with a 1-D target of ones."""
# needs: TV001 TV003 TV117
# flags: --unsafe-fixes
# module: gan_models.py
# before-error: Using a target size (torch.Size([16])) that is different to the input size
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable
from gan_models import Discriminator, Generator

torch.manual_seed(0)
nz, batch_size = 3, 16
D = Discriminator()
G = Generator(nz)
criterion = nn.BCELoss()
optD = optim.Adam(D.parameters(), lr=1e-3)
optG = optim.Adam(G.parameters(), lr=1e-3)

for step in range(3):
    real = Variable(torch.randn(batch_size, 2) * 0.5 + 1.0)
    fake = G(Variable(torch.randn(batch_size, nz)))
    D.zero_grad()
    lossD = criterion(D(real), Variable(torch.ones(batch_size))) + \
        criterion(D(fake.detach()), Variable(torch.zeros(batch_size)))
    lossD.backward()
    optD.step()
    G.zero_grad()
    lossG = criterion(D(fake), Variable(torch.ones(batch_size)))
    lossG.backward()
    optG.step()
    print("step %d lossD %.6f lossG %.6f" % (step, lossD.data[0], lossG.data[0]))
