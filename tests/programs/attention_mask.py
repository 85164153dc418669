"""0.3-style attention over padded sequences: a byte mask built by hand for
masked_fill_, which stops on PyTorch 2.13, and softmax over a 2-D score matrix."""
# needs: TV129 TV123
# before-error: masked_fill_ only supports boolean masks
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
lengths = [3, 5, 2]
encoder = nn.Linear(4, 6)
query = nn.Linear(6, 1)
inputs = Variable(torch.randn(3, 5, 4))
mask = torch.ByteTensor(3, 5).zero_()
for i, n in enumerate(lengths):
    mask[i, n:] = 1
for step in range(2):
    keys = torch.tanh(encoder(inputs))
    scores = query(keys).view(3, 5)
    scores.data.masked_fill_(mask, -1e9)
    weights = F.softmax(scores)
    context = (weights.unsqueeze(2) * keys).sum(1)
    print("%d %.5f %.5f" % (step, float(weights.data[0, 2]), float(context.data.abs().sum())))
    inputs = inputs * 0.5
