"""A 2018 temporal convolution block: weight-normalised convolutions (nn.utils.weight_norm, new in 0.3) over inputs turned by an orthogonal matrix from torch.qr. Both moved since; the migrated copy uses their new homes and prints the same numbers."""
# needs: TV001 TV003 TV135
# flags: --unsafe-fixes
# before-error: IndexError
import torch
import torch.nn as nn
from torch.autograd import Variable


class Block(nn.Module):
    def __init__(self, channels):
        super(Block, self).__init__()
        self.conv1 = nn.utils.weight_norm(nn.Conv1d(channels, channels, 3, padding=1))
        self.conv2 = nn.utils.weight_norm(nn.Conv1d(channels, channels, 3, padding=1))

    def forward(self, x):
        return x + self.conv2(torch.relu(self.conv1(x)))


torch.manual_seed(0)
turn, _ = torch.qr(torch.randn(6, 6))
x = Variable(torch.randn(2, 4, 6).matmul(turn))
target = Variable(torch.randn(2, 4, 6))
block = Block(4)
optimizer = torch.optim.SGD(block.parameters(), lr=0.05)
for step in range(3):
    loss = ((block(x) - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.data[0]))
