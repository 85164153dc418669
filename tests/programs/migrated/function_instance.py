"""The script migrated by hand: the Function called through its class."""
import torch
from torch.autograd import Function


class StraightThrough(Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(-1, 1).round()

    @staticmethod
    def backward(ctx, grad):
        return grad


def quantize(x):
    return StraightThrough.apply(x)


torch.manual_seed(0)
w = torch.randn(4, 3, requires_grad=True)
x = torch.randn(5, 4)
for step in range(3):
    out = x.mm(quantize(w))
    loss = (out ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w.add_(w.grad, alpha=-0.1)
    w.grad.zero_()
    print('step %d loss %.6f' % (step, loss.item()))
