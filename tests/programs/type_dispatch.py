"""Dispatching on type(x) == torch.FloatTensor, silently false since 0.4."""
# needs: TV005
# flags: --unsafe-fixes
# before-silent: type(x) is torch.Tensor since 0.4, so the FloatTensor branch never runs
import torch

x = torch.ones(2)
if type(x) == torch.FloatTensor:
    print("float tensor")
else:
    print("something else")
