"""Migrated copy of ../eval_volatile.py: evaluation under torch.no_grad(), .item()."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 12)
        self.fc2 = nn.Linear(12, 3)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        return F.log_softmax(self.fc2(x), dim=1)


data = torch.randn(48, 6)
target = (data[:, 0] > 0).long() + (data[:, 1] > 0.5).long()
train_data, train_target = data[:32], target[:32]
test_data, test_target = data[32:], target[32:]
model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.5)


def train(epoch):
    model.train()
    for batch_idx in range(4):
        x = train_data[batch_idx * 8:(batch_idx + 1) * 8]
        y = train_target[batch_idx * 8:(batch_idx + 1) * 8]
        optimizer.zero_grad()
        output = model(x)
        loss = F.nll_loss(output, y)
        loss.backward()
        optimizer.step()
        if batch_idx % 2 == 0:
            print('Train Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                epoch, batch_idx * 8, len(train_data), loss.item()))


def test():
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for i in range(0, len(test_data), 8):
            x, y = test_data[i:i + 8], test_target[i:i + 8]
            output = model(x)
            test_loss += F.nll_loss(output, y).item() * len(x)
            pred = output.argmax(1)
            correct += pred.eq(y).sum().item()
    test_loss /= len(test_data)
    print('Test set: Average loss: {:.4f}, Accuracy: {:.0f}%'.format(
        test_loss, 100. * correct / len(test_data)))


test()
for epoch in range(1, 3):
    train(epoch)
    test()
