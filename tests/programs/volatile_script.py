"""A 0.3-style script that evaluates at module level: the evaluation loop at the top of the
script relies on volatile=True, a flag picks volatile=<expr> through a **kwargs wrapper of
Variable, and a tensor's .volatile is switched off by an assignment."""
# needs: TV001 TV002
# flags: --unsafe-fixes
# before-warning: volatile was removed and now has no effect
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd
from torch.autograd import Variable

Var = lambda *args, **kwargs: autograd.Variable(*args, **kwargs)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(32, 4)
labels = (data.sum(1) > 0).long() + (data[:, 0] > 1).long()

for step in range(5):
    inputs, targets = Variable(data), Variable(labels)
    optimizer.zero_grad()
    loss = F.cross_entropy(model(inputs), targets)
    loss.backward()
    optimizer.step()

correct = 0
for i in range(0, 32, 8):
    inputs = Variable(data[i:i + 8], volatile=True)
    out = model(inputs)
    correct += int(out.data.max(1)[1].eq(labels[i:i + 8]).sum())
print("correct %d/32, graph recorded: %s" % (correct, out.requires_grad))

evaluating = True
total = 0.0
for i in range(0, 32, 16):
    scores = model(Var(data[i:i + 16], volatile=evaluating))
    total += float(scores.data.sum())
print("total %.4f, graph recorded: %s" % (total, scores.requires_grad))

baseline = Variable(torch.zeros(3))
baseline.volatile = False
print("baseline", baseline.data.tolist(), baseline.requires_grad)
