"""Migrated copy of ../../modules/pg_storage.py: nothing to change (plain Python and a 0.3 constructor torch 2.13 still takes)."""
import torch


class MultiTrajectory(object):
    def __init__(self, n_envs):
        self.n_envs = n_envs
        self.steps = []

    def append(self, rews):
        self.steps.append(rews)

    def torchify(self):
        self.rewards = torch.stack([torch.FloatTensor(rews) for rews in self.steps])
