"""Migrated copy of ../init_through_data.py: in-place nn.init functions on the parameter."""
import torch
import torch.nn as nn
from torch.nn import init

torch.manual_seed(0)
layer = nn.Linear(4, 3)
init.xavier_uniform_(layer.weight)
out = layer(torch.ones(2, 4)).sum()
out.backward()
print("%.6f %.6f" % (layer.weight.grad.sum().item(), out.item()))
layer.weight.grad.zero_()
print("%.6f" % layer.weight.grad.abs().sum().item())
