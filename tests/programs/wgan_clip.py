"""A WGAN critic loop: weights clipped through p.data.clamp_, a gradient-penalty term on
Variable(..., requires_grad=True) interpolates, costs read with .data[0]."""
# needs: TV001 TV003 TV004
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)
BATCH, NZ, LAMBDA, CLAMP = 8, 3, 0.1, 0.05

netG = nn.Sequential(nn.Linear(NZ, 8), nn.ReLU(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
optD = optim.RMSprop(netD.parameters(), lr=5e-3)
optG = optim.RMSprop(netG.parameters(), lr=5e-3)


def gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH, 1)
    interpolates = alpha * real_data + (1 - alpha) * fake_data
    interpolates = Variable(interpolates, requires_grad=True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones(disc_interpolates.size()),
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


for it in range(3):
    for p in netD.parameters():
        p.requires_grad = True
    for _ in range(2):
        for p in netD.parameters():
            p.data.clamp_(-CLAMP, CLAMP)
        real = torch.randn(BATCH, 2) + 1
        netD.zero_grad()
        D_real = netD(Variable(real)).mean()
        noise = torch.randn(BATCH, NZ)
        fake = Variable(netG(Variable(noise)).data)
        D_fake = netD(fake).mean()
        gp = gradient_penalty(netD, real, fake.data)
        D_cost = D_fake - D_real + gp
        D_cost.backward()
        optD.step()
    for p in netD.parameters():
        p.requires_grad = False
    netG.zero_grad()
    G_cost = -netD(netG(Variable(torch.randn(BATCH, NZ)))).mean()
    G_cost.backward()
    optG.step()
    print('iter %d D_cost %.5f G_cost %.5f W %.5f'
          % (it, D_cost.data[0], G_cost.data[0], (D_real - D_fake).data[0]))
