"""Blocks named with dots and read back by name: getattr in forward, a buffer
through _buffers, a state_dict key, and a checkpoint written by hand."""
# needs: TV001 TV003 TV006
# flags: --unsafe-fixes
# before-error: KeyError: 'module name can\'t contain ".", got: conv.0'
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, depth):
        super(Net, self).__init__()
        self.depth = depth
        for i in range(depth):
            self.add_module('conv.%d' % i, nn.Linear(3, 3))
        self.register_buffer('running.mean', torch.zeros(3))

    def forward(self, x):
        for i in range(self.depth):
            x = torch.tanh(getattr(self, 'conv.%d' % i)(x))
        if self.training:
            self._buffers['running.mean'].mul_(0.9).add_(0.1 * x.data.mean(0))
        return x - self._buffers['running.mean']


net = Net(2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
inputs = Variable(torch.randn(6, 3))
for step in range(3):
    optimizer.zero_grad()
    loss = (net(inputs) ** 2).mean()
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.data[0]))
state = net.state_dict()
print('mean %s' % ' '.join('%.4f' % v for v in state['running.mean']))
state['conv.1.bias'] = torch.zeros(3)
copy = Net(2)
copy.load_state_dict(state)
print(' '.join(sorted(copy.state_dict())))
print('bias %.4f' % copy._modules['conv.1'].bias.data.abs().sum())
