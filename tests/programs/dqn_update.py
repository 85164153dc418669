"""A DQN update in the shape of the 0.3 tutorial: volatile next-state values switched back
with .volatile = False, a soft target update through .data.copy_, the loss read with .data[0]."""
# needs: TV001 TV002 TV003 TV004
# flags: --unsafe-fixes
# before-warning: volatile was removed and now has no effect
# before-error: IndexError: invalid index of a 0-dim tensor
# hand-edit: Variable(non_final, volatile=True) => non_final
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)
random.seed(0)
GAMMA, TAU, BATCH = 0.9, 0.5, 6

policy_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
target_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.RMSprop(policy_net.parameters(), lr=0.01)

memory = []
for _ in range(20):
    state = torch.randn(1, 4)
    next_state = None if random.random() < 0.2 else torch.randn(1, 4)
    memory.append((state, torch.LongTensor([[random.randrange(2)]]), next_state,
                   torch.FloatTensor([random.random()])))


def optimize_model():
    batch = random.sample(memory, BATCH)
    states, actions, next_states, rewards = zip(*batch)
    non_final_idx = torch.LongTensor([i for i, s in enumerate(next_states) if s is not None])
    non_final = torch.cat([s for s in next_states if s is not None])
    non_final_next_states = Variable(non_final, volatile=True)
    state_batch = Variable(torch.cat(states))
    action_batch = Variable(torch.cat(actions))
    reward_batch = Variable(torch.cat(rewards))

    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = Variable(torch.zeros(BATCH))
    next_state_values[non_final_idx] = target_net(non_final_next_states).max(1)[0]
    next_state_values.volatile = False
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch

    loss = F.smooth_l1_loss(state_action_values.view(-1), expected_state_action_values)
    optimizer.zero_grad()
    loss.backward()
    for param in policy_net.parameters():
        param.grad.data.clamp_(-1, 1)
    optimizer.step()
    return loss


for step in range(4):
    loss = optimize_model()
    for target_param, param in zip(target_net.parameters(), policy_net.parameters()):
        target_param.data.copy_(TAU * param.data + (1 - TAU) * target_param.data)
    print('step %d loss %.6f' % (step, loss.data[0]))
