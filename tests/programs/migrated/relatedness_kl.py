"""Migrated copy of ../relatedness_kl.py: the KL divergence is summed and divided by the number of elements, as 0.3's default averaging did, without 2.13's warning."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

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
        output = F.log_softmax(model(features), dim=1)
        target = map_label_to_target(score)
        loss = F.kl_div(output, target, reduction='sum') / output.numel()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print("epoch %d loss %.6f" % (epoch, total / len(pairs)))
