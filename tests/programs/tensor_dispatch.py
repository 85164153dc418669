"""Helpers written for 0.3, where a Variable and its tensor were different classes: an
initializer that unwraps Variables and recurses, a weight moved to "the input's type"
with type(x.data), and a mask selection tested for emptiness with dim() == 0."""
# needs: TV001 TV140 TV141 TV142
# flags: --unsafe-fixes
# before-error: RecursionError
# hand-edit: if isinstance(tensor, Variable): => if tensor.requires_grad:
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


def fill_blocks_(tensor, value):
    """Fills the top half of a weight with value and the bottom half with -2 * value."""
    if isinstance(tensor, Variable):
        fill_blocks_(tensor.data, value)
        return tensor
    rows = tensor.size(0) // 2
    tensor[:rows].fill_(value)
    tensor[rows:].fill_(-2 * value)
    return tensor


def above(scores, threshold):
    mask = scores.gt(threshold)
    kept = scores[mask]
    if kept.dim() == 0:
        return None
    return kept


layer = nn.Linear(3, 4, bias=False)
fill_blocks_(layer.weight, 0.5)
x = Variable(torch.randn(5, 3).double())
weight = layer.weight.type(type(x.data))
out = x.mm(weight.t())
print("out %s sum %.6f" % (out.data.type(), out.data.sum()))
for threshold in (0.0, 0.5, 5.0):
    kept = above(out.data.view(-1), threshold)
    if kept is None:
        print("above %.1f: none" % threshold)
    else:
        print("above %.1f: %d, sum %.6f" % (threshold, kept.numel(), kept.sum()))
