"""A 2018 distributional DQN agent: act() returns the greedy action as an element of a
LongTensor (a Python int on 0.3), which an environment looks up in a dict of moves; the
value support lives in self and is moved with self.support = self.support.cuda()."""
# needs: TV001 TV144
# flags: --unsafe-fixes
# before-error: the move must be an int
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)


class AtomNet(nn.Module):
    def __init__(self, n_actions, n_atoms):
        super(AtomNet, self).__init__()
        self.n_actions, self.n_atoms = n_actions, n_atoms
        self.fc = nn.Linear(6, n_actions * n_atoms)

    def forward(self, x):
        logits = self.fc(x).view(-1, self.n_actions, self.n_atoms)
        return F.softmax(logits, dim=2)


class AtomAgent(object):
    def __init__(self, n_actions, n_atoms, use_cuda=False):
        self.support = torch.linspace(-2, 2, n_atoms)
        self.net = AtomNet(n_actions, n_atoms)
        if use_cuda:
            self.support = self.support.cuda()
            self.net.cuda()

    def greedy_move(self, state):
        return (self.net(Variable(state.unsqueeze(0))).data * self.support).sum(2).max(1)[1][0]

    def greedy_q(self, state):
        return (self.net(Variable(state.unsqueeze(0))).data * self.support).sum(2).max(1)[0][0]


class Track(object):
    def __init__(self):
        self.moves = dict(zip(range(3), [-1, 0, 1]))
        self.place = 0

    def walk(self, action):
        move = self.moves.get(action)
        assert isinstance(move, int), "the move must be an int"
        self.place += move
        return float(-abs(self.place - 2))


agent = AtomAgent(3, 5)
track = Track()
qs = []
for t in range(6):
    state = torch.randn(6)
    action = agent.greedy_move(state)
    reward = track.walk(action)
    qs.append(agent.greedy_q(state))
    print("step %d action %d reward %.1f" % (t, action, reward))
print("mean q %.6f" % (sum(qs) / len(qs)))
