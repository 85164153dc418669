"""Migrated copy of ../gan_step_order.py: D's loss on fake.detach(), .item()."""
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
nz, batch_size = 4, 8

G = nn.Sequential(nn.Linear(nz, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
opt_G = optim.Adam(G.parameters(), lr=0.001, betas=(0.5, 0.999))
opt_D = optim.Adam(D.parameters(), lr=0.001, betas=(0.5, 0.999))
ones = torch.ones(batch_size, 1)
zeros = torch.zeros(batch_size, 1)

for it in range(4):
    real = torch.randn(batch_size, 2) * 0.5 + 2
    z = torch.randn(batch_size, nz)
    fake = G(z)

    # (1) G: make D call the fakes real
    opt_G.zero_grad()
    g_loss = criterion(D(fake), ones)
    g_loss.backward(retain_graph=True)
    opt_G.step()

    # (2) D: real against the same fakes
    opt_D.zero_grad()
    d_loss = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
    d_loss.backward()
    opt_D.step()

    print('[%d] d_loss %.6f g_loss %.6f D(G(z)) %.6f' % (
        it, d_loss.item(), g_loss.item(), D(fake).mean().item()))
