"""A PyTorch 0.3 regression on a TensorDataset built by keyword; the first batch read with .next()."""
# needs: TV001 TV003 TV105 TV110
# before-error: TypeError: TensorDataset.__init__() got an unexpected keyword argument 'data_tensor'
import torch
import torch.nn as nn
import torch.utils.data as Data
from torch.autograd import Variable

torch.manual_seed(0)
x = torch.linspace(-1, 1, 32).unsqueeze(1)
y = x.pow(2) + 0.1 * torch.randn(32, 1)
dataset = Data.TensorDataset(data_tensor=x, target_tensor=y)
train_loader = Data.DataLoader(dataset=dataset, batch_size=8, shuffle=True)
first_x, first_y = iter(train_loader).next()
print("first batch", first_x.size(), "mean %.6f" % float(first_y.mean()))

net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
loss_func = nn.MSELoss()
for epoch in range(3):
    total = 0.0
    for batch_x, batch_y in train_loader:
        prediction = net(Variable(batch_x))
        loss = loss_func(prediction, Variable(batch_y))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.data[0]
    print("epoch %d loss %.6f" % (epoch, total))
