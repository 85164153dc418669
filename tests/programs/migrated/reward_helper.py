"""The REINFORCE loop migrated by hand: the reward helper returns numbers."""
import json

import torch


def compute_reward(seq, picks):
    if picks.sum() == 0:
        return 0.
    diversity = seq.var().item()
    closeness = torch.exp(torch.FloatTensor([-seq.mean()]))[0].item()
    return (diversity + closeness) * 0.5


torch.manual_seed(0)
policy = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(policy.parameters(), lr=0.1)
history = []
baseline = 0.
for episode in range(4):
    seq = torch.randn(6, 4)
    probs = torch.sigmoid(policy(seq)).squeeze(1)
    picks = torch.bernoulli(probs.data)
    reward = compute_reward(seq, picks)
    loss = -(picks * torch.log(probs)).sum() * (reward - baseline)
    opt.zero_grad()
    loss.backward()
    opt.step()
    baseline = 0.9 * baseline + 0.1 * reward
    history.append(reward)
print(json.dumps(history))
print('%.12f' % baseline)
