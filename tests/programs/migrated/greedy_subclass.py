"""A 2017 DQN port's greedy policy: the project's own subclass of Variable (it moved data to the GPU) called with volatile=True when acting."""
# needs: TV002
# flags: --unsafe-fixes
# before-warning: volatile was removed
import torch
import torch.nn as nn

torch.manual_seed(0)


class QNet(nn.Module):
    def __init__(self, n_in, n_actions):
        super(QNet, self).__init__()
        self.fc = nn.Linear(n_in, n_actions)

    def forward(self, x):
        return self.fc(x)


@torch.no_grad()
def select_action(model, obs):
    obs = obs.unsqueeze(0)
    return model(obs).max(1)[1].cpu()


model = QNet(4, 3)
observations = torch.randn(5, 4)
actions = [int(select_action(model, o)) for o in observations]
print("actions", actions)
q = model(observations)
print("q %.4f" % q.data.sum())
