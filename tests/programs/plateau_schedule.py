"""A 2017 regression loop that lowers its learning rate when the validation loss stops falling (ReduceLROnPlateau, new in 0.2, told not to be verbose, as its loop prints the rate): PyTorch 2.13's schedulers take no verbose."""
# needs: TV001 TV003 TV136
# before-error: unexpected keyword argument 'verbose'
import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.optim.lr_scheduler import ReduceLROnPlateau

torch.manual_seed(0)
x = Variable(torch.randn(32, 3))
y = Variable(x.data.mm(torch.Tensor([[1.0], [-2.0], [0.5]])) + 0.3 * torch.randn(32, 1))
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.9)
scheduler = ReduceLROnPlateau(optimizer, 'min', factor=0.5, patience=0, verbose=False)
for epoch in range(10):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    val = ((model(x) - y) ** 2).mean().data[0]
    scheduler.step(val)
    print("epoch %d loss %.5f lr %.4f" % (epoch, val, optimizer.param_groups[0]['lr']))
