"""A 2017 char-level RNN step by step: each target of zip(inputs, labels) given to CrossEntropyLoss."""
# needs: TV001 TV003 TV107
# flags: --unsafe-fixes
# before-error: Expected input batch_size (1) to match target batch_size (0)
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
chars = "hello"
letters = "ehlo"
inputs = Variable(torch.eye(len(letters))[[letters.find(c) for c in chars[:-1]]].unsqueeze(1))
labels = Variable(torch.LongTensor([letters.find(c) for c in chars[1:]]))
cell = nn.RNNCell(len(letters), 6)
head = nn.Linear(6, len(letters))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(list(cell.parameters()) + list(head.parameters()), lr=0.5)
for epoch in range(3):
    optimizer.zero_grad()
    hidden = Variable(torch.zeros(1, 6))
    loss = 0
    for input, label in zip(inputs, labels):
        hidden = cell(input, hidden)
        loss += criterion(head(hidden), label)
    loss.backward()
    optimizer.step()
    print("epoch %d loss %.5f" % (epoch, loss.data[0]))
