"""A 2018 Tree-LSTM-style relatedness trainer: a gold score in [1, 5] becomes a sparse distribution over 5 classes, fit with F.kl_div's default averaging."""
# needs: TV001 TV003 TV120
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)
num_classes = 5


def map_label_to_target(label):
    target = torch.zeros(1, num_classes)
    ceil = int(math.ceil(label))
    floor = int(math.floor(label))
    if ceil == floor:
        target[0][floor - 1] = 1
    else:
        target[0][floor - 1] = ceil - label
        target[0][ceil - 1] = label - floor
    return target


model = nn.Linear(4, num_classes)
optimizer = optim.SGD(model.parameters(), lr=0.5)
pairs = [(torch.randn(1, 4), score) for score in (1.0, 2.6, 4.2, 3.5)]
for epoch in range(3):
    total = 0.0
    for features, score in pairs:
        optimizer.zero_grad()
        output = F.log_softmax(model(Variable(features)), dim=1)
        target = Variable(map_label_to_target(score))
        loss = F.kl_div(output, target)
        loss.backward()
        optimizer.step()
        total += loss.data[0]
    print("epoch %d loss %.6f" % (epoch, total / len(pairs)))
