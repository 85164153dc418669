"""Initialising parameters through .data with the old nn.init names."""
# needs: TV004
# before-warning: `nn.init.xavier_uniform` is now deprecated in favor of `nn.init.xavier_uniform_`
import torch
import torch.nn as nn
from torch.nn import init

torch.manual_seed(0)
layer = nn.Linear(4, 3)
init.xavier_uniform(layer.weight.data)
out = layer(torch.ones(2, 4)).sum()
out.backward()
print("%.6f %.6f" % (layer.weight.grad.sum().item(), out.item()))
layer.weight.grad.data.zero_()
print("%.6f" % layer.weight.grad.abs().sum().item())
