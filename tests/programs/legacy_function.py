"""An old-style autograd Function with state in __init__, called as Fn(args)(x) in a training loop."""
# needs: TV001 TV003 TV104
# flags: --unsafe-fixes
# before-error: Legacy autograd function with non-static forward method is deprecated
import torch
import torch.nn as nn
from torch.autograd import Function, Variable


class LeakyClip(Function):
    def __init__(self, bound, slope=0.1):
        super(LeakyClip, self).__init__()
        self.bound = bound
        self.slope = slope

    def forward(self, x):
        self.save_for_backward(x)
        return x.clamp(-self.bound, self.bound) + self.slope * (x - x.clamp(-self.bound, self.bound))

    def backward(self, grad_output):
        x, = self.saved_tensors
        inside = (x.abs() <= self.bound).float()
        return grad_output * (inside + self.slope * (1 - inside))


torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.randn(16, 4)
targets = torch.randn(16, 1)
for step in range(3):
    optimizer.zero_grad()
    out = LeakyClip(0.5)(model(Variable(inputs)))
    loss = ((out - Variable(targets)) ** 2).mean()
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.data[0]))
