"""A 2017 sentence decoder that samples token ids greedily and turns them back into words through a vocabulary saved as JSON and read back (string keys, as json writes them): on PyTorch 2.13 the elements of a row of ids are 0-dim tensors, str() of one is 'tensor(4)', and the lookup raises KeyError."""
# needs: TV001 TV003 TV107 TV144
# flags: --unsafe-fixes
# before-error: KeyError: 'tensor(
import json

import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(3)
words = ['<pad>', '<sos>', 'the', 'cat', 'sat', 'on', 'a', 'mat', 'dog', 'ran']
saved = json.dumps({'w2i': {w: i for i, w in enumerate(words)},
                    'i2w': {i: w for i, w in enumerate(words)}})
vocab = json.loads(saved)
w2i, i2w = vocab['w2i'], vocab['i2w']
corpus = [['the', 'cat', 'sat', 'on', 'a', 'mat'], ['a', 'dog', 'ran']]

embed = nn.Embedding(len(words), 8)
cell = nn.GRUCell(8, 16)
out = nn.Linear(16, len(words))
criterion = nn.CrossEntropyLoss()
params = list(embed.parameters()) + list(cell.parameters()) + list(out.parameters())
optimizer = torch.optim.Adam(params, lr=0.05)


def batch_of(sentences, length):
    ids = torch.zeros(len(sentences), length + 1).long()
    for i, sentence in enumerate(sentences):
        tokens = ['<sos>'] + sentence
        for t, word in enumerate(tokens):
            ids[i, t] = w2i[word]
    return ids


for step in range(40):
    ids = Variable(batch_of(corpus, 6))
    h = Variable(torch.zeros(len(corpus), 16))
    loss = 0
    for t in range(6):
        h = cell(embed(ids[:, t]), h)
        loss = loss + criterion(out(h), ids[:, t + 1])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def sample(n, length):
    generations = torch.zeros(n, length).long()
    h = Variable(torch.zeros(n, 16))
    inp = Variable(torch.LongTensor([w2i['<sos>']] * n))
    for t in range(length):
        h = cell(embed(inp), h)
        h = h + 0.3 * Variable(torch.randn(n, 16))
        _, inp = out(h).max(1)
        generations[:, t] = inp.data
    return generations


def idx2word(idx, i2w, pad_idx):
    sent_str = [''] * len(idx)
    for i, sent in enumerate(idx):
        for word_id in sent:
            if word_id == pad_idx:
                break
            sent_str[i] += i2w[str(word_id)] + ' '
        sent_str[i] = sent_str[i].strip()
    return sent_str


samples = sample(4, 6)
print('ids of the first:', ' '.join(str(w) for w in samples[0]))
for sentence in idx2word(samples, i2w, w2i['<pad>']):
    print(sentence)
print('last loss %.4f' % loss.data[0])
