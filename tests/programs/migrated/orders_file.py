"""Migrated copy of ../orders_file.py: the last element written as a number (.item())."""
import io

import torch
import torch.nn as nn


def write_permutations(out, count, length):
    def as_text(order):
        line = ''
        for j in range(length - 1):
            line += '{} '.format(order[j])
        line += str(order[-1].item()) + '\n'
        return line

    for _ in range(count):
        out.write(as_text(torch.randperm(length)))


torch.manual_seed(11)
buffer = io.StringIO()
write_permutations(buffer, 6, 5)
rows = [[int(tok) for tok in line.split()] for line in buffer.getvalue().splitlines()]
orders = torch.Tensor(rows)
scorer = nn.Linear(5, 1)
optimizer = torch.optim.SGD(scorer.parameters(), lr=0.01)
for step in range(3):
    loss = ((scorer(orders) - orders.sum(1, keepdim=True)) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f first %s" % (step, loss.item(), rows[0]))
