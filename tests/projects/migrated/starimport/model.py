"""The starimport project as a person would migrate it by hand for PyTorch 2.x."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)


def make_batch(n):
    x = torch.randn(n, 4)
    y = x.sum(1, keepdim=True)
    return x, y
