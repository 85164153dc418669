"""A PyTorch 0.3 next-word model: the prediction's index, read as pred.data[0], looks up a word in a dict."""
# needs: TV001 TV003 TV107 TV123
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
text = "the cat sat on the mat and the dog sat on the log".split()
vocab = sorted(set(text))
word_to_ix = {w: i for i, w in enumerate(vocab)}
ix_to_word = {i: w for w, i in word_to_ix.items()}
pairs = [((text[i], text[i + 1]), text[i + 2]) for i in range(len(text) - 2)]


class NextWord(nn.Module):
    def __init__(self, n_words, dim):
        super(NextWord, self).__init__()
        self.embed = nn.Embedding(n_words, dim)
        self.out = nn.Linear(2 * dim, n_words)

    def forward(self, context):
        return F.log_softmax(self.out(self.embed(context).view(1, -1)))


model = NextWord(len(vocab), 5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    total = 0
    for context, target in pairs:
        context = Variable(torch.LongTensor([word_to_ix[w] for w in context]))
        target = Variable(torch.LongTensor([word_to_ix[target]]))
        loss = F.nll_loss(model(context), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.data[0]
    print("epoch %d loss %.6f" % (epoch, total / len(pairs)))

for context, _ in pairs[:4]:
    out = model(Variable(torch.LongTensor([word_to_ix[w] for w in context])))
    _, predicted = torch.max(out, 1)
    print(" ".join(context), "->", ix_to_word[predicted.data[0]])
