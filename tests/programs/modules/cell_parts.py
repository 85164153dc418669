"""The cell of a 2017 language model: a layer-normalized LSTM cell derived from
0.3's ``RNNCellBase`` (a bare Module then), with ``torch`` reached through the
star import of torch's rnn module (which had no ``__all__`` then)."""
import torch.nn as nn
from torch.nn.modules.rnn import *


class LayerNorm(nn.Module):
    def __init__(self, n, eps=1e-5):
        super(LayerNorm, self).__init__()
        self.gain = nn.Parameter(torch.ones(n))
        self.bias = nn.Parameter(torch.zeros(n))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.gain * (x - mean) / (std + self.eps) + self.bias


class LNLSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size):
        super(LNLSTMCell, self).__init__()
        self.hidden_size = hidden_size
        self.ih = nn.Linear(input_size, 4 * hidden_size)
        self.hh = nn.Linear(hidden_size, 4 * hidden_size, bias=False)
        self.ln = LayerNorm(4 * hidden_size)

    def forward(self, x, state):
        h, c = state
        gates = self.ln(self.ih(x) + self.hh(h))
        i, f, g, o = gates.chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c
