"""The character model migrated by hand."""
import torch
import torch.nn as nn

from cell_parts import LNLSTMCell

torch.manual_seed(0)
vocab, emb, hid = 11, 6, 8
embed = nn.Embedding(vocab, emb)
cell = LNLSTMCell(emb, hid)
out = nn.Linear(hid, vocab)
params = list(embed.parameters()) + list(cell.parameters()) + list(out.parameters())
opt = torch.optim.SGD(params, lr=0.5)
crit = nn.CrossEntropyLoss()
data = torch.LongTensor([(3 * i + 1) % vocab for i in range(41)])
for epoch in range(3):
    h = torch.zeros(1, hid)
    c = torch.zeros(1, hid)
    opt.zero_grad()
    loss = 0
    for t in range(20):
        x = embed(data[t:t + 1])
        h, c = cell(x, (h, c))
        loss = loss + crit(out(h), data[t + 1:t + 2])
    loss.backward()
    opt.step()
    print('epoch %d loss %.6f' % (epoch, loss.item() / 20))
