"""A 2017 regression on a TensorDataset: trained from a DataLoader's batches, then
evaluated on the whole dataset read back through loader.dataset.data_tensor."""
import torch
import torch.nn as nn
import torch.utils.data as data_utils

torch.manual_seed(0)
inputs = torch.randn(32, 3)
targets = inputs.sum(1, keepdim=True) * 0.5
train = data_utils.TensorDataset(inputs, targets)
loader = data_utils.DataLoader(train, batch_size=8, shuffle=False)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def evaluate(data_loader):
    x = data_loader.dataset.tensors[0]
    y = data_loader.dataset.tensors[1]
    return ((model(x) - y) ** 2).mean()


for epoch in range(3):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print('epoch %d loss %.5f' % (epoch, evaluate(loader).item()))
