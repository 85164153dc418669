"""A WGAN critic loop whose +1/-1 gradients come from a helper of another module:
one = to_gpu(cuda, torch.FloatTensor([1])), errD_real.backward(one)."""
# needs: TV001 TV003 TV103
# flags: --unsafe-fixes
# module: gan_utils.py
# before-error: Mismatch in shape
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable
from gan_utils import *

torch.manual_seed(0)
cuda = False
nz, batch_size = 3, 16

netG = nn.Sequential(nn.Linear(nz, 8), nn.ReLU(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
optimizerD = optim.RMSprop(netD.parameters(), lr=5e-4)
optimizerG = optim.RMSprop(netG.parameters(), lr=5e-4)

one = to_gpu(cuda, torch.FloatTensor([1]))
mone = one * -1

for step in range(4):
    real = torch.randn(batch_size, 2) * 0.5 + 1.0
    netD.zero_grad()
    errD_real = netD(Variable(real)).mean()
    errD_real.backward(one)
    fake = Variable(netG(noise_var(cuda, batch_size, nz)).data)
    errD_fake = netD(fake).mean()
    errD_fake.backward(mone)
    errD = errD_real - errD_fake
    optimizerD.step()

    netG.zero_grad()
    errG = netD(netG(noise_var(cuda, batch_size, nz))).mean()
    errG.backward(one)
    optimizerG.step()
    print("step %d errD %.6f errG %.6f" % (step, errD.data[0], errG.data[0]))
