"""The recurrent actor-critic evaluation, migrated by hand to PyTorch 2.13: the
greedy action is read with ``.item()``, the Python ``int`` the environment
accepts."""
from __future__ import print_function

import torch
import torch.nn as nn
import torch.nn.functional as F


class Corridor(object):
    """A walk along a corridor of 6 cells: action 1 steps right, 0 left."""

    def reset(self):
        self.pos = 0
        return self.observe()

    def observe(self):
        return [float(self.pos == i) for i in range(6)]

    def step(self, action):
        assert isinstance(action, int) and action in (0, 1), 'invalid action %r' % (action,)
        self.pos = max(0, min(5, self.pos + (1 if action == 1 else -1)))
        done = self.pos == 5
        return self.observe(), float(done), done, {}


class ActorCritic(nn.Module):
    def __init__(self, hidden_size):
        super(ActorCritic, self).__init__()
        self.fc1 = nn.Linear(6, hidden_size)
        self.lstm = nn.LSTMCell(hidden_size, hidden_size)
        self.fc_actor = nn.Linear(hidden_size, 2)
        self.fc_critic = nn.Linear(hidden_size, 2)

    def forward(self, x, h):
        x = F.relu(self.fc1(x))
        h = self.lstm(x, h)
        x = h[0]
        policy = F.softmax(self.fc_actor(x), dim=1)
        Q = self.fc_critic(x)
        return policy, Q, h


def state_to_tensor(state):
    return torch.Tensor(state).unsqueeze(0)


torch.manual_seed(0)
model = ActorCritic(8)
env = Corridor()
rewards = []
for episode in range(3):
    hx = torch.zeros(1, 8)
    cx = torch.zeros(1, 8)
    state = state_to_tensor(env.reset())
    reward_sum, done, length = 0.0, False, 0
    while not done and length < 12:
        policy, Q, (hx, cx) = model(state, (hx.detach(), cx.detach()))
        action = policy.max(1)[1][0].item()
        state, reward, done, _ = env.step(action)
        state = state_to_tensor(state)
        reward_sum += reward
        length += 1
    rewards.append(reward_sum)
    print('episode %d length %d reward %.1f' % (episode, length, reward_sum))
print('mean reward %.3f' % (sum(rewards) / len(rewards)))
