"""Migrated copy of ../logistic_labels.py: targets with the input's shape, or the input flattened."""
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
half = 8
scorer = nn.Linear(2, 1)
criterion = nn.BCELoss()
optimizer = optim.SGD(scorer.parameters(), lr=0.5)
points = torch.cat([torch.randn(half, 2) + 1.5, torch.randn(half, 2) - 1.5])
labels = torch.cat([torch.ones(half), torch.zeros(half)])
positives = torch.ones(half, 1)
for step in range(6):
    optimizer.zero_grad()
    probs = torch.sigmoid(scorer(points))
    loss = criterion(probs.view(-1), labels)
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.item()))
score = torch.sigmoid(scorer(torch.randn(half, 2) + 1.5))
print("held-out positives %.5f" % criterion(score, positives).item())
