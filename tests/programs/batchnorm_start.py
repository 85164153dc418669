"""A PyTorch 0.3 convolutional classifier with batch normalization, trained a few
steps from a fixed seed.  On 0.3 each ``BatchNorm2d`` drew its weight from
U(0, 1) when it was built; since 1.0 it starts at ones and draws nothing, so the
same seed gives other weights (and the linear layer built after them other
random numbers): other losses, with no warning.  (TV157 is off by default: this
program selects it, as a user who wants 0.3's numbers does.)"""
# needs: TV001 TV003 TV157
# flags: --unsafe-fixes --extend-select TV157
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)  # (the second block)
        self.fc = nn.Linear(8 * 2 * 2, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(x.view(x.size(0), -1))


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
images = torch.randn(6, 1, 8, 8)
labels = torch.LongTensor([0, 1, 2, 0, 1, 2])
for step in range(4):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(Variable(images)), Variable(labels))
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.data[0]))
