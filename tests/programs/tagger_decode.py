"""A 2017 sequence tagger without a CRF: the best tag ids of each word, taken with
list(tag_seq.data) (Python ints on 0.3), looked up in an id -> tag dict."""
# needs: TV001 TV003 TV144
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
id_to_tag = {0: "O", 1: "B-PER", 2: "I-PER", 3: "B-LOC"}


class Tagger(nn.Module):
    def __init__(self, vocab, dim, tags):
        super(Tagger, self).__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.hidden2tag = nn.Linear(dim, tags)

    def _features(self, sentence):
        embeds = self.embed(sentence)
        return self.hidden2tag(embeds.view(len(sentence), -1))

    def loss(self, sentence, tags):
        return F.cross_entropy(self._features(sentence), tags)

    def forward(self, sentence):
        score, tag_seq = torch.max(self._features(sentence), 1)
        tag_seq = list(tag_seq.cpu().data)
        return score, tag_seq


model = Tagger(10, 6, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
sentences = [torch.LongTensor([1, 2, 3, 4]), torch.LongTensor([5, 6, 7])]
gold = [torch.LongTensor([1, 2, 0, 3]), torch.LongTensor([0, 1, 2])]
for epoch in range(3):
    total = 0.0
    for words, tags in zip(sentences, gold):
        optimizer.zero_grad()
        loss = model.loss(Variable(words), Variable(tags))
        loss.backward()
        optimizer.step()
        total += loss.data[0]
    print("epoch %d loss %.6f" % (epoch, total))
for words in sentences:
    _, predicted = model(Variable(words))
    print(" ".join(id_to_tag[t] for t in predicted))
