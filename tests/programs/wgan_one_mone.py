"""A WGAN-style critic/generator loop on 2-D points: errD_real.backward(one), errD_fake.backward(mone)."""
# needs: TV001 TV003 TV103
# flags: --unsafe-fixes
# before-error: Mismatch in shape
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)
nz, batch_size = 3, 16

netG = nn.Sequential(nn.Linear(nz, 8), nn.ReLU(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
optimizerD = optim.RMSprop(netD.parameters(), lr=5e-4)
optimizerG = optim.RMSprop(netG.parameters(), lr=5e-4)

one = torch.FloatTensor([1])
mone = one * -1

for step in range(4):
    for p in netD.parameters():
        p.requires_grad = True
    real = torch.randn(batch_size, 2) * 0.5 + 1.0
    netD.zero_grad()
    errD_real = netD(Variable(real)).mean()
    errD_real.backward(one)
    noise = torch.randn(batch_size, nz)
    fake = Variable(netG(Variable(noise)).data)
    errD_fake = netD(fake).mean()
    errD_fake.backward(mone)
    errD = errD_real - errD_fake
    optimizerD.step()
    for p in netD.parameters():
        p.data.clamp_(-0.1, 0.1)

    for p in netD.parameters():
        p.requires_grad = False
    netG.zero_grad()
    errG = netD(netG(Variable(torch.randn(batch_size, nz)))).mean()
    errG.backward(one)
    optimizerG.step()
    print("step %d errD %.6f errG %.6f" % (step, errD.data[0], errG.data[0]))
