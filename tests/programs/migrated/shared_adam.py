"""The shared optimizer migrated by hand: the step count a tensor, as Adam keeps it."""
import torch
import torch.nn as nn


class SharedAdam(torch.optim.Adam):
    def __init__(self, params, lr=1e-3):
        super(SharedAdam, self).__init__(params, lr)
        for group in self.param_groups:
            for p in group['params']:
                state = self.state[p]
                state['step'] = torch.tensor(0.0)
                state['exp_avg'] = p.data.new().resize_as_(p.data).zero_()
                state['exp_avg_sq'] = p.data.new().resize_as_(p.data).zero_()

    def share_memory(self):
        for group in self.param_groups:
            for p in group['params']:
                self.state[p]['exp_avg'].share_memory_()
                self.state[p]['exp_avg_sq'].share_memory_()


torch.manual_seed(0)
model = nn.Linear(4, 2)
optimizer = SharedAdam(model.parameters(), lr=0.05)
optimizer.share_memory()
x = torch.randn(6, 4)
y = torch.randn(6, 2)
for step in range(4):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.item()))
