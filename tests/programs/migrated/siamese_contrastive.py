"""A 2018 Siamese network with the contrastive loss: F.pairwise_distance gave (N, 1) on
0.3, so (1 - label) * d ** 2 with a (N, 1) label was element by element."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)


def contrastive_loss(output1, output2, label, margin=2.0):
    distance = F.pairwise_distance(output1, output2, keepdim=True)
    return torch.mean((1 - label) * torch.pow(distance, 2) +
                      label * torch.pow(torch.clamp(margin - distance, min=0.0), 2))


x1, x2 = torch.randn(8, 6), torch.randn(8, 6)
label = torch.Tensor([[0], [1], [0], [1], [1], [0], [0], [1]])
for step in range(5):
    optimizer.zero_grad()
    loss = contrastive_loss(net(x1), net(x2), label)
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.item()))
