"""A character bigram model whose indices come back out of LongTensors and are
looked up in a dict: on 0.3 iterating over a LongTensor gave Python ints."""
# needs: TV001 TV003 TV107
# flags: --unsafe-fixes
# before-error: KeyError: tensor(11)
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
text = "the cat sat on the mat and the rat ate the hat "
chars = sorted(set(text))
char2ix = {c: i for i, c in enumerate(chars)}
ix2char = {i: c for i, c in enumerate(chars)}

encoded = torch.LongTensor([char2ix[c] for c in text])

starts = [0, 4, 8, 12]
batch = torch.LongTensor(len(starts), 3)
for row, s in enumerate(starts):
    batch[row] = encoded[s:s + 3]
firsts = []
for w in batch[:, 0]:
    firsts.append(ix2char[w])
print('first chars:', firsts)

embed = nn.Embedding(len(chars), 8)
head = nn.Linear(8, len(chars))
params = list(embed.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=0.05)
criterion = nn.CrossEntropyLoss()
for step in range(20):
    inputs = Variable(encoded[:-1])
    targets = Variable(encoded[1:])
    loss = criterion(head(embed(inputs)), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 4:
        print('step %d loss %.4f' % (step, loss.data[0]))

sample_ids = torch.LongTensor(10)
sample_ids[0] = char2ix['t']
for t in range(1, 10):
    logits = head(embed(Variable(sample_ids[t - 1:t])))
    sample_ids[t] = logits.data.max(1)[1][0]
print('greedy:', ''.join([ix2char[i] for i in sample_ids]))
