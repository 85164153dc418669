"""A 2017 hand-written gradient clipping: the squared norm summed over the
parameters with Python's sum of torch.sum reductions, read with .data[0]."""
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(4, 2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
for step in range(4):
    x = torch.randn(8, 4)
    y = torch.randn(8, 2)
    loss = ((net(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    squared = sum(torch.sum(p.grad ** 2) for p in net.parameters())
    norm = squared.item() ** 0.5
    if norm > 1.0:
        for p in net.parameters():
            p.grad.mul_(1.0 / norm)
    optimizer.step()
    print('step %d loss %.5f norm %.5f' % (step, loss.item(), norm))
