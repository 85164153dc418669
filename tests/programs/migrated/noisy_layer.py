"""Migrated copy of ../noisy_layer.py: the noise layer asks torch whether grad mode is on."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class GaussianNoise(nn.Module):
    def __init__(self, sigma):
        super().__init__()
        self.sigma = sigma

    def forward(self, x):
        if self.training and torch.is_grad_enabled():
            return x + torch.empty_like(x).normal_(0, self.sigma)
        return x


model = nn.Sequential(GaussianNoise(0.1), nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
clean = torch.randn(16, 4)
for step in range(4):
    optimizer.zero_grad()
    loss = ((model(clean) - clean) ** 2).mean()
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.item()))
model.eval()
with torch.no_grad():
    print('eval %.6f' % ((model(clean) - clean) ** 2).mean().item())
