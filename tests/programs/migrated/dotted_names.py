"""Migrated copy of ../dotted_names.py: submodule names without dots."""
import torch.nn as nn

net = nn.Sequential()
net.add_module("conv_1", nn.Linear(2, 2))
print(sorted(net.state_dict()))
