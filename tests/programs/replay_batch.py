"""A DQN replay batch, 2017 style: transitions of numpy states, unzipped, turned into tensors."""
# needs: TV001 TV003 TV132
# flags: --unsafe-fixes
# before-warning: Creating a tensor from a list of numpy.ndarrays is extremely slow
# before-error: IndexError: invalid index of a 0-dim tensor
import random

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)
memory = []
for t in range(32):
    state = np.random.randn(4)
    memory.append((np.array(state), t % 2, float(state.sum() > 0)))
q_net = nn.Linear(4, 2)
optimizer = torch.optim.SGD(q_net.parameters(), lr=0.1)
for step in range(4):
    batch = random.sample(memory, 8)
    states, actions, rewards = zip(*batch)
    states = Variable(torch.FloatTensor(states))
    actions = Variable(torch.LongTensor(actions))
    rewards = Variable(torch.FloatTensor(rewards))
    q = q_net(states).gather(1, actions.unsqueeze(1)).squeeze(1)
    loss = ((q - rewards) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.data[0]))
