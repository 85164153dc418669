"""Migrated copy of ../padded_loss.py: the padding mask inverted with ~, the per-token loss with reduction='none'."""
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 0
torch.manual_seed(0)
targets = torch.LongTensor([[4, 2, 7, 0, 0], [1, 3, 0, 0, 0], [5, 6, 2, 8, 1]])
embed = nn.Embedding(10, 6)
proj = nn.Linear(6, 10)
optimizer = torch.optim.SGD(list(embed.parameters()) + list(proj.parameters()), lr=0.5)
inputs = torch.LongTensor([[1, 4, 2, 7, 0], [1, 1, 3, 0, 0], [1, 5, 6, 2, 8]])
for step in range(4):
    logits = proj(embed(inputs)).view(-1, 10)
    nll = F.cross_entropy(logits, targets.view(-1), reduction='none')
    mask = ~targets.view(-1).eq(PAD)
    loss = (nll * mask.float()).sum() / mask.float().sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f tokens %d" % (step, loss.item(), mask.sum()))
