"""Submodules named with dots, rejected since 0.4."""
# needs: TV006
# flags: --unsafe-fixes
# before-error: KeyError: 'module name can\'t contain ".", got: conv.1'
import torch.nn as nn

net = nn.Sequential()
net.add_module("conv.1", nn.Linear(2, 2))
print(sorted(net.state_dict()))
