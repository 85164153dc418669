"""A 2017 MNIST GAN: the discriminator calls F.dropout(x, 0.3) without training in its forward, which PyTorch 0.3 (training=False by default) made a no-op; a few alternating steps of D and G."""
# needs: TV001 TV003 TV154
# before-error: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 12)

    def forward(self, z):
        return torch.tanh(self.fc2(F.leaky_relu(self.fc1(z), 0.2)))


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.fc1 = nn.Linear(12, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        x = F.leaky_relu(self.fc1(x), 0.2)
        x = F.dropout(x, 0.3, training=False)
        return torch.sigmoid(self.fc2(x))


G, D = Generator(), Discriminator()
criterion = nn.BCELoss()
G_optimizer = optim.Adam(G.parameters(), lr=2e-3)
D_optimizer = optim.Adam(D.parameters(), lr=2e-3)
real = torch.rand(16, 12) * 2 - 1
for step in range(4):
    x = real[step * 4:step * 4 + 4]
    y_real = torch.ones(4, 1)
    y_fake = torch.zeros(4, 1)
    D.zero_grad()
    z = torch.randn(4, 4)
    D_loss = criterion(D(x), y_real) + criterion(D(G(z)), y_fake)
    D_loss.backward()
    D_optimizer.step()
    G.zero_grad()
    z = torch.randn(4, 4)
    G_loss = criterion(D(G(z)), y_real)
    G_loss.backward()
    G_optimizer.step()
    print("step %d D %.4f G %.4f" % (step, D_loss.item(), G_loss.item()))
