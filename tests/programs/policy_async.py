"""A PyTorch 0.3 policy-gradient loop: async copies, .next() on the loader, multinomial(), normal(means=)."""
# needs: TV001 TV003 TV101 TV102 TV108 TV109 TV110
# before-error: SyntaxError: invalid syntax
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
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
    state, reward = data_iter.next()
    buffer.copy_(state, async=True)
    noise = torch.normal(means=torch.zeros(4, 4), std=0.1 * torch.ones(4, 4))
    probs = F.softmax(policy(Variable(buffer + noise)), dim=1)
    actions = probs.multinomial()
    log_probs = torch.log(probs.gather(1, actions)).squeeze(1)
    loss = -(log_probs * Variable(reward)).mean()
    optimizer.zero_grad()
    loss.backward(retain_variables=True)
    optimizer.step()
    print("step %d loss %.6f actions %s" % (step, loss.data[0], actions.view(-1).tolist()))
