"""A model module in the shape of a 2017 tutorial: scripts take everything with ``*``."""
import torch
import torch.nn as nn
from torch.autograd import Variable


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)


def make_batch(n):
    x = Variable(torch.randn(n, 4))
    y = Variable(x.data.sum(1, keepdim=True))
    return x, y
