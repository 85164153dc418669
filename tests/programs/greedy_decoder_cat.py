"""A 2018 batched seq2seq greedy decoder: the next input is torch.cat(topi) of the
(B, 1) indices topk(1) gives, which 0.3 joined into a (B,) tensor."""
# needs: TV001 TV003 TV119
# before-error: TypeError: cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
vocab, hidden_size, batch = 7, 8, 3
embedding = nn.Embedding(vocab, hidden_size)
cell = nn.GRUCell(hidden_size, hidden_size)
out = nn.Linear(hidden_size, vocab)

decoder_input = Variable(torch.LongTensor([1] * batch))
hidden = Variable(torch.zeros(batch, hidden_size))
loss = 0
tokens = []
for step in range(5):
    hidden = cell(embedding(decoder_input), hidden)
    logits = F.log_softmax(out(hidden), dim=1)
    loss += -logits.mean()
    topv, topi = logits.data.topk(1)
    decoder_input = Variable(torch.cat(topi))
    tokens.append(decoder_input.data.tolist())
print("tokens", tokens)
print("loss %.6f" % (loss.data[0] / 5))
