"""Migrated copy of ../greedy_actions.py: the action is read with .item()."""
import torch
import torch.nn as nn

torch.manual_seed(0)
q_net = nn.Linear(4, 3)


class Corridor(object):
    def __init__(self):
        self.position = 0

    def step(self, action):
        assert isinstance(action, int), "the action must be an int"
        self.position += action - 1
        return float(self.position), self.position >= 3


env = Corridor()
total = 0.0
for t in range(5):
    state = torch.randn(1, 4)
    q_value = q_net(state)
    action = q_value.max(1)[1].item()
    reward, done = env.step(action)
    total += reward
    print("step %d action %d reward %.1f" % (t, action, reward))
print("total %.1f" % total)
