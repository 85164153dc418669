"""Helpers that dispatch on type(x), as 0.3 utility modules did: silently wrong since 0.4,
when every tensor's type is torch.Tensor."""
# needs: TV001 TV003 TV005
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
# hand-edit: type(x).__name__ == 'FloatTensor' => x.type().endswith('.FloatTensor')
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


def to_list(x):
    if type(x) == Variable:
        x = x.data
    return [round(v, 4) for v in x.view(-1).tolist()]


def kind(x):
    if type(x) in (torch.FloatTensor, torch.DoubleTensor):
        return 'float'
    elif type(x) == torch.LongTensor:
        return 'long'
    return 'other'


def describe(x):
    if type(x).__name__ == 'FloatTensor':
        return 'FloatTensor of %d' % x.numel()
    return 'a %s' % type(x).__name__


model = nn.Linear(3, 2)
x = Variable(torch.randn(4, 3))
out = model(x)
loss = out.pow(2).mean()
loss.backward()
print('loss %.6f' % loss.data[0])
print('out is', kind(out.data), describe(out.data))
print('index is', kind(torch.LongTensor([1, 2])))
print('grad', to_list(model.bias.grad))
