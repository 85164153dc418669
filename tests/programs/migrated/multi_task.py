"""Migrated copy of ../multi_task.py: the per-epoch total sums floats (.item())."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(5, 8)
        self.heads = nn.ModuleList([nn.Linear(8, 3), nn.Linear(8, 2)])

    def forward(self, x):
        h = F.relu(self.trunk(x))
        return [head(h) for head in self.heads]


model = TwoHeads()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
x_all = torch.randn(20, 5)
y_all = [(x_all[:, 0] > 0).long() + (x_all[:, 1] > 0).long(), (x_all[:, 2] > 0).long()]

for epoch in range(3):
    epoch_loss = 0.0
    for i in range(0, 20, 5):
        x = x_all[i:i + 5]
        ys = [y[i:i + 5] for y in y_all]
        optimizer.zero_grad()
        loss = sum(criterion(out, y) for out, y in zip(model(x), ys))
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    print('epoch %d last %.5f mean %.5f' % (epoch, loss.item(), epoch_loss / 4))
