"""A hand-written 0.3-style optimizer step over a byte-masked weight vector:
torch.range, byte masks, the scalar-first add_/addcmul_ overloads, saved_variables.
(PyTorch warns once per process for the scalar-first overloads: only addcmul_ is seen.)"""
# needs: TV004 TV125 TV126 TV127 TV129
# flags: --unsafe-fixes
# before-warning: torch.range is deprecated
# before-warning: indexing with dtype torch.uint8 is now deprecated
# before-warning: where received a uint8 condition tensor
# before-warning: This overload of addcmul_ is deprecated
# before-warning: 'saved_variables' is deprecated; use 'saved_tensors'
import torch
from torch.autograd import Function, Variable


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_variables
        return 3 * x * x * grad_output


torch.manual_seed(0)
positions = torch.range(1, 10)
weights = positions / 10
keep = (weights > 0.35).byte()
w = Variable(torch.randn(10), requires_grad=True)
exp_avg_sq = torch.zeros(10)
lr = 0.1
for step in range(3):
    loss = (Cube.apply(w[keep]) * weights[keep]).sum()
    loss.backward()
    grad = w.grad.data
    exp_avg_sq.mul_(0.9).addcmul_(0.1, grad, grad)
    w.data.add_(-lr, grad / (exp_avg_sq.sqrt() + 1e-8))
    w.grad.data.zero_()
    print("%d %.5f %.5f" % (step, float(loss.data), float(w.data.abs().sum())))
signed = torch.where(keep, weights, -weights)
print("%s %.5f" % (positions.dtype, float(signed.sum())))
