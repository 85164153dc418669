"""A two-head model whose loss is summed over heads and backpropagated once (not a leak),
with a per-epoch total accumulated from each step's loss (a leak), read through .data[0]."""
# needs: TV001 TV003
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)


class TwoHeads(nn.Module):
    def __init__(self):
        super(TwoHeads, self).__init__()
        self.trunk = nn.Linear(5, 8)
        self.heads = nn.ModuleList([nn.Linear(8, 3), nn.Linear(8, 2)])

    def forward(self, x):
        h = F.relu(self.trunk(x))
        return [head(h) for head in self.heads]


model = TwoHeads()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
x_all = torch.randn(20, 5)
y_all = [(x_all[:, 0] > 0).long() + (x_all[:, 1] > 0).long(), (x_all[:, 2] > 0).long()]

for epoch in range(3):
    epoch_loss = 0
    for i in range(0, 20, 5):
        x = Variable(x_all[i:i + 5])
        ys = [Variable(y[i:i + 5]) for y in y_all]
        optimizer.zero_grad()
        loss = 0
        for out, y in zip(model(x), ys):
            loss += criterion(out, y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss
    print('epoch %d last %.5f mean %.5f' % (epoch, loss.data[0], epoch_loss / 4))
