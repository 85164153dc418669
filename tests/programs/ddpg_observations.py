"""A 2017 DDPG-style control loop: gym observations (numpy arrays) wrapped in a list
to make a one-row tensor, torch.Tensor([env.reset()]), and a critic trained on them."""
# needs: TV001 TV003 TV132
# before-warning: Creating a tensor from a list of numpy.ndarrays is extremely slow
# before-error: IndexError: invalid index of a 0-dim tensor
import gym
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

np.random.seed(0)
torch.manual_seed(0)
env = gym.make("Pendulum-v0")
n_inputs = env.observation_space.shape[0]
actor = nn.Sequential(nn.Linear(n_inputs, 16), nn.Tanh(), nn.Linear(16, 1), nn.Tanh())
critic = nn.Linear(n_inputs + 1, 1)
optimizer = torch.optim.SGD(critic.parameters(), lr=0.01)

for episode in range(3):
    state = torch.Tensor([env.reset()])
    total = 0.0
    for t in range(20):
        action = actor(Variable(state)).data * 2.0
        next_state, reward, done, _ = env.step(action.numpy()[0])
        next_state = torch.Tensor([next_state])
        value = critic(Variable(torch.cat([state, action], 1)))
        loss = (value - reward) ** 2
        optimizer.zero_grad()
        loss.mean().backward()
        optimizer.step()
        total += reward
        state = next_state
    print("episode %d return %.4f last loss %.6f" % (episode, total, loss.mean().data[0]))
