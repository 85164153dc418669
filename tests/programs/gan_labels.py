"""A 2017 GAN on 2-D points: a discriminator ending in Linear(256, 1), labels built as torch.ones(n)."""
# needs: TV001 TV003 TV117
# flags: --unsafe-fixes
# before-error: ValueError: Using a target size (torch.Size([8])) that is different to the input size (torch.Size([8, 1]))
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
z_dimension, num_img = 4, 8


class discriminator(nn.Module):
    def __init__(self):
        super(discriminator, self).__init__()
        self.dis = nn.Sequential(
            nn.Linear(2, 16),
            nn.LeakyReLU(0.2),
            nn.Linear(16, 1), nn.Sigmoid())

    def forward(self, x):
        x = self.dis(x)
        return x


class generator(nn.Module):
    def __init__(self):
        super(generator, self).__init__()
        self.gen = nn.Sequential(nn.Linear(z_dimension, 16), nn.ReLU(True), nn.Linear(16, 2))

    def forward(self, x):
        return self.gen(x)


D = discriminator()
G = generator()
criterion = nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=0.0003)
g_optimizer = torch.optim.Adam(G.parameters(), lr=0.0003)

for epoch in range(3):
    img = torch.randn(num_img, 2) * 0.5 + 2
    real_img = Variable(img)
    real_label = Variable(torch.ones(num_img))
    fake_label = Variable(torch.zeros(num_img))

    real_out = D(real_img)
    d_loss_real = criterion(real_out, real_label)
    z = Variable(torch.randn(num_img, z_dimension))
    fake_img = G(z)
    fake_out = D(fake_img)
    d_loss_fake = criterion(fake_out, fake_label)
    d_loss = d_loss_real + d_loss_fake
    d_optimizer.zero_grad()
    d_loss.backward()
    d_optimizer.step()

    z = Variable(torch.randn(num_img, z_dimension))
    output = D(G(z))
    g_loss = criterion(output, real_label)
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()

    print('Epoch [{}], d_loss: {:.6f}, g_loss: {:.6f}, D real: {:.6f}'.format(
        epoch, d_loss.data[0], g_loss.data[0], real_out.data.mean()))
