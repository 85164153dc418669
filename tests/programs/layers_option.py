"""A 2017 character model whose depth is a command-line option that defaults to
one layer, given a dropout (an option too) that acts between layers only.  Run
with its defaults it warns since 0.4; the fix must follow the option through the
training function to the module, and keep the dropout for deeper runs."""
# needs: TV001 TV003 TV134
# before-error: IndexError: invalid index of a 0-dim tensor
import argparse

import torch
import torch.nn as nn
from torch.autograd import Variable


class CharModel(nn.Module):
    def __init__(self, n_chars, hidden, n_layers, dropout):
        super(CharModel, self).__init__()
        self.embed = nn.Embedding(n_chars, hidden)
        self.rnn = nn.LSTM(hidden, hidden, n_layers, dropout=dropout)
        self.out = nn.Linear(hidden, n_chars)

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        return self.out(h.view(-1, h.size(2)))


def train(args):
    torch.manual_seed(0)
    model = CharModel(7, 12, args.layers, args.dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()
    data = torch.LongTensor([[(i * j + 1) % 7 for j in range(4)] for i in range(9)])
    for step in range(5):
        x = Variable(data[:-1])
        y = Variable(data[1:].contiguous().view(-1))
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print('step %d loss %.5f' % (step, loss.data[0]))


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--layers', type=int, default=1)
    parser.add_argument('--dropout', type=float, default=0.3)
    train(parser.parse_args())
