"""classifier_warnings.py as written for PyTorch 2.13 by hand."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import init


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = Head()
        self.fc1 = nn.Linear(4 * 6 * 6, 16)
        self.fc2 = nn.Linear(16, 3)
        init.xavier_uniform_(self.fc1.weight)
        init.constant_(self.fc1.bias, 0.1)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.features.conv(x), 2))
        x = x.view(-1, 4 * 6 * 6)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


torch.manual_seed(0)
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
criterion = nn.NLLLoss(reduction="sum")
images = torch.randn(8, 1, 14, 14)
labels = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
for step in range(4):
    x, y = images, labels
    optimizer.zero_grad()
    output = net(x)
    loss = criterion(output, y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(net.parameters(), 2.0)
    optimizer.step()
    test_loss = F.nll_loss(output, y, reduction="none")
    print("%d %.5f %.5f %.5f" % (step, loss.item(), norm.item(), test_loss.max().item()))
