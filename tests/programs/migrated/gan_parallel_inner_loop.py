"""Migrated copy of ../gan_parallel_inner_loop.py: D's loss reaches D's parameters alone, .item()."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.l1 = nn.Linear(4, 8)
        self.l2 = nn.Linear(8, 4)

    def forward(self, z):
        return self.l2(torch.relu(self.l1(z)))


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.l1 = nn.Linear(4, 8)
        self.l2 = nn.Linear(8, 1)

    def forward(self, x):
        return torch.sigmoid(self.l2(torch.relu(self.l1(x))))


generator = nn.DataParallel(Generator())
discriminator = nn.DataParallel(Discriminator())
loss_func = nn.MSELoss()
gen_optim = torch.optim.Adam(generator.parameters(), lr=1e-3)
dis_optim = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
ones_label = torch.ones(6, 1)
zeros_label = torch.zeros(6, 1)

for i in range(3):
    image = torch.randn(6, 4) * 0.5 + 1

    # generator: twice per batch
    for k in range(2):
        gen_optim.zero_grad()
        z = torch.randn(6, 4)
        gen_fake = generator.forward(z)
        dis_fake = discriminator.forward(gen_fake)
        gen_loss = torch.sum(loss_func(dis_fake, ones_label))
        gen_loss.backward(retain_graph=True)
        gen_optim.step()

    # discriminator: on the last fakes
    dis_optim.zero_grad()
    dis_real = discriminator.forward(image)
    dis_loss = torch.sum(loss_func(dis_fake, zeros_label)) + torch.sum(loss_func(dis_real, ones_label))
    dis_loss.backward(inputs=list(discriminator.parameters()))
    dis_optim.step()

    print('%d gen_loss %.6f dis_loss %.6f' % (i, gen_loss.item(), dis_loss.item()))
