"""A 2017 actor-critic on a cart-pole: the state a 1-D gym observation, the action
sampled from a Categorical of the policy's 1-D output and read as action.data[0]."""
# needs: TV001 TV003
# before-error: IndexError: invalid index of a 0-dim tensor
import gym
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
from torch.distributions import Categorical

env = gym.make('CartPole-v0')
torch.manual_seed(0)


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 32)
        self.action_head = nn.Linear(32, 2)
        self.value_head = nn.Linear(32, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        return F.softmax(self.action_head(x), dim=-1), self.value_head(x)


model = Policy()
optimizer = optim.Adam(model.parameters(), lr=1e-2)


def select_action(state):
    state = torch.from_numpy(state).float()
    probs, state_value = model(Variable(state))
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append((m.log_prob(action), state_value))
    return action.data[0]


def finish_episode():
    R = 0
    returns = []
    for r in model.rewards[::-1]:
        R = r + 0.99 * R
        returns.insert(0, R)
    returns = torch.Tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-6)
    losses = []
    for (log_prob, value), r in zip(model.saved_actions, returns):
        losses.append(-log_prob * (r - value.data[0]))
        losses.append(F.smooth_l1_loss(value, Variable(torch.Tensor([r]))))
    optimizer.zero_grad()
    torch.stack(losses).sum().backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]


for episode in range(5):
    state = env.reset()
    for t in range(30):
        action = select_action(state)
        state, reward, done, _ = env.step(action)
        model.rewards.append(reward)
        if done:
            break
    print("episode %d lasted %d steps" % (episode, t + 1))
    finish_episode()
print("weights %.6f" % sum(p.data.abs().sum() for p in model.parameters()))
