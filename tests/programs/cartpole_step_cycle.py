"""A PyTorch 0.3-era policy rollout on a cart-pole: the greedy action is read as
``policy.max(1)[1].data[0]``; each step rebinds the observation, then turns it
into the next state's tensor under the same name before the loop comes round.

0.3 gave a Python int there; 2.13 gives a 0-dim tensor, which the cart-pole's
``Discrete`` space refuses.  What reaches the top of the loop is the tensor the
end of its body made, not the raw observation ``env.step`` returned.
"""
# needs: TV001 TV144
# before-error: AssertionError: tensor(
from __future__ import print_function

import gym
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


def prepare(observation):
    return torch.from_numpy(observation).float().unsqueeze(0)


torch.manual_seed(0)
env = gym.make('CartPole-v0')
policy_net = nn.Linear(4, 2)
done = True
steps, episodes = 0, 0
for t in range(40):
    if done:
        state = prepare(env.reset())
        episodes += 1
    policy = F.softmax(policy_net(Variable(state)), dim=1)
    action = policy.max(1)[1].data[0]
    state, reward, done, _ = env.step(action)
    state = prepare(state)
    steps += 1
print('steps %d episodes %d last state %.5f' % (steps, episodes, state.sum()))
