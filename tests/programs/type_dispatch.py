"""Dispatching on type(x) == torch.FloatTensor, silently false since 0.4."""
# needs: TV005
# flags: --unsafe-fixes
# after-stdout: float tensor
import torch

x = torch.ones(2)
if type(x) == torch.FloatTensor:
    print("float tensor")
else:
    print("something else")
