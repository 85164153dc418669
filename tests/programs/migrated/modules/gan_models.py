"""Migrated copy of ../../modules/gan_models.py (unchanged: nothing to migrate)."""
import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())

    def forward(self, x):
        return self.main(x)


class Generator(nn.Module):
    def __init__(self, nz):
        super(Generator, self).__init__()
        self.main = nn.Sequential(nn.Linear(nz, 8), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, z):
        return self.main(z)
