"""A 2017 DQN agent class: act() computes the Q-values, a helper method picks the greedy action with .data[0], and the environment wants an int."""
# needs: TV001 TV144
# before-error: AssertionError: the action must be an int
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


class Corridor(object):
    def __init__(self):
        self.position = 0

    def step(self, action):
        assert isinstance(action, int), "the action must be an int"
        self.position += action - 1
        return float(self.position), self.position >= 3


class Agent(object):
    def __init__(self, n_actions):
        self.q_net = nn.Linear(4, n_actions)

    def act(self, observation):
        q_value = self.q_net(Variable(torch.FloatTensor(observation).view(1, -1)))
        return self._best_action(q_value)

    def _best_action(self, q_value):
        action = q_value.max(1)[1].data[0]
        return action


env = Corridor()
agent = Agent(3)
total = 0.0
for t in range(5):
    action = agent.act(torch.randn(4).tolist())
    reward, done = env.step(action)
    total += reward
    print("step %d action %d reward %.1f" % (t, action, reward))
print("total %.1f" % total)
