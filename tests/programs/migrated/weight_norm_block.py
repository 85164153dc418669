"""Migrated copy of ../weight_norm_block.py: weight norm from torch.nn.utils.parametrizations, QR from torch.linalg."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, channels):
        super(Block, self).__init__()
        self.conv1 = torch.nn.utils.parametrizations.weight_norm(
            nn.Conv1d(channels, channels, 3, padding=1))
        self.conv2 = torch.nn.utils.parametrizations.weight_norm(
            nn.Conv1d(channels, channels, 3, padding=1))

    def forward(self, x):
        return x + self.conv2(torch.relu(self.conv1(x)))


torch.manual_seed(0)
turn, _ = torch.linalg.qr(torch.randn(6, 6))
x = torch.randn(2, 4, 6).matmul(turn)
target = torch.randn(2, 4, 6)
block = Block(4)
optimizer = torch.optim.SGD(block.parameters(), lr=0.05)
for step in range(3):
    loss = ((block(x) - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.item()))
