"""Migrated copy of ../sample_weights.py: reduction='none', samples read with [i].item()."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Weighted(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.criterion = nn.CrossEntropyLoss(reduction='none')

    def forward(self, x, y, w):
        sample_loss = self.criterion(self.fc(x), y)
        return sample_loss, (sample_loss * w).mean()


model = Weighted()
criterion = nn.CrossEntropyLoss(reduction='none')
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(8, 4)
targets = torch.LongTensor([0, 1, 2, 0, 1, 2, 0, 1])
weights = torch.linspace(0.5, 1.5, 8)
for step in range(3):
    optimizer.zero_grad()
    sample_loss, loss = model(inputs, targets, weights)
    loss.backward()
    optimizer.step()
    print('step %d first sample %.6f loss %.6f' % (step, sample_loss[0].item(), loss.item()))
with torch.no_grad():
    unweighted = criterion(model.fc(inputs), targets)
print('last sample %.6f' % unweighted[-1].item())
print('first sample %.6f' % unweighted[0].item())
