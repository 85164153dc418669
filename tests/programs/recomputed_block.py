"""A 2017 memory-saving block: a Function that keeps only its inputs and, in
``backward``, rebuilds its forward pass and differentiates it with
``torch.autograd.grad``.  0.3 recorded the rebuilt graph; since 0.4 a Function's
backward runs without grad mode and the gradient call raises."""
# needs: TV001 TV003 TV127 TV173
# before-error: RuntimeError: element 0 of tensors does not require grad
import torch
import torch.nn as nn
from torch.autograd import Function, Variable


def block(x, w):
    return torch.tanh(x.mm(w))


class Recomputed(Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return block(x, w)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_variables
        x = Variable(x.data, requires_grad=True)
        w = Variable(w.data, requires_grad=True)
        y = block(x, w)
        return torch.autograd.grad(y, (x, w), dy)


torch.manual_seed(0)
w = nn.Parameter(torch.randn(4, 4) * 0.5)
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD([w] + list(head.parameters()), lr=0.2)
x = Variable(torch.randn(8, 4))
target = Variable(torch.randn(8, 1))
for step in range(4):
    h = Recomputed.apply(Recomputed.apply(x, w), w)
    loss = ((head(h) - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('step %d loss %.5f' % (step, loss.data[0]))
print('weight %.5f' % w.data.sum())
