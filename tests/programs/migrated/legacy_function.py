"""Migrated copy of ../legacy_function.py: a static-method Function called through .apply."""
import torch
import torch.nn as nn
from torch.autograd import Function


class LeakyClip(Function):
    @staticmethod
    def forward(ctx, x, bound, slope=0.1):
        ctx.save_for_backward(x)
        ctx.bound, ctx.slope = bound, slope
        return x.clamp(-bound, bound) + slope * (x - x.clamp(-bound, bound))

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        inside = (x.abs() <= ctx.bound).float()
        return grad_output * (inside + ctx.slope * (1 - inside)), None, None


torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.randn(16, 4)
targets = torch.randn(16, 1)
for step in range(3):
    optimizer.zero_grad()
    out = LeakyClip.apply(model(inputs), 0.5)
    loss = ((out - targets) ** 2).mean()
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.item()))
