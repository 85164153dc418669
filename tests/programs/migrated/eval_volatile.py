"""Migrated copy of ../eval_volatile.py: evaluate() runs under torch.no_grad()."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
data = torch.randn(64, 4)
labels = (data[:, 0] > 0).long() + (data[:, 1] > 0.5).long()


def train():
    model.train()
    for i in range(0, 64, 16):
        inputs, targets = data[i:i + 16], labels[i:i + 16]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()


@torch.no_grad()
def evaluate():
    model.eval()
    correct = 0
    total_margin = 0.0
    for i in range(0, 64, 16):
        inputs = data[i:i + 16]
        targets = labels[i:i + 16]
        output = F.log_softmax(model(inputs), dim=1)
        pred = output.max(1)[1]
        correct += int(pred.eq(targets).sum())
        top2 = output.topk(2, dim=1)[0]
        total_margin += float((top2[:, 0] - top2[:, 1]).sum())
    return correct, total_margin / 64


for epoch in range(3):
    train()
    correct, margin = evaluate()
    print("epoch %d: %d/64 correct, mean margin %.4f" % (epoch, correct, margin))
