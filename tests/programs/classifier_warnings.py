"""A 0.3-style classifier: summed loss, implicit log_softmax dim, old init and clipping names."""
# needs: TV120 TV121 TV122 TV123 TV127
# before-warning: size_average and reduce args will be deprecated, please use reduction='sum'
# before-warning: Implicit dimension choice for log_softmax has been deprecated
# before-warning: `nn.init.xavier_uniform` is now deprecated in favor of `nn.init.xavier_uniform_`
# before-warning: `torch.nn.utils.clip_grad_norm` is now deprecated
# before-warning: `nn.Container` is deprecated
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torch.nn import init


class Head(nn.Container):
    def __init__(self):
        super(Head, self).__init__()
        self.conv = nn.Conv2d(1, 4, 3)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.features = Head()
        self.fc1 = nn.Linear(4 * 6 * 6, 16)
        self.fc2 = nn.Linear(16, 3)
        init.xavier_uniform(self.fc1.weight)
        init.constant(self.fc1.bias, 0.1)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.features.conv(x), 2))
        x = x.view(-1, 4 * 6 * 6)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x)


torch.manual_seed(0)
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
criterion = nn.NLLLoss(size_average=False)
images = torch.randn(8, 1, 14, 14)
labels = torch.LongTensor([0, 1, 2, 0, 1, 2, 0, 1])
for step in range(4):
    x, y = Variable(images), Variable(labels)
    optimizer.zero_grad()
    output = net(x)
    loss = criterion(output, y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm(net.parameters(), 2.0)
    optimizer.step()
    test_loss = F.nll_loss(output, y, size_average=False, reduce=False)
    print("%d %.5f %.5f %.5f" % (step, float(loss.data), float(norm), float(test_loss.data.max())))
