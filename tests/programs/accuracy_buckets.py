"""An evaluation that counts correct predictions and bins the predicted classes, as
0.3 scripts did: a reduction of a tensor was a Python number, and dividing an
integer tensor truncated."""
# needs: TV001 TV003 TV143 TV144
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Linear(4, 6)
data = torch.randn(32, 4)
target = (data[:, 0] * 3).abs().long().clamp(max=5)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
for step in range(3):
    x, y = Variable(data), Variable(target)
    loss = crit(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print('step %d loss %.4f' % (step, loss.data[0]))

correct = 0
output = model(Variable(data))
_, pred = torch.max(output.data, 1)
correct += pred.eq(target).sum()
bins = pred / 2
print('correct', correct)
print('accuracy %.3f' % (100. * correct / len(target)))
print('bins', bins.tolist())
