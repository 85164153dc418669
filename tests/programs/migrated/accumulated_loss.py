"""accumulated_loss.py, migrated by hand to PyTorch 2.13."""
import torch
import torch.nn as nn


def train_epoch(model, criterion, optimizer, batches):
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    print('epoch loss %.4f' % (total / len(batches)))


torch.manual_seed(0)
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
for epoch in range(2):
    train_epoch(model, criterion, optimizer, batches)
