"""A PyTorch 0.3 REINFORCE loop whose reward helper returns ``0.`` when nothing
is picked and otherwise a value computed from reductions of its tensors: Python
numbers on 0.3, a float32 0-dim tensor since 0.4, so the history json writes
holds tensors (TypeError) and the baseline is computed in float32."""
# needs: TV001 TV144
# flags: --unsafe-fixes
# before-error: is not JSON serializable
import json

import torch
from torch.autograd import Variable


def compute_reward(seq, picks):
    if isinstance(seq, Variable):
        seq = seq.data
    if picks.sum() == 0:
        return 0.
    diversity = seq.var()
    closeness = torch.exp(torch.FloatTensor([-seq.mean()]))[0]
    return (diversity + closeness) * 0.5


torch.manual_seed(0)
policy = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(policy.parameters(), lr=0.1)
history = []
baseline = 0.
for episode in range(4):
    seq = Variable(torch.randn(6, 4))
    probs = torch.sigmoid(policy(seq)).squeeze(1)
    picks = torch.bernoulli(probs.data)
    reward = compute_reward(seq, picks)
    loss = -(Variable(picks) * torch.log(probs)).sum() * (reward - baseline)
    opt.zero_grad()
    loss.backward()
    opt.step()
    baseline = 0.9 * baseline + 0.1 * reward
    history.append(reward)
print(json.dumps(history))
print('%.12f' % baseline)
