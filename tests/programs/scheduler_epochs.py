"""A 2017 training script that gives its schedulers the epoch, as 0.3 allowed: one steps at the end of each epoch, the other at its top, as 0.3's examples did. PyTorch 2.13 warns for the epoch argument (and for the order), and a bare `step()` in its place would run every change of the rate an epoch early."""
# needs: TV001 TV130 TV151
# flags: --unsafe-fixes
# before-warning: The epoch parameter in `scheduler.step()` was not necessary
import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.optim.lr_scheduler import ExponentialLR, MultiStepLR


def data():
    weights = torch.Tensor([[1.5], [-0.5], [0.75]])
    batches = []
    for _ in range(3):
        inputs = torch.randn(16, 3)
        batches.append((inputs, inputs.mm(weights) + 0.1))
    return batches


def train(net, optimizer, batches):
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = ((net(Variable(inputs)) - Variable(targets)) ** 2).mean()
        loss.backward()
        optimizer.step()
    return loss.data.sum()


def fit(epochs):
    torch.manual_seed(1)
    net = nn.Linear(3, 1)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.5)
    scheduler = MultiStepLR(sgd, milestones=[2, 4], gamma=0.5)
    batches = data()
    for epoch in range(epochs):
        loss = train(net, sgd, batches)
        print("fit epoch %d lr %.5f loss %.6f" % (epoch, sgd.param_groups[0]['lr'], loss))
        scheduler.step(epoch)


def warm_up(epochs):
    torch.manual_seed(2)
    net = nn.Linear(3, 1)
    sgd = torch.optim.SGD(net.parameters(), lr=0.2)
    decay = ExponentialLR(sgd, gamma=0.7)
    batches = data()
    for epoch in range(epochs):
        decay.step(epoch)
        loss = train(net, sgd, batches)
        print("warm epoch %d lr %.5f loss %.6f" % (epoch, sgd.param_groups[0]['lr'], loss))


fit(6)
warm_up(4)
