"""Migrated copy of ../tensor_utils.py: isinstance and x.type() instead of type(x)."""
import torch
import torch.nn as nn

torch.manual_seed(0)


def to_list(x):
    if isinstance(x, torch.Tensor):
        x = x.detach()
    return [round(v, 4) for v in x.view(-1).tolist()]


def kind(x):
    if isinstance(x, (torch.FloatTensor, torch.DoubleTensor)):
        return 'float'
    elif isinstance(x, torch.LongTensor):
        return 'long'
    return 'other'


def describe(x):
    if x.type() == 'torch.FloatTensor':
        return 'FloatTensor of %d' % x.numel()
    return 'a %s' % type(x).__name__


model = nn.Linear(3, 2)
x = torch.randn(4, 3)
out = model(x)
loss = out.pow(2).mean()
loss.backward()
print('loss %.6f' % loss.item())
print('out is', kind(out.detach()), describe(out.detach()))
print('index is', kind(torch.tensor([1, 2])))
print('grad', to_list(model.bias.grad))
