"""Migrated copy of ../wgan_one_mone.py: backward() on the 0-dim critic outputs, .item()."""
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
nz, batch_size = 3, 16

netG = nn.Sequential(nn.Linear(nz, 8), nn.ReLU(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
optimizerD = optim.RMSprop(netD.parameters(), lr=5e-4)
optimizerG = optim.RMSprop(netG.parameters(), lr=5e-4)

for step in range(4):
    for p in netD.parameters():
        p.requires_grad = True
    real = torch.randn(batch_size, 2) * 0.5 + 1.0
    netD.zero_grad()
    errD_real = netD(real).mean()
    errD_real.backward()
    noise = torch.randn(batch_size, nz)
    fake = netG(noise).detach()
    errD_fake = netD(fake).mean()
    (-errD_fake).backward()
    errD = errD_real - errD_fake
    optimizerD.step()
    with torch.no_grad():
        for p in netD.parameters():
            p.clamp_(-0.1, 0.1)

    for p in netD.parameters():
        p.requires_grad = False
    netG.zero_grad()
    errG = netD(netG(torch.randn(batch_size, nz))).mean()
    errG.backward()
    optimizerG.step()
    print("step %d errD %.6f errG %.6f" % (step, errD.item(), errG.item()))
