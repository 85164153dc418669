"""A PyTorch 0.3-era training script, written for this repository as a lint target.

It shows, in the idioms of 2017 research code, every pattern flake8-torch04
reports.  Run ``flake8 --select=TV examples/`` or ``torch04 check examples/``.
"""
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
from torch.nn import init


class DenseLayer(nn.Sequential):
    def __init__(self, num_features, growth_rate):
        super(DenseLayer, self).__init__()
        self.add_module('norm_1', nn.BatchNorm2d(num_features))
        self.add_module('relu_1', nn.ReLU(inplace=True))
        self.add_module('conv_1', nn.Conv2d(num_features, growth_rate, 3, padding=1))


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.features = nn.Sequential(OrderedDict([
            ('conv_0', nn.Conv2d(1, 8, 3, padding=1)),
            ('dense_1', DenseLayer(8, 8)),
        ]))
        self.fc = nn.Linear(8 * 28 * 28, 10)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                init.normal_(m.weight, 0, 0.02)
            elif isinstance(m, nn.Linear):
                init.xavier_uniform_(m.weight)
                init.zeros_(m.bias)

    def forward(self, x):
        x = self.features(x)
        return F.log_softmax(self.fc(x.view(x.size(0), -1)), dim=1)


def to_var(x, volatile=False):
    if isinstance(x, torch.FloatTensor):
        x = x.cuda() if torch.cuda.is_available() else x
    return Variable(x, volatile=volatile)


def train(model, loader, lr=0.01, epochs=2):
    optimizer = optim.SGD(model.parameters(), lr=lr)
    criterion = nn.NLLLoss()
    for epoch in range(epochs):
        total_loss = 0
        for batch_idx, (data, target) in enumerate(loader):
            optimizer.zero_grad()
            output = model(data)
            loss = criterion(output, target)
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
            if batch_idx % 10 == 0:
                print('epoch %d loss %.4f' % (epoch, loss.item()))
        print('mean loss', total_loss / len(loader))


def sgd_step(model, lr):
    for p in model.parameters():
        with torch.no_grad():
            p.add_(p.grad, alpha=-lr)
        p.grad.zero_()


@torch.no_grad()
def evaluate(model, loader):
    correct = 0
    for data, target in loader:
        output = model(data)
        pred = output.data.max(1)[1]
        correct += pred.eq(target).sum().item()
    return correct


if __name__ == '__main__':
    images = torch.randn(64, 1, 28, 28)
    labels = (torch.rand(64) * 10).long()
    loader = [(images[i:i + 16], labels[i:i + 16]) for i in range(0, 64, 16)]
    model = Net()
    train(model, loader)
    print(evaluate(model, loader))
