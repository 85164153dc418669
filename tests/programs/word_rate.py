"""A PyTorch 0.3 training loop that reports the words seen since its last report:
the count is a running sum of each batch's lengths, which come from a data
pipeline (a generator here, a third-party iterator in the programs this shape
comes from), and each report keeps a copy of the count.

On 0.3 ``torch.sum(lengths)`` of a tensor was a Python number.  Since 0.4 it is
a 0-dim tensor: the count becomes a tensor, the copy names that same tensor,
and the next ``+=`` changes both in place, so every report after the first says
0 words.
"""
# needs: TV001 TV003 TV144
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import math

import torch
import torch.nn as nn
from torch.autograd import Variable


def batches(n):
    for i in range(n):
        yield torch.randn(3, 5), torch.LongTensor([3 + i % 2, 2, 4 - i % 3])


def train(model, criterion, optimizer, steps, every):
    n_words, n_words_total = 0, 0
    loss_total = 0.0
    for step, (tokens, lengths) in enumerate(batches(steps), 1):
        x = Variable(tokens)
        loss = criterion(model(x), Variable(torch.zeros(3, 1)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_total += loss.data[0] * 3
        n_words_total += torch.sum(lengths)
        if step % every == 0:
            interval = n_words_total - n_words
            print('step %d: %d words since the last report' % (step, interval))
            n_words = n_words_total
    print('loss per word %.6f, %.4f' % (loss_total / n_words_total,
                                         math.exp(loss_total / n_words_total)))


torch.manual_seed(0)
model = nn.Linear(5, 1)
train(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), 8, 2)
