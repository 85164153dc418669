"""Migrated copy of ../pixel_classifier.py: nn.NLLLoss takes (N, C, H, W) inputs."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
n_classes = 3
head = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, n_classes, 1))
criterion = nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5]))
optimizer = optim.SGD(head.parameters(), lr=0.1)
images = torch.randn(4, 2, 6, 6)
labels = (torch.rand(4, 6, 6) * n_classes).long()
for step in range(5):
    optimizer.zero_grad()
    loss = criterion(F.log_softmax(head(images), dim=1), labels)
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.item()))
