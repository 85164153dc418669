"""Migrated copy of ../wgan_clip.py: clipping under torch.no_grad(), detach(), .item()."""
import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
BATCH, NZ, LAMBDA, CLAMP = 8, 3, 0.1, 0.05

netG = nn.Sequential(nn.Linear(NZ, 8), nn.ReLU(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
optD = optim.RMSprop(netD.parameters(), lr=5e-3)
optG = optim.RMSprop(netG.parameters(), lr=5e-3)


def gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH, 1)
    interpolates = (alpha * real_data + (1 - alpha) * fake_data).requires_grad_()
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones_like(disc_interpolates),
                              create_graph=True, retain_graph=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


for it in range(3):
    netD.requires_grad_(True)
    for _ in range(2):
        with torch.no_grad():
            for p in netD.parameters():
                p.clamp_(-CLAMP, CLAMP)
        real = torch.randn(BATCH, 2) + 1
        netD.zero_grad()
        D_real = netD(real).mean()
        noise = torch.randn(BATCH, NZ)
        fake = netG(noise).detach()
        D_fake = netD(fake).mean()
        gp = gradient_penalty(netD, real, fake)
        D_cost = D_fake - D_real + gp
        D_cost.backward()
        optD.step()
    netD.requires_grad_(False)
    netG.zero_grad()
    G_cost = -netD(netG(torch.randn(BATCH, NZ))).mean()
    G_cost.backward()
    optG.step()
    print('iter %d D_cost %.5f G_cost %.5f W %.5f'
          % (it, D_cost.item(), G_cost.item(), (D_real - D_fake).item()))
