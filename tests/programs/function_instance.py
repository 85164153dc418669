"""A late-2017 script that moved its autograd Function to static forward and
backward but still calls it through an instance (``StraightThrough().apply(w)``): PyTorch
2.13 warns at every call that the Function should not be instantiated."""
# needs: TV001 TV003 TV004 TV126 TV165
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
# before-warning: should not be instantiated
import torch
from torch.autograd import Function, Variable


class StraightThrough(Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(-1, 1).round()

    @staticmethod
    def backward(ctx, grad):
        return grad


def quantize(x):
    return StraightThrough().apply(x)


torch.manual_seed(0)
w = Variable(torch.randn(4, 3), requires_grad=True)
x = Variable(torch.randn(5, 4))
for step in range(3):
    out = x.mm(quantize(w))
    loss = (out ** 2).mean()
    loss.backward()
    w.data.add_(-0.1, w.grad.data)
    w.grad.data.zero_()
    print('step %d loss %.6f' % (step, loss.data[0]))
