"""A 2017 sentence encoder: the batch sorted by length, packed with the lengths
reversed by a numpy slice.  0.3 read the lengths as a sequence; 2.13 converts the
negative-stride view and raises ValueError."""
# needs: TV001 TV003 TV170
# before-error: ValueError: At least one stride in the given numpy array is negative
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
lstm = nn.LSTM(4, 3)


def encode(sent, sent_len):
    sent_len, idx_sort = np.sort(sent_len)[::-1], np.argsort(-sent_len)
    idx_unsort = np.argsort(idx_sort)
    sent = sent.index_select(1, Variable(torch.from_numpy(idx_sort)))
    packed = nn.utils.rnn.pack_padded_sequence(sent, sent_len)
    out = nn.utils.rnn.pad_packed_sequence(lstm(packed)[0])[0]
    return out.index_select(1, Variable(torch.from_numpy(idx_unsort)))


emb = encode(Variable(torch.randn(5, 3, 4)), np.array([3, 5, 2]))
print('encoded %.5f' % emb.sum().data[0], tuple(emb.size()))
