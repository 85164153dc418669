"""A classifier evaluated in the shape of the 0.3 ImageNet example: a top-k accuracy
helper that appends its reductions to a list, read back with prec1[0] into an
AverageMeter, and the loss read with loss.data[0]; correct[:k].view(-1) stops on 2.13
for k > 1, since eq keeps the transposed strides (0.3's result was contiguous)."""
# needs: TV001 TV002 TV003 TV115
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


class AverageMeter(object):
    """Computes and stores the average and current value"""
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    """Computes the precision@k for the specified values of k"""
    maxk = max(topk)
    batch_size = target.size(0)

    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))

    res = []
    for k in topk:
        correct_k = correct[:k].view(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 8))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
train_x = torch.randn(64, 10)
train_y = (train_x[:, :8].abs().max(1)[1] + (train_x[:, 9] > 1).long()) % 8
val_x = torch.randn(48, 10)
val_y = (val_x[:, :8].abs().max(1)[1] + (val_x[:, 9] > 1).long()) % 8


def fit_epoch(epoch):
    losses = AverageMeter()
    top1 = AverageMeter()
    model.train()
    for i in range(0, len(train_x), 16):
        input, target = train_x[i:i + 16], train_y[i:i + 16]
        input_var = Variable(input)
        target_var = Variable(target)
        output = model(input_var)
        loss = criterion(output, target_var)
        prec1 = accuracy(output.data, target, topk=(1,))[0]
        losses.update(loss.data[0], input.size(0))
        top1.update(prec1[0], input.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print('Epoch: [{0}]\tLoss {loss.avg:.3f}\tPrec@1 {top1.avg:.3f}'.format(
        epoch, loss=losses, top1=top1))


def validate():
    losses = AverageMeter()
    top1 = AverageMeter()
    top5 = AverageMeter()
    model.eval()
    for i in range(0, len(val_x), 12):
        input, target = val_x[i:i + 12], val_y[i:i + 12]
        input_var = Variable(input, volatile=True)
        target_var = Variable(target, volatile=True)
        output = model(input_var)
        loss = criterion(output, target_var)
        prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
        losses.update(loss.data[0], input.size(0))
        top1.update(prec1[0], input.size(0))
        top5.update(prec5[0], input.size(0))
        print('Test: [{0}]\tLoss {1:.3f}\tPrec@1 {2:.3f}\tPrec@5 {3:.3f}'.format(
            i // 12, losses.val, top1.val, top5.val))
    print(' * Prec@1 {top1.avg:.3f} Prec@5 {top5.avg:.3f}'.format(top1=top1, top5=top5))
    return top1.avg


for epoch in range(3):
    fit_epoch(epoch)
best = validate()
print('best {:.3f}'.format(best))
