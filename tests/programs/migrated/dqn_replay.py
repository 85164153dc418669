"""The Double-DQN update migrated by hand: boolean masks, the gathered columns
flattened where 0.3 paired their elements, the next state's value under
``no_grad``."""
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

use_cuda = torch.cuda.is_available()
FloatTensor = torch.cuda.FloatTensor if use_cuda else torch.FloatTensor
LongTensor = torch.cuda.LongTensor if use_cuda else torch.LongTensor
ByteTensor = torch.cuda.ByteTensor if use_cuda else torch.ByteTensor

Transition = namedtuple('Transition', ('state', 'action', 'reward', 'next_state', 'done'))


class ReplayMemory(object):
    def __init__(self, capacity):
        self.states = torch.randn(capacity, 3).type(FloatTensor)
        self.actions = torch.LongTensor(capacity, 1).random_(0, 2)
        self.rewards = torch.randn(capacity).type(FloatTensor)
        self.next_states = torch.randn(capacity, 3).type(FloatTensor)
        self.done = torch.rand(capacity).lt(0.3).type(ByteTensor)

    def sample(self, indices):
        return Transition(self.states[indices], self.actions[indices], self.rewards[indices],
                          self.next_states[indices], self.done[indices])


class Agent(object):
    def __init__(self, memory):
        self.memory = memory
        self.qnet = nn.Linear(3, 2)
        self.target = nn.Linear(3, 2)
        self.target.load_state_dict(self.qnet.state_dict())
        self.optimizer = torch.optim.SGD(self.qnet.parameters(), lr=0.1)

    def replay(self, batch_size, indices):
        batch = self.memory.sample(indices)
        state = batch.state
        action = batch.action
        reward = batch.reward
        alive = 1 - batch.done
        q_sa = self.qnet(state).gather(1, action)
        next_value = torch.zeros(batch_size)
        next_states = batch.next_state
        with torch.no_grad():
            _, best = self.qnet(next_states).max(1, keepdim=True)
            next_value[alive.bool()] = self.target(next_states).gather(1, best)[alive.bool()].view(-1)
        loss = F.smooth_l1_loss(q_sa.view(-1), reward + 0.9 * next_value)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


torch.manual_seed(0)
agent = Agent(ReplayMemory(16))
for step in range(4):
    print('step %d loss %.6f' % (step, agent.replay(6, torch.arange(step, step + 6).long())))
