"""Migrated copy of ../loader_decode.py: the batch's elements become numbers (.item()) before the dict lookup."""
import torch
import torch.nn as nn
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
        inputs, targets = batch[:-1], batch[1:]
        logits = decoder(embed(inputs)).view(-1, 7)
        loss = nn.functional.cross_entropy(logits, targets.view(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        texts = [''.join([ix2char[c.item()] for c in batch[:, k]]) for k in range(batch.size(1))]
        print("epoch %d step %d loss %.5f %s" % (epoch, step, loss.item(), ' '.join(texts)))
