"""A PyTorch 0.3 training loop: Variable wraps and the loss read with .data[0]."""
# needs: TV001 TV003
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(8, 3)
targets = torch.randn(8, 1)
for step in range(3):
    x = Variable(inputs)
    y = Variable(targets, requires_grad=False)
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.data[0]))
