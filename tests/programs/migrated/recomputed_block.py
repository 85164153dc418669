"""recomputed_block.py, migrated by hand to PyTorch 2.13."""
import torch
import torch.nn as nn
from torch.autograd import Function


def block(x, w):
    return torch.tanh(x.mm(w))


class Recomputed(Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return block(x, w)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            w = w.detach().requires_grad_()
            y = block(x, w)
            return torch.autograd.grad(y, (x, w), dy)


torch.manual_seed(0)
w = nn.Parameter(torch.randn(4, 4) * 0.5)
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD([w] + list(head.parameters()), lr=0.2)
x = torch.randn(8, 4)
target = torch.randn(8, 1)
for step in range(4):
    h = Recomputed.apply(Recomputed.apply(x, w), w)
    loss = ((head(h) - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('step %d loss %.5f' % (step, loss.item()))
print('weight %.5f' % w.sum().item())
