"""Migrated copy of ../dotted_uses.py: names with underscores, everywhere they are used."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.depth = depth
        for i in range(depth):
            self.add_module(f'conv_{i}', nn.Linear(3, 3))
        self.register_buffer('running_mean', torch.zeros(3))

    def forward(self, x):
        for i in range(self.depth):
            x = torch.tanh(getattr(self, f'conv_{i}')(x))
        if self.training:
            with torch.no_grad():
                self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))
        return x - self.running_mean


net = Net(2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
inputs = torch.randn(6, 3)
for step in range(3):
    optimizer.zero_grad()
    loss = (net(inputs) ** 2).mean()
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.item()))
state = net.state_dict()
print('mean %s' % ' '.join('%.4f' % v for v in state['running_mean']))
state['conv_1.bias'] = torch.zeros(3)
copy = Net(2)
copy.load_state_dict(state)
print(' '.join(sorted(copy.state_dict())))
print('bias %.4f' % copy.conv_1.bias.detach().abs().sum())
