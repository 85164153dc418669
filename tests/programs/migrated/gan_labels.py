"""Migrated copy of ../gan_labels.py: labels shaped like D's output, .item()."""
import torch
import torch.nn as nn

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
    real_img = img
    real_label = torch.ones(num_img, 1)
    fake_label = torch.zeros(num_img, 1)

    real_out = D(real_img)
    d_loss_real = criterion(real_out, real_label)
    z = torch.randn(num_img, z_dimension)
    fake_img = G(z)
    fake_out = D(fake_img)
    d_loss_fake = criterion(fake_out, fake_label)
    d_loss = d_loss_real + d_loss_fake
    d_optimizer.zero_grad()
    d_loss.backward()
    d_optimizer.step()

    z = torch.randn(num_img, z_dimension)
    output = D(G(z))
    g_loss = criterion(output, real_label)
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()

    print('Epoch [{}], d_loss: {:.6f}, g_loss: {:.6f}, D real: {:.6f}'.format(
        epoch, d_loss.item(), g_loss.item(), real_out.mean().item()))
