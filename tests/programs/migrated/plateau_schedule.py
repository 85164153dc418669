"""Migrated copy of ../plateau_schedule.py: the scheduler without verbose (the learning rate is printed by the loop)."""
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import ReduceLROnPlateau

torch.manual_seed(0)
x = torch.randn(32, 3)
y = x.mm(torch.Tensor([[1.0], [-2.0], [0.5]])) + 0.3 * torch.randn(32, 1)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.9)
scheduler = ReduceLROnPlateau(optimizer, 'min', factor=0.5, patience=0)
for epoch in range(10):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    val = ((model(x) - y) ** 2).mean().item()
    scheduler.step(val)
    print("epoch %d loss %.5f lr %.4f" % (epoch, val, optimizer.param_groups[0]['lr']))
