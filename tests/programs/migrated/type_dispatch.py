"""Migrated copy of ../type_dispatch.py: isinstance instead of comparing type()."""
import torch

x = torch.ones(2)
if isinstance(x, torch.FloatTensor):
    print("float tensor")
else:
    print("something else")
