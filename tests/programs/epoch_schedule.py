"""A 2017 training script whose epoch function takes the optimizer as a parameter and whose loop steps the learning-rate schedule first, as 0.3's examples did: PyTorch 2.13 warns and runs the schedule one epoch ahead (and `.data[0]` of the loss stops it)."""
# needs: TV001 TV003 TV130
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.optim import lr_scheduler


def fit_one_epoch(net, batches, optimizer):
    total = 0.0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = ((net(Variable(inputs)) - Variable(targets)) ** 2).mean()
        loss.backward()
        optimizer.step()
        total += loss.data[0]
    return total / len(batches), optimizer.param_groups[0]['lr']


def fit(epochs):
    torch.manual_seed(3)
    net = nn.Linear(4, 1)
    weights = torch.Tensor([[0.5], [-1.0], [2.0], [0.25]])
    batches = []
    for _ in range(4):
        inputs = torch.randn(8, 4)
        batches.append((inputs, inputs.mm(weights)))
    sgd = torch.optim.SGD(net.parameters(), lr=0.2)
    schedule = lr_scheduler.StepLR(sgd, step_size=2, gamma=0.5)
    for epoch in range(epochs):
        schedule.step()
        loss, lr = fit_one_epoch(net=net, batches=batches, optimizer=sgd)
        print("epoch %d lr %.4f loss %.6f" % (epoch, lr, loss))


fit(5)
