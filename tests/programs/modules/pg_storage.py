"""The storage module of the pg_trajectories program: a plain class that keeps the rewards of a batch of environments step by step and stacks them into a tensor (a 2017 policy-gradient library's ``MultiTrajectory``)."""
import torch


class MultiTrajectory(object):
    def __init__(self, n_envs):
        self.n_envs = n_envs
        self.steps = []

    def append(self, rews):
        self.steps.append(rews)

    def torchify(self):
        self.rewards = torch.stack([torch.FloatTensor(rews) for rews in self.steps])
