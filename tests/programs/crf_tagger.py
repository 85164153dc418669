"""A 2018 BiLSTM-CRF tagger: the gold path's score joins single elements of the
emission and transition scores with torch.cat (one-element Variables on 0.3, 0-dim
since 0.4), the encoder joins the last two states of a bidirectional LSTM with
torch.cat of a tensor, and the loss is rebound to a Python number after its step."""
# needs: TV001 TV119
# before-error: RuntimeError: zero-dimensional tensor (at position 0) cannot be concatenated
import torch
import torch.nn as nn
from torch.autograd import Variable


def scalar(x):
    return x.view(-1).data.tolist()[0]


class Tagger(nn.Module):
    def __init__(self, vocab, tags, hidden):
        super(Tagger, self).__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, 1, bidirectional=True)
        self.out = nn.Linear(2 * hidden, tags)
        self.trans = nn.Parameter(torch.randn(tags, tags) * 0.1)

    def summary(self, words):
        _, hidden = self.lstm(self.embed(words).unsqueeze(1))
        return torch.cat(hidden[0][-2:], dim=-1)

    def emissions(self, words):
        feats, _ = self.lstm(self.embed(words).unsqueeze(1))
        return self.out(feats.view(len(words), -1))

    def decode(self, words):
        emissions = self.emissions(words)
        best = []
        for row in emissions:
            _, j = torch.max(row, 0)
            best.append(row[j])
        return torch.cat(best)


def gold_score(model, words, tags):
    emissions = model.emissions(words)
    n = len(tags)
    emitted = torch.cat([emissions[i, tags[i]] for i in range(n)])
    moved = []
    for i in range(1, n):
        moved.append(model.trans[tags[i], tags[i - 1]])
    return emitted.sum() + torch.cat(moved).sum()


torch.manual_seed(0)
model = Tagger(10, 4, 6)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
sentences = [([1, 2, 3, 4], [0, 1, 2, 3]), ([5, 6, 7], [3, 2, 1])]
total = 0
for epoch in range(3):
    for words, tags in sentences:
        words = Variable(torch.LongTensor(words))
        tags = torch.LongTensor(tags)
        optimizer.zero_grad()
        loss = -gold_score(model, words, tags) / len(tags)
        loss.backward()
        optimizer.step()
        loss = scalar(loss) / len(tags)
        total += loss
words = Variable(torch.LongTensor([1, 2, 3]))
print("total %.6f" % total)
print("summary", [round(v, 4) for v in model.summary(words).data.view(-1).tolist()])
print("best", [round(v, 4) for v in model.decode(words).data.tolist()])
