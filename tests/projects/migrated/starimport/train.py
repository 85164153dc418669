from model import *

torch.manual_seed(0)
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
criterion = nn.MSELoss()
total = 0.0
for step in range(5):
    x, y = make_batch(8)
    loss = criterion(net(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total += loss.item()
print("%.4f" % total)
