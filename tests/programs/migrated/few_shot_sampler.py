"""The few-shot script migrated by hand: numpy reads the tensors as arrays, the
loss is a number, and the scheduler's first step is skipped, so the rates are
0.3's."""
import numpy as np
import torch
import torch.nn as nn


class ClassSampler(object):
    def __init__(self, labels, n_classes, per_class):
        self.classes = torch.LongTensor(np.arange(n_classes))
        slots = np.empty((n_classes, per_class)) * np.nan
        self.slots = torch.Tensor(slots)
        for idx, label in enumerate(labels):
            row = np.argwhere((self.classes == label).numpy())[0, 0]
            free = np.where(np.isnan(self.slots[row].numpy()))[0][0]
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
            out = model(data[picked])
            loss = ((out - target[picked]) ** 2).mean()
            loss.backward()
            optim.step()
            total += loss.item()
        print('epoch %d lr %.3f loss %.6f' % (epoch, optim.param_groups[0]['lr'], total))
        if epoch > 0:
            scheduler.step()


def main():
    torch.manual_seed(0)
    labels = [0, 1, 0, 1, 1, 0]
    sampler = ClassSampler(labels, 2, 3)
    print('slots', np.array(sampler.slots.numpy()).astype(int).tolist())
    data = torch.randn(6, 4)
    target = torch.randn(6, 1)
    model = nn.Linear(4, 1)
    optim = init_optim(model)
    train(model, optim, init_scheduler(optim), data, target, sampler, 4)


main()
