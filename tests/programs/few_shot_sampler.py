"""A PyTorch 0.3 few-shot training script: a batch sampler keeps each class's
example indices in a NaN-padded tensor and asks numpy for the free slots
(``np.isnan`` of a tensor row: numpy 2 warns), and ``train`` gets its optimizer
and StepLR scheduler from ``main`` and steps the scheduler after each epoch
(0.3's schedule ran one epoch behind: today's comes an epoch early)."""
# needs: TV001 TV003 TV163 TV164
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
# before-warning: __array_wrap__ must accept context
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable


class ClassSampler(object):
    def __init__(self, labels, n_classes, per_class):
        self.classes = torch.LongTensor(np.arange(n_classes))
        slots = np.empty((n_classes, per_class)) * np.nan
        self.slots = torch.Tensor(slots)
        for idx, label in enumerate(labels):
            row = np.argwhere(self.classes == label)[0, 0]
            free = np.where(np.isnan(self.slots[row]))[0][0]
            self.slots[row, free] = idx

    def batch(self, row):
        return self.slots[row].long()


def init_optim(model):
    return torch.optim.SGD(model.parameters(), lr=0.4)


def init_scheduler(optim):
    return torch.optim.lr_scheduler.StepLR(optimizer=optim, step_size=1, gamma=0.5)


def train(model, optim, scheduler, data, target, sampler, epochs):
    for epoch in range(epochs):
        total = 0.0
        for row in range(2):
            picked = sampler.batch(row)
            optim.zero_grad()
            out = model(Variable(data[picked]))
            loss = ((out - Variable(target[picked])) ** 2).mean()
            loss.backward()
            optim.step()
            total += loss.data[0]
        print('epoch %d lr %.3f loss %.6f' % (epoch, optim.param_groups[0]['lr'], total))
        scheduler.step()


def main():
    torch.manual_seed(0)
    labels = [0, 1, 0, 1, 1, 0]
    sampler = ClassSampler(labels, 2, 3)
    print('slots', np.array(sampler.slots).astype(int).tolist())
    data = torch.randn(6, 4)
    target = torch.randn(6, 1)
    model = nn.Linear(4, 1)
    optim = init_optim(model)
    train(model, optim, init_scheduler(optim), data, target, sampler, 4)


main()
