"""A classifier trained for a few steps and evaluated with volatile=True inputs, as the
0.3 MNIST example did; the volatile=True fix (@torch.no_grad() on a function that only
reads the result) migrates it."""
# needs: TV001 TV002 TV003
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
# before-warning: volatile was removed and now has no effect
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(6, 12)
        self.fc2 = nn.Linear(12, 3)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        return F.log_softmax(self.fc2(x), dim=1)


data = torch.randn(48, 6)
target = (data[:, 0] > 0).long() + (data[:, 1] > 0.5).long()
train_data, train_target = data[:32], target[:32]
test_data, test_target = data[32:], target[32:]
model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.5)


def train(epoch):
    model.train()
    for batch_idx in range(4):
        x = Variable(train_data[batch_idx * 8:(batch_idx + 1) * 8])
        y = Variable(train_target[batch_idx * 8:(batch_idx + 1) * 8])
        optimizer.zero_grad()
        output = model(x)
        loss = F.nll_loss(output, y)
        loss.backward()
        optimizer.step()
        if batch_idx % 2 == 0:
            print('Train Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                epoch, batch_idx * 8, len(train_data), loss.data[0]))


def test():
    model.eval()
    test_loss = 0
    correct = 0
    for i in range(0, len(test_data), 8):
        x = Variable(test_data[i:i + 8], volatile=True)
        y = Variable(test_target[i:i + 8])
        output = model(x)
        test_loss += F.nll_loss(output, y).data[0] * len(x)
        pred = output.data.max(1)[1]
        correct += pred.eq(y.data).sum()
    test_loss /= len(test_data)
    print('Test set: Average loss: {:.4f}, Accuracy: {:.0f}%'.format(
        test_loss, 100. * correct / len(test_data)))


test()
for epoch in range(1, 3):
    train(epoch)
    test()
