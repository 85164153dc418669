"""Migrated copy of ../volatile_flags.py: no volatile; grad mode read from torch."""
import torch

torch.manual_seed(0)
w = torch.randn(3, 2, requires_grad=True)
x = torch.ones(4, 3)
out = x.mm(w)
if not torch.is_grad_enabled():
    print("no graph")
else:
    print("graph")
out.sum().backward()
print("grad %.6f" % w.grad.sum().item())
