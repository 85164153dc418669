"""Migrated copy of ../sequence_targets.py: each target is a one-element batch."""
import torch
import torch.nn as nn

torch.manual_seed(0)
chars = "hello"
letters = "ehlo"
inputs = torch.eye(len(letters))[[letters.find(c) for c in chars[:-1]]].unsqueeze(1)
labels = torch.LongTensor([letters.find(c) for c in chars[1:]])
cell = nn.RNNCell(len(letters), 6)
head = nn.Linear(6, len(letters))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(list(cell.parameters()) + list(head.parameters()), lr=0.5)
for epoch in range(3):
    optimizer.zero_grad()
    hidden = torch.zeros(1, 6)
    loss = 0
    for input, label in zip(inputs, labels):
        hidden = cell(input, hidden)
        loss += criterion(head(hidden), label.view(1))
    loss.backward()
    optimizer.step()
    print("epoch %d loss %.5f" % (epoch, loss.item()))
