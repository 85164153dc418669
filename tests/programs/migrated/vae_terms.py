"""Migrated copy of ../vae_terms.py: reduction='sum', .item() for the three terms,
no Variable."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyVAE(nn.Module):
    def __init__(self, n_in=12, n_hidden=8, n_latent=3):
        super().__init__()
        self.enc = nn.Linear(n_in, n_hidden)
        self.enc_mu = nn.Linear(n_hidden, n_latent)
        self.enc_logvar = nn.Linear(n_hidden, n_latent)
        self.dec = nn.Linear(n_latent, n_hidden)
        self.dec_out = nn.Linear(n_hidden, n_in)

    def forward(self, x):
        h = F.relu(self.enc(x))
        mu, logvar = self.enc_mu(h), self.enc_logvar(h)
        std = torch.exp(0.5 * logvar)
        eps = torch.randn(std.size())
        z = mu + eps * std
        return torch.sigmoid(self.dec_out(F.relu(self.dec(z)))), mu, logvar


def elbo_terms(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, reduction='sum')
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld, bce, kld


model = TinyVAE()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
data = (torch.rand(40, 12) > 0.6).float()
bs = 10
for epoch in range(3):
    for i in range(0, len(data), bs):
        x = data[i:i + bs]
        recon, mu, logvar = model(x)
        loss, bce, kld = elbo_terms(recon, x, mu, logvar)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print('epoch {} loss {:.4f} bce {:.4f} kld {:.4f}'.format(
        epoch, loss.item() / bs, bce.item() / bs, kld.item() / bs))
