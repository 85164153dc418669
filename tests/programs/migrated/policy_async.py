"""A PyTorch 0.3 policy-gradient loop: async copies, .next() on the loader, multinomial(), normal(means=)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
states = torch.randn(16, 4)
rewards = torch.randn(16)
loader = DataLoader(TensorDataset(states, rewards), batch_size=4)
policy = nn.Linear(4, 3)
optimizer = torch.optim.SGD(policy.parameters(), lr=0.1)
buffer = torch.zeros(4, 4)
data_iter = iter(loader)
for step in range(3):
    state, reward = next(data_iter)
    buffer.copy_(state, non_blocking=True)
    noise = torch.normal(mean=torch.zeros(4, 4), std=0.1 * torch.ones(4, 4))
    probs = F.softmax(policy(buffer + noise), dim=1)
    actions = probs.multinomial(num_samples=1)
    log_probs = torch.log(probs.gather(1, actions)).squeeze(1)
    loss = -(log_probs * reward).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
    print("step %d loss %.6f actions %s" % (step, loss.item(), actions.view(-1).tolist()))
