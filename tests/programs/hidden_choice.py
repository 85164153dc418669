"""A PyTorch 0.1-era decoder step that picks the hidden state out of an LSTM's
(h, c) pair with Python's old conditional, `c and t or d`.  A Variable was
always true in 0.1; since 0.2 the truth of a tensor of several elements raises."""
# needs: TV001 TV003 TV159
# flags: --unsafe-fixes
# before-error: RuntimeError: Boolean value of Tensor with more than one value is ambiguous
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
cell = nn.LSTMCell(3, 4)
out = nn.Linear(4, 2)
state = (Variable(torch.zeros(2, 4)), Variable(torch.zeros(2, 4)))
total = 0.0
for x in Variable(torch.randn(5, 2, 3)):
    state = cell(x, state)
    hidden = isinstance(state, tuple) and state[0] or state
    total += out(hidden).sum().data[0]
print('total %.6f' % total)
