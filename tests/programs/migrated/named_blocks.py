"""Migrated copy of ../named_blocks.py: block names with underscores."""
import io
from collections import OrderedDict

import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            self.add_module(f'block_{i}', nn.Linear(n_in, n_out))
        self.head = nn.Sequential(OrderedDict([
            ('relu_0', nn.ReLU()),
            ('fc_out', nn.Linear(sizes[-1], 1)),
        ]))

    def forward(self, x):
        for name, module in self.named_children():
            if name != 'head':
                x = torch.tanh(module(x))
        return self.head(x)


net = Net([3, 5, 4])
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
inputs, targets = torch.randn(10, 3), torch.randn(10, 1)
for step in range(3):
    optimizer.zero_grad()
    loss = ((net(inputs) - targets) ** 2).mean()
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.item()))

buffer = io.BytesIO()
torch.save(net.state_dict(), buffer)
buffer.seek(0)
copy = Net([3, 5, 4])
copy.load_state_dict(torch.load(buffer))
print(' '.join(sorted(copy.state_dict())))
print('same output: %s' % bool((copy(inputs) == net(inputs)).all()))
