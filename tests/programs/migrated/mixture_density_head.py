"""The Sketch-RNN-style mixture-density head, migrated by hand to PyTorch 2.13:
``.t()`` of the 3-D pieces is ``.transpose(0, 1)`` (what 0.1.12 computed), the
softmax of the squeezed mixture weights takes the last dimension (0.3's choice
for the 2-D training batch and the 1-D sampled step alike), the pen softmax
``dim=1``, no ``Variable``, and the loss read with ``.item()``."""
import torch
import torch.nn as nn
import torch.nn.functional as F

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
        pi = F.softmax(pi.transpose(0, 1).squeeze(), dim=-1).view(steps, -1, M)
        sigma_x = torch.exp(sigma_x.transpose(0, 1).squeeze()).view(steps, -1, M)
        mu_x = mu_x.transpose(0, 1).squeeze().contiguous().view(steps, -1, M)
        q = F.softmax(params_pen, dim=1).view(steps, -1, 3)
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
    hidden = torch.randn(steps, batch, HIDDEN)
    dx = torch.randn(steps, batch, 1)
    pen = torch.zeros(steps, batch, 3)
    pen[:, :, 0] = 1
    for i in range(4):
        optimizer.zero_grad()
        pi, mu_x, sigma_x, q = head(hidden, steps)
        loss = mixture_loss(pi, mu_x, sigma_x, q, dx, pen)
        loss.backward()
        optimizer.step()
        print('step %d loss %.6f' % (i, loss.item()))
    # sampling: one step of one sketch
    pi, mu_x, sigma_x, q = head(torch.randn(1, 1, HIDDEN), 1)
    print('sample pi', ' '.join('%.4f' % p for p in pi.data.view(-1).tolist()))
    print('sample mu', ' '.join('%.4f' % m for m in mu_x.data.view(-1).tolist()))
    print('sample pen', ' '.join('%.4f' % p for p in q.data.view(-1).tolist()))


if __name__ == '__main__':
    main()
