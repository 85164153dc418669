"""The training loop migrated by hand: the first scheduler step skipped, so the
rates are 0.3's."""
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import ExponentialLR

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
scheduler = ExponentialLR(optimizer, gamma=0.5)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
for epoch in range(4):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('epoch %d lr %.4f loss %.6f' % (epoch, optimizer.param_groups[0]['lr'], loss.item()))
    if epoch > 0:
        scheduler.step()
