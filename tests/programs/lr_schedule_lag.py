"""A PyTorch 0.3 training loop that steps its ExponentialLR scheduler after each
epoch's training: 0.3's scheduler started one call behind (its constructor left
``last_epoch`` at -1), today's does not, so every rate now comes an epoch early
and every number after the first epoch differs, without a warning."""
# needs: TV001 TV163
# flags: --unsafe-fixes
# before-silent: the second epoch runs at half the rate 0.3 used
import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.optim.lr_scheduler import ExponentialLR

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
scheduler = ExponentialLR(optimizer, gamma=0.5)
x = Variable(torch.randn(8, 3))
y = Variable(torch.randn(8, 1))
for epoch in range(4):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('epoch %d lr %.4f loss %.6f' % (epoch, optimizer.param_groups[0]['lr'], loss.data.sum()))
    scheduler.step()
