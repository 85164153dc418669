"""Per-sample losses weighted by hand: reduce=False, the first sample's loss read with .data[0]
(the first element of a vector on 2.13 too: only the mean's .data[0] breaks)."""
# needs: TV001 TV003 TV120
# flags: --unsafe-fixes
# before-warning: size_average and reduce args will be deprecated
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


class Weighted(nn.Module):
    def __init__(self):
        super(Weighted, self).__init__()
        self.fc = nn.Linear(4, 3)
        self.criterion = nn.CrossEntropyLoss(reduce=False)

    def forward(self, x, y, w):
        sample_loss = self.criterion(self.fc(x), y)
        return sample_loss, (sample_loss * w).mean()


model = Weighted()
criterion = nn.CrossEntropyLoss(reduce=False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(8, 4)
targets = torch.LongTensor([0, 1, 2, 0, 1, 2, 0, 1])
weights = torch.linspace(0.5, 1.5, 8)
for step in range(3):
    x, y = Variable(inputs), Variable(targets)
    optimizer.zero_grad()
    sample_loss, loss = model(x, y, Variable(weights))
    loss.backward()
    optimizer.step()
    print('step %d first sample %.6f loss %.6f' % (step, sample_loss.data[0], loss.data[0]))
unweighted = criterion(model.fc(Variable(inputs)), Variable(targets))
print('last sample %.6f' % unweighted.data[-1])
print('first sample %.6f' % unweighted.data[0])
