"""Migrated copy of ../tensor_dispatch.py: requires_grad instead of isinstance(x, Variable),
type_as, and numel() == 0 for an empty selection."""
import torch
import torch.nn as nn

torch.manual_seed(0)


def fill_blocks_(tensor, value):
    """Fills the top half of a weight with value and the bottom half with -2 * value."""
    if tensor.requires_grad:
        fill_blocks_(tensor.data, value)
        return tensor
    rows = tensor.size(0) // 2
    tensor[:rows].fill_(value)
    tensor[rows:].fill_(-2 * value)
    return tensor


def above(scores, threshold):
    mask = scores.gt(threshold)
    kept = scores[mask]
    if kept.numel() == 0:
        return None
    return kept


layer = nn.Linear(3, 4, bias=False)
fill_blocks_(layer.weight, 0.5)
x = torch.randn(5, 3).double()
weight = layer.weight.type_as(x)
out = x.mm(weight.t())
print("out %s sum %.6f" % (out.detach().type(), out.detach().sum()))
for threshold in (0.0, 0.5, 5.0):
    kept = above(out.detach().view(-1), threshold)
    if kept is None:
        print("above %.1f: none" % threshold)
    else:
        print("above %.1f: %d, sum %.6f" % (threshold, kept.numel(), kept.sum()))
