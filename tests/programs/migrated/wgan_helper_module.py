"""Migrated copy of ../wgan_helper_module.py: backward() on the 0-dim critic outputs, .item()."""
import torch
import torch.nn as nn
import torch.optim as optim
from gan_utils import *

torch.manual_seed(0)
cuda = False
nz, batch_size = 3, 16

netG = nn.Sequential(nn.Linear(nz, 8), nn.ReLU(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
optimizerD = optim.RMSprop(netD.parameters(), lr=5e-4)
optimizerG = optim.RMSprop(netG.parameters(), lr=5e-4)

for step in range(4):
    real = torch.randn(batch_size, 2) * 0.5 + 1.0
    netD.zero_grad()
    errD_real = netD(real).mean()
    errD_real.backward()
    fake = netG(noise_var(cuda, batch_size, nz)).detach()
    errD_fake = netD(fake).mean()
    (-errD_fake).backward()
    errD = errD_real - errD_fake
    optimizerD.step()

    netG.zero_grad()
    errG = netD(netG(noise_var(cuda, batch_size, nz))).mean()
    errG.backward()
    optimizerG.step()
    print("step %d errD %.6f errG %.6f" % (step, errD.item(), errG.item()))
