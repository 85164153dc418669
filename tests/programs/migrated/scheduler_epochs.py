"""Migrated copy of ../scheduler_epochs.py: each scheduler steps with no epoch from the second epoch on, which keeps `last_epoch` and the rate where 0.3's `step(epoch)` put them."""
import torch
import torch.nn as nn
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
        loss = ((net(inputs) - targets) ** 2).mean()
        loss.backward()
        optimizer.step()
    return loss.item()


def fit(epochs):
    torch.manual_seed(1)
    net = nn.Linear(3, 1)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.5)
    scheduler = MultiStepLR(sgd, milestones=[2, 4], gamma=0.5)
    batches = data()
    for epoch in range(epochs):
        loss = train(net, sgd, batches)
        print("fit epoch %d lr %.5f loss %.6f" % (epoch, sgd.param_groups[0]['lr'], loss))
        if epoch > 0:
            scheduler.step()


def warm_up(epochs):
    torch.manual_seed(2)
    net = nn.Linear(3, 1)
    sgd = torch.optim.SGD(net.parameters(), lr=0.2)
    decay = ExponentialLR(sgd, gamma=0.7)
    batches = data()
    for epoch in range(epochs):
        if epoch > 0:
            decay.step()
        loss = train(net, sgd, batches)
        print("warm epoch %d lr %.5f loss %.6f" % (epoch, sgd.param_groups[0]['lr'], loss))


fit(6)
warm_up(4)
