"""Migrated copy of ../vae.py: torch.randn_like for the noise, .item() for the losses."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 6)
        self.fc21 = nn.Linear(6, 2)
        self.fc22 = nn.Linear(6, 2)
        self.fc3 = nn.Linear(2, 6)
        self.fc4 = nn.Linear(6, 8)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        if self.training:
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return eps.mul(std).add_(mu)
        else:
            return mu

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 8))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    rec = ((recon_x - x.view(-1, 8)) ** 2).sum()
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return rec + KLD


model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-2)
train_set = torch.rand(32, 8)
test_set = torch.rand(16, 8)


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx in range(4):
        data = train_set[batch_idx * 8:(batch_idx + 1) * 8]
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, train_loss / len(train_set)))


def test(epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i in range(0, len(test_set), 8):
            data = test_set[i:i + 8]
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
    test_loss /= len(test_set)
    print('====> Test set loss: {:.4f}'.format(test_loss))


for epoch in range(1, 4):
    train(epoch)
    test(epoch)
