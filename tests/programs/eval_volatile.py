"""A classifier trained for a few steps and evaluated in an evaluate() function that relied
on volatile=True to skip autograd, as the 0.3 examples (mnist, imagenet) did."""
# needs: TV001 TV002
# flags: --unsafe-fixes
# before-warning: volatile was removed
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
data = torch.randn(64, 4)
labels = (data[:, 0] > 0).long() + (data[:, 1] > 0.5).long()


def train():
    model.train()
    for i in range(0, 64, 16):
        inputs, targets = Variable(data[i:i + 16]), Variable(labels[i:i + 16])
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()


def evaluate():
    model.eval()
    correct = 0
    total_margin = 0.0
    for i in range(0, 64, 16):
        inputs = Variable(data[i:i + 16], volatile=True)
        targets = Variable(labels[i:i + 16], volatile=True)
        output = F.log_softmax(model(inputs), dim=1)
        pred = output.data.max(1)[1]
        correct += int(pred.eq(targets.data).sum())
        top2 = output.data.topk(2, dim=1)[0]
        total_margin += float((top2[:, 0] - top2[:, 1]).sum())
    return correct, total_margin / 64


for epoch in range(3):
    train()
    correct, margin = evaluate()
    print("epoch %d: %d/64 correct, mean margin %.4f" % (epoch, correct, margin))
