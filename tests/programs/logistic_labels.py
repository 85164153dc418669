"""Logistic regression on 2-D points, 2017 style: a Linear(2, 1) scorer, labels as torch.ones(n)/torch.zeros(n)."""
# needs: TV001 TV003 TV117
# flags: --unsafe-fixes
# hand-edit: criterion(probs, labels) => criterion(probs.view(-1), labels)
# before-error: ValueError: Using a target size (torch.Size([16])) that is different to the input size (torch.Size([16, 1]))
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)
half = 8
scorer = nn.Linear(2, 1)
criterion = nn.BCELoss()
optimizer = optim.SGD(scorer.parameters(), lr=0.5)
points = Variable(torch.cat([torch.randn(half, 2) + 1.5, torch.randn(half, 2) - 1.5]))
labels = Variable(torch.cat([torch.ones(half), torch.zeros(half)]))
positives = Variable(torch.ones(half))
for step in range(6):
    optimizer.zero_grad()
    probs = torch.sigmoid(scorer(points))
    loss = criterion(probs, labels)
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.data[0]))
score = torch.sigmoid(scorer(Variable(torch.randn(half, 2) + 1.5)))
print("held-out positives %.5f" % criterion(score, positives).data[0])
