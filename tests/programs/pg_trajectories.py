"""A 2017 policy-gradient training loop: each batch's trajectories come from a function of the project's data module, as an object of a plain class of its storage module whose torchify() stacks the rewards; the loop keeps the mean summed reward of every batch and returns the history as JSON. On 0.3 the means were Python floats; since 0.4 they are 0-dim tensors, which json cannot write."""
# needs: TV001 TV144
# flags: --unsafe-fixes
# module: pg_collectors.py pg_storage.py
# before-error: Object of type Tensor is not JSON serializable
import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

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
        states = Variable(trajectories.rewards.view(-1, 1))
        log_probs = F.log_softmax(policy(states), dim=1)[:, 0]
        loss = -(log_probs * Variable(trajectories.rewards.view(-1))).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        rewards.append(torch.sum(trajectories.rewards, dim=0).mean())
    return json.dumps(rewards)


print(train(3, 4, 2))
print(policy.weight.data.view(-1).tolist())
