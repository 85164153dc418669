"""A 2017 A3C-style worker (one process here): the worker's gradients are made
the shared model's (ensure_shared_grads), and the optimizer of the shared model
zeroes them before each update."""
import torch
import torch.nn as nn
import torch.optim as optim


def ensure_shared_grads(model, shared_model):
    for param, shared_param in zip(model.parameters(), shared_model.parameters()):
        if shared_param.grad is not None:
            return
        shared_param._grad = param.grad


torch.manual_seed(0)
shared_model = nn.Linear(3, 1)
model = nn.Linear(3, 1)
optimizer = optim.SGD(shared_model.parameters(), lr=0.1)
for step in range(5):
    model.load_state_dict(shared_model.state_dict())
    x = torch.randn(4, 3)
    loss = model(x).pow(2).mean()
    optimizer.zero_grad(set_to_none=False)
    loss.backward()
    ensure_shared_grads(model, shared_model)
    optimizer.step()
    print('step %d loss %.5f' % (step, loss.item()))
print('weights %.5f' % shared_model.weight.data.sum())
