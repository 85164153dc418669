import torch
import torch.nn as nn


class BaseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


def ones(n):
    return torch.ones(n, 3)
