"""The averaged-terms VAE, migrated by hand to PyTorch 2.13: ``.item()`` for the
means the loss method returns with ``average=True``, and for an element of the
per-example terms."""
import torch
import torch.nn as nn


class TinyVAE(nn.Module):
    def __init__(self):
        super(TinyVAE, self).__init__()
        self.enc = nn.Linear(6, 4)
        self.dec = nn.Linear(2, 6)

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = h[:, :2], h[:, 2:]
        z = mu + torch.exp(0.5 * logvar) * 0.1
        return self.dec(z), mu, logvar

    def calculate_loss(self, x, beta=1.0, average=False):
        recon, mu, logvar = self.forward(x)
        RE = ((recon - x) ** 2).sum(1)
        KL = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)
        loss = RE + beta * KL
        if average:
            loss = torch.mean(loss)
            RE = torch.mean(RE)
            KL = torch.mean(KL)
        return loss, RE, KL


torch.manual_seed(0)
model = TinyVAE()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
data = torch.randn(32, 6)
for epoch in range(4):
    for i in range(0, 32, 8):
        x = data[i:i + 8]
        optimizer.zero_grad()
        loss, RE, KL = model.calculate_loss(x, average=True)
        loss.backward()
        optimizer.step()
    print('epoch %d loss %.5f RE %.5f KL %.5f' % (epoch, loss.item(), RE.item(), KL.item()))
each, RE_each, KL_each = model.calculate_loss(data[:4])
print('first example RE %.5f KL %.5f' % (RE_each[0].item(), KL_each[0].item()))
