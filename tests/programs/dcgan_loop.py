"""A DCGAN-style loop on 2-D points: weights_init through .data, Variable labels, errD.data[0]."""
# needs: TV001 TV003 TV004
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)
nz, batch_size = 4, 8


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Linear') != -1:
        m.weight.data.normal_(0.0, 0.02)
        m.bias.data.fill_(0)
    elif classname.find('BatchNorm') != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


netG = nn.Sequential(nn.Linear(nz, 16), nn.BatchNorm1d(16), nn.ReLU(True), nn.Linear(16, 2))
netD = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1),
                     nn.Sigmoid())
netG.apply(weights_init)
netD.apply(weights_init)
criterion = nn.BCELoss()

input = torch.FloatTensor(batch_size, 2)
noise = torch.FloatTensor(batch_size, nz)
label = torch.FloatTensor(batch_size, 1)
real_label, fake_label = 1, 0
optimizerD = optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))

for i in range(3):
    real_cpu = torch.randn(batch_size, 2) * 0.5 + 2
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    input.resize_as_(real_cpu).copy_(real_cpu)
    label.resize_(batch_size, 1).fill_(real_label)
    inputv = Variable(input)
    labelv = Variable(label)
    output = netD(inputv)
    errD_real = criterion(output, labelv)
    errD_real.backward()
    D_x = output.data.mean()

    noise.resize_(batch_size, nz).normal_(0, 1)
    noisev = Variable(noise)
    fake = netG(noisev)
    labelv = Variable(label.fill_(fake_label))
    output = netD(fake.detach())
    errD_fake = criterion(output, labelv)
    errD_fake.backward()
    D_G_z1 = output.data.mean()
    errD = errD_real + errD_fake
    optimizerD.step()

    # (2) Update G network: maximize log(D(G(z)))
    netG.zero_grad()
    labelv = Variable(label.fill_(real_label))
    output = netD(fake)
    errG = criterion(output, labelv)
    errG.backward()
    D_G_z2 = output.data.mean()
    optimizerG.step()

    print('[%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
          % (i, errD.data[0], errG.data[0], D_x, D_G_z1, D_G_z2))
