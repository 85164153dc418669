"""A PyTorch 0.3 regression on a TensorDataset built by keyword; the first batch read with .next()."""
import torch
import torch.nn as nn
import torch.utils.data as Data

torch.manual_seed(0)
x = torch.linspace(-1, 1, 32).unsqueeze(1)
y = x.pow(2) + 0.1 * torch.randn(32, 1)
dataset = Data.TensorDataset(x, y)
train_loader = Data.DataLoader(dataset=dataset, batch_size=8, shuffle=True)
first_x, first_y = next(iter(train_loader))
print("first batch", first_x.size(), "mean %.6f" % float(first_y.mean()))

net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
loss_func = nn.MSELoss()
for epoch in range(3):
    total = 0.0
    for batch_x, batch_y in train_loader:
        prediction = net(batch_x)
        loss = loss_func(prediction, batch_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print("epoch %d loss %.6f" % (epoch, total))
