"""A 2017 GAN loop that trains G first: G's loss backward(retain_graph=True), opt_G.step(), then D's loss through the same G(z) output."""
# needs: TV001 TV003 TV114
# flags: --unsafe-fixes
# before-error: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)
nz, batch_size = 4, 8

G = nn.Sequential(nn.Linear(nz, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
opt_G = optim.Adam(G.parameters(), lr=0.001, betas=(0.5, 0.999))
opt_D = optim.Adam(D.parameters(), lr=0.001, betas=(0.5, 0.999))
ones = Variable(torch.ones(batch_size, 1))
zeros = Variable(torch.zeros(batch_size, 1))

for it in range(4):
    real = Variable(torch.randn(batch_size, 2) * 0.5 + 2)
    z = Variable(torch.randn(batch_size, nz))
    fake = G(z)

    # (1) G: make D call the fakes real
    opt_G.zero_grad()
    g_loss = criterion(D(fake), ones)
    g_loss.backward(retain_graph=True)
    opt_G.step()

    # (2) D: real against the same fakes
    opt_D.zero_grad()
    d_loss = criterion(D(real), ones) + criterion(D(fake), zeros)
    d_loss.backward()
    opt_D.step()

    print('[%d] d_loss %.6f g_loss %.6f D(G(z)) %.6f' % (
        it, d_loss.data[0], g_loss.data[0], D(fake).data.mean()))
