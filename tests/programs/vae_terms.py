"""A tiny VAE whose loss helper returns the total and its two terms, summed with
size_average=False, each read with .data[0] and printed per sample."""
# needs: TV001 TV003 TV120
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)


class TinyVAE(nn.Module):
    def __init__(self, n_in=12, n_hidden=8, n_latent=3):
        super(TinyVAE, self).__init__()
        self.enc = nn.Linear(n_in, n_hidden)
        self.enc_mu = nn.Linear(n_hidden, n_latent)
        self.enc_logvar = nn.Linear(n_hidden, n_latent)
        self.dec = nn.Linear(n_latent, n_hidden)
        self.dec_out = nn.Linear(n_hidden, n_in)

    def forward(self, x):
        h = F.relu(self.enc(x))
        mu, logvar = self.enc_mu(h), self.enc_logvar(h)
        std = logvar.mul(0.5).exp()
        eps = Variable(torch.randn(std.size()))
        z = mu + eps * std
        return F.sigmoid(self.dec_out(F.relu(self.dec(z)))), mu, logvar


def elbo_terms(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, size_average=False)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld, bce, kld


model = TinyVAE()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
data = (torch.rand(40, 12) > 0.6).float()
bs = 10
for epoch in range(3):
    for i in range(0, len(data), bs):
        x = Variable(data[i:i + bs])
        recon, mu, logvar = model(x)
        loss, bce, kld = elbo_terms(recon, x, mu, logvar)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print('epoch {} loss {:.4f} bce {:.4f} kld {:.4f}'.format(
        epoch, loss.data[0] / bs, bce.data[0] / bs, kld.data[0] / bs))
