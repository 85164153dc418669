"""A 2017 binarized layer (XNOR-Net style): the weights are clamped, binarized for
the forward pass, and their gradient scaled by a per-filter mean expanded to the
weight's shape, with the out-of-range entries masked in that expanded tensor."""
# needs: TV001 TV003 TV150
# flags: --unsafe-fixes
# before-warning: Use of index_put_ on expanded tensors is deprecated
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
conv = nn.Conv2d(2, 3, 2, bias=False)
optimizer = torch.optim.SGD(conv.parameters(), lr=0.05)
for step in range(3):
    w = conv.weight.data
    w.clamp_(-1.0, 1.0)
    real = w.clone()
    n = w[0].nelement()
    alpha = w.abs().sum(3, keepdim=True).sum(2, keepdim=True).sum(1, keepdim=True).div(n)
    w.copy_(w.sign() * alpha.expand(w.size()))
    x = Variable(torch.randn(4, 2, 5, 5))
    loss = conv(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    w.copy_(real)
    m = alpha.expand(w.size())
    m[w.lt(-1.0)] = 0
    m[w.gt(1.0)] = 0
    conv.weight.grad.mul_(m + 1.0 / n)
    optimizer.step()
    print('step %d loss %.5f' % (step, loss.data[0]))
