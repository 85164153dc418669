"""A 2017 value regression on a cart-pole: states from a random policy collected in a
list of gym observations (the script never reads the observation space), made into
one tensor with torch.FloatTensor(states), and a Linear critic fit to the returns."""
import gym
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.RandomState(1)
env = gym.make('CartPole-v0')


def episode():
    states, rewards = [], []
    state = env.reset()
    for t in range(30):
        states.append(state)
        state, reward, done, _ = env.step(rng.randint(2))
        rewards.append(reward)
        if done:
            break
    returns = np.cumsum(rewards[::-1])[::-1].copy()
    return states, returns


critic = nn.Linear(4, 1)
optimizer = torch.optim.SGD(critic.parameters(), lr=0.01)
for epoch in range(4):
    states, returns = episode()
    x = torch.FloatTensor(np.array(states))
    y = torch.FloatTensor(returns).view(-1, 1)
    loss = ((critic(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('epoch %d steps %d loss %.4f' % (epoch, len(states), loss.item()))
