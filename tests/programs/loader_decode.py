"""A 2017 character model trained from a DataLoader whose debugging step decodes the batch back to text, column by column, through an index-to-character dict: on PyTorch 2.13 the batch's elements are 0-dim tensors and the dict lookup raises KeyError."""
# needs: TV001 TV003 TV107
# flags: --unsafe-fixes
# before-error: KeyError: tensor(
import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(5)
alphabet = "abcdefg"
ix2char = {i: c for i, c in enumerate(alphabet)}
sequences = torch.LongTensor([[(i + j) % 7 for j in range(6)] for i in range(8)])
loader = DataLoader(TensorDataset(sequences, sequences), batch_size=4)
embed = nn.Embedding(7, 5)
decoder = nn.Linear(5, 7)
optimizer = torch.optim.SGD(list(embed.parameters()) + list(decoder.parameters()), lr=0.5)
for epoch in range(2):
    for step, (batch, _) in enumerate(loader):
        batch = batch.long().transpose(1, 0).contiguous()
        inputs, targets = Variable(batch[:-1]), Variable(batch[1:])
        logits = decoder(embed(inputs)).view(-1, 7)
        loss = nn.functional.cross_entropy(logits, targets.view(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        texts = [''.join([ix2char[c] for c in batch[:, k]]) for k in range(batch.size(1))]
        print("epoch %d step %d loss %.5f %s" % (epoch, step, loss.data[0], ' '.join(texts)))
