"""A PyTorch 0.3 character model whose layer-normalized LSTM cell, in a module of
its project, derives from ``RNNCellBase``, and which (like its module) reads
``torch`` through a star import of torch's rnn module: today's rnn module gives
no ``torch``, and today's ``RNNCellBase.__init__`` wants four arguments."""
# needs: TV003 TV160 TV161
# flags: --unsafe-fixes
# module: cell_parts.py
# before-error: name 'torch' is not defined
import torch.nn as nn
from torch.autograd import Variable
from torch.nn.modules.rnn import *

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
    h = Variable(torch.zeros(1, hid))
    c = Variable(torch.zeros(1, hid))
    opt.zero_grad()
    loss = 0
    for t in range(20):
        x = embed(Variable(data[t:t + 1]))
        h, c = cell(x, (h, c))
        loss = loss + crit(out(h), Variable(data[t + 1:t + 2]))
    loss.backward()
    opt.step()
    print('epoch %d loss %.6f' % (epoch, loss.data[0] / 20))
