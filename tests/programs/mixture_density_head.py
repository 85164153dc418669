"""A Sketch-RNN-style mixture-density head of 2017 (written for PyTorch 0.1.12,
run on 0.3), reduced: a linear layer gives, for every step, the parameters of
``M`` bivariate Gaussians and of the pen state; ``torch.split`` cuts them into
2-D pieces, ``torch.stack`` of all but the last makes an ``(M, N, 6)`` tensor,
and a second ``torch.split`` along its last dimension gives ``(M, N, 1)``
pieces, each turned into ``(N, M)`` with ``.t().squeeze()``.

0.1.12's ``Variable.t()`` swapped dims 0 and 1 of a 3-D tensor; from 0.2 on it
raises.  The mixture weights are a softmax without ``dim`` of a squeezed
tensor: 2-D while training, 1-D when one step of one sketch is sampled, so
torch's implicit choice was the last dimension in both.
"""
# needs: TV001 TV003 TV123 TV153
# flags: --unsafe-fixes
# before-error: t() expects a tensor with <= 2 dimensions, but self is 3D
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

HIDDEN = 8
M = 3  # mixture components


class MixtureHead(nn.Module):
    def __init__(self):
        super(MixtureHead, self).__init__()
        self.fc_params = nn.Linear(HIDDEN, 6 * M + 3)

    def forward(self, hidden, steps):
        y = self.fc_params(hidden.view(-1, HIDDEN))
        params = torch.split(y, 6, 1)
        params_mixture = torch.stack(params[:-1])  # (M, N, 6)
        params_pen = params[-1]  # (N, 3)
        pi, mu_x, mu_y, sigma_x, sigma_y, rho_xy = torch.split(params_mixture, 1, 2)
        pi = F.softmax(pi.t().squeeze()).view(steps, -1, M)
        sigma_x = torch.exp(sigma_x.t().squeeze()).view(steps, -1, M)
        mu_x = mu_x.t().squeeze().contiguous().view(steps, -1, M)
        q = F.softmax(params_pen).view(steps, -1, 3)
        return pi, mu_x, sigma_x, q


def mixture_loss(pi, mu_x, sigma_x, q, dx, pen):
    normal = torch.exp(-0.5 * ((dx - mu_x) / sigma_x) ** 2) / sigma_x
    lr = -torch.log(torch.sum(pi * normal, 2) + 1e-5).mean()
    lp = -torch.sum(pen * torch.log(q + 1e-5)) / pen.size(0)
    return lr + lp


def main():
    torch.manual_seed(0)
    head = MixtureHead()
    optimizer = torch.optim.SGD(head.parameters(), lr=0.05)
    steps, batch = 5, 4
    hidden = Variable(torch.randn(steps, batch, HIDDEN))
    dx = Variable(torch.randn(steps, batch, 1))
    pen = Variable(torch.zeros(steps, batch, 3))
    pen[:, :, 0] = 1
    for i in range(4):
        optimizer.zero_grad()
        pi, mu_x, sigma_x, q = head(hidden, steps)
        loss = mixture_loss(pi, mu_x, sigma_x, q, dx, pen)
        loss.backward()
        optimizer.step()
        print('step %d loss %.6f' % (i, loss.data[0]))
    # sampling: one step of one sketch
    pi, mu_x, sigma_x, q = head(Variable(torch.randn(1, 1, HIDDEN)), 1)
    print('sample pi', ' '.join('%.4f' % p for p in pi.data.view(-1).tolist()))
    print('sample mu', ' '.join('%.4f' % m for m in mu_x.data.view(-1).tolist()))
    print('sample pen', ' '.join('%.4f' % p for p in q.data.view(-1).tolist()))


if __name__ == '__main__':
    main()
