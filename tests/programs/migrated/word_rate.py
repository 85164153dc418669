"""word_rate.py, migrated by hand to PyTorch 2.13."""
import math

import torch
import torch.nn as nn


def batches(n):
    for i in range(n):
        yield torch.randn(3, 5), torch.LongTensor([3 + i % 2, 2, 4 - i % 3])


def train(model, criterion, optimizer, steps, every):
    n_words, n_words_total = 0, 0
    loss_total = 0.0
    for step, (tokens, lengths) in enumerate(batches(steps), 1):
        loss = criterion(model(tokens), torch.zeros(3, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_total += loss.item() * 3
        n_words_total += torch.sum(lengths).item()
        if step % every == 0:
            interval = n_words_total - n_words
            print('step %d: %d words since the last report' % (step, interval))
            n_words = n_words_total
    print('loss per word %.6f, %.4f' % (loss_total / n_words_total,
                                         math.exp(loss_total / n_words_total)))


torch.manual_seed(0)
model = nn.Linear(5, 1)
train(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), 8, 2)
