"""A 2017 sequence loss that leaves out the padding: the mask is 1 - targets.eq(PAD), a ByteTensor on PyTorch 0.3 and a bool tensor now."""
# needs: TV001 TV003 TV120 TV137
# flags: --unsafe-fixes
# before-error: Subtraction, the `-` operator, with a bool tensor is not supported
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

PAD = 0
torch.manual_seed(0)
targets = Variable(torch.LongTensor([[4, 2, 7, 0, 0], [1, 3, 0, 0, 0], [5, 6, 2, 8, 1]]))
embed = nn.Embedding(10, 6)
proj = nn.Linear(6, 10)
optimizer = torch.optim.SGD(list(embed.parameters()) + list(proj.parameters()), lr=0.5)
inputs = Variable(torch.LongTensor([[1, 4, 2, 7, 0], [1, 1, 3, 0, 0], [1, 5, 6, 2, 8]]))
for step in range(4):
    logits = proj(embed(inputs)).view(-1, 10)
    nll = F.cross_entropy(logits, targets.view(-1), reduce=False)
    mask = 1 - targets.view(-1).eq(PAD)
    loss = (nll * mask.float()).sum() / mask.float().sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f tokens %d" % (step, loss.data[0], mask.sum()))
