"""Migrated copy of ../pg_trajectories.py: the means are numbers (`.item()`), the no-op Variable wrappers gone."""
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

from pg_collectors import obtain_trajectories

torch.manual_seed(0)
policy = nn.Linear(1, 2)
optimizer = torch.optim.SGD(policy.parameters(), lr=0.1)


def step_rewards(t, n_envs):
    return [((t * 7 + k * 3) % 5) / 3.0 for k in range(n_envs)]


def train(n_batches, steps, n_envs):
    rewards = []
    for i in range(n_batches):
        trajectories = obtain_trajectories(step_rewards, steps + i, n_envs)
        states = trajectories.rewards.view(-1, 1)
        log_probs = F.log_softmax(policy(states), dim=1)[:, 0]
        loss = -(log_probs * trajectories.rewards.view(-1)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        rewards.append(torch.sum(trajectories.rewards, dim=0).mean().item())
    return json.dumps(rewards)


print(train(3, 4, 2))
print(policy.weight.data.view(-1).tolist())
