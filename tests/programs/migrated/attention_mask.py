"""attention_mask.py as written for PyTorch 2.13 by hand."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
lengths = [3, 5, 2]
encoder = nn.Linear(4, 6)
query = nn.Linear(6, 1)
inputs = torch.randn(3, 5, 4)
mask = torch.zeros(3, 5, dtype=torch.bool)
for i, n in enumerate(lengths):
    mask[i, n:] = True
for step in range(2):
    keys = torch.tanh(encoder(inputs))
    scores = query(keys).view(3, 5)
    with torch.no_grad():
        scores.masked_fill_(mask, -1e9)
    weights = F.softmax(scores, dim=1)
    context = (weights.unsqueeze(2) * keys).sum(1)
    print("%d %.5f %.5f" % (step, weights[0, 2].item(), context.abs().sum().item()))
    inputs = inputs * 0.5
