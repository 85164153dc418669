"""A 2017 sorting-task data script: random permutations written to a text file by a helper nested in the writer, read back with int() and used to train a tiny scorer. On PyTorch 2.13 str() of a permutation's element is 'tensor(3)', which int() cannot read."""
# needs: TV001 TV003 TV144
# before-error: ValueError: invalid literal for int() with base 10: 'tensor(
import io

import torch
import torch.nn as nn
from torch.autograd import Variable


def write_permutations(out, count, length):
    def as_text(order):
        line = ''
        for j in range(length - 1):
            line += '{} '.format(order[j])
        line += str(order[-1]) + '\n'
        return line

    for _ in range(count):
        out.write(as_text(torch.randperm(length)))


torch.manual_seed(11)
buffer = io.StringIO()
write_permutations(buffer, 6, 5)
rows = [[int(tok) for tok in line.split()] for line in buffer.getvalue().splitlines()]
orders = Variable(torch.Tensor(rows))
scorer = nn.Linear(5, 1)
optimizer = torch.optim.SGD(scorer.parameters(), lr=0.01)
for step in range(3):
    loss = ((scorer(orders) - orders.sum(1, keepdim=True)) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f first %s" % (step, loss.data[0], rows[0]))
