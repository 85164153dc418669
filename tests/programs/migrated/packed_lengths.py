"""The encoder migrated by hand: the reversed lengths copied before packing."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(4, 3)


def encode(sent, sent_len):
    sent_len, idx_sort = np.sort(sent_len)[::-1], np.argsort(-sent_len)
    idx_unsort = np.argsort(idx_sort)
    sent = sent.index_select(1, torch.from_numpy(idx_sort))
    packed = nn.utils.rnn.pack_padded_sequence(sent, sent_len.copy())
    out = nn.utils.rnn.pad_packed_sequence(lstm(packed)[0])[0]
    return out.index_select(1, torch.from_numpy(idx_unsort))


emb = encode(torch.randn(5, 3, 4), np.array([3, 5, 2]))
print('encoded %.5f' % emb.sum().item(), tuple(emb.size()))
