"""Migrated copy of ../training_loop.py: plain tensors, the loss read with .item()."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(8, 3)
targets = torch.randn(8, 1)
for step in range(3):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.item()))
