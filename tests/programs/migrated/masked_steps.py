"""masked_steps.py as written for PyTorch 2.13 by hand."""
import torch
from torch.autograd import Function


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return 3 * x * x * grad_output


torch.manual_seed(0)
positions = torch.arange(1, 11, dtype=torch.float)
weights = positions / 10
keep = weights > 0.35
w = torch.randn(10, requires_grad=True)
exp_avg_sq = torch.zeros(10)
lr = 0.1
for step in range(3):
    loss = (Cube.apply(w[keep]) * weights[keep]).sum()
    loss.backward()
    grad = w.grad
    exp_avg_sq.mul_(0.9).addcmul_(grad, grad, value=0.1)
    with torch.no_grad():
        w.add_(grad / (exp_avg_sq.sqrt() + 1e-8), alpha=-lr)
    w.grad.zero_()
    print("%d %.5f %.5f" % (step, loss.item(), w.detach().abs().sum().item()))
signed = torch.where(keep, weights, -weights)
print("%s %.5f" % (positions.dtype, signed.sum().item()))
