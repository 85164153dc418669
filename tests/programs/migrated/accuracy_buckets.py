"""An evaluation that counts correct predictions and bins the predicted classes
(hand-migrated)."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 6)
data = torch.randn(32, 4)
target = (data[:, 0] * 3).abs().long().clamp(max=5)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
for step in range(3):
    loss = crit(model(data), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print('step %d loss %.4f' % (step, loss.item()))

correct = 0
with torch.no_grad():
    output = model(data)
_, pred = torch.max(output, 1)
correct += pred.eq(target).sum().item()
bins = torch.div(pred, 2, rounding_mode='trunc')
print('correct', correct)
print('accuracy %.3f' % (100. * correct / len(target)))
print('bins', bins.tolist())
