"""A 2017 Double-DQN update: a replay memory (a plain class) samples a namedtuple
of tensors typed through 0.3's CUDA-or-CPU aliases, the next state's value is
written through a uint8 mask from ``Q.gather(1, a)`` columns, and the loss
compares a ``(N, 1)`` column with a 1-D target (0.3 paired their elements)."""
# needs: TV001 TV002 TV003 TV117 TV129 TV148
# flags: --unsafe-fixes
# before-error: RuntimeError: shape mismatch
# hand-edit: next_states = Variable(batch.next_state, volatile=True)\n        _, best = self.qnet(next_states).max(1, keepdim=True)\n        next_value[ => next_states = batch.next_state\n        with torch.no_grad():\n            _, best = self.qnet(next_states).max(1, keepdim=True)\n            next_value[
# hand-edit: F.smooth_l1_loss(q_sa, => F.smooth_l1_loss(q_sa.view(-1),
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

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
        state = Variable(batch.state)
        action = Variable(batch.action)
        reward = Variable(batch.reward)
        alive = 1 - batch.done
        q_sa = self.qnet(state).gather(1, action)
        next_value = Variable(torch.zeros(batch_size))
        next_states = Variable(batch.next_state, volatile=True)
        _, best = self.qnet(next_states).max(1, keepdim=True)
        next_value[alive] = self.target(next_states).gather(1, best)[alive]
        next_value.volatile = False
        loss = F.smooth_l1_loss(q_sa, reward + 0.9 * next_value)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.data[0]


torch.manual_seed(0)
agent = Agent(ReplayMemory(16))
for step in range(4):
    print('step %d loss %.6f' % (step, agent.replay(6, torch.arange(step, step + 6).long())))
