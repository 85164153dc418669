"""volatile_script.py migrated by hand to torch 2.13: the evaluation loops under
torch.no_grad(), the wrapper and the .volatile assignment gone."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(32, 4)
labels = (data.sum(1) > 0).long() + (data[:, 0] > 1).long()

for step in range(5):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(data), labels)
    loss.backward()
    optimizer.step()

correct = 0
with torch.no_grad():
    for i in range(0, 32, 8):
        out = model(data[i:i + 8])
        correct += int(out.max(1)[1].eq(labels[i:i + 8]).sum())
print("correct %d/32, graph recorded: %s" % (correct, out.requires_grad))

total = 0.0
with torch.no_grad():
    for i in range(0, 32, 16):
        scores = model(data[i:i + 16])
        total += float(scores.sum())
print("total %.4f, graph recorded: %s" % (total, scores.requires_grad))

baseline = torch.zeros(3)
print("baseline", baseline.tolist(), baseline.requires_grad)
