"""A denoising model whose noise layer skips inference by reading x.volatile, as 0.3
code did to tell training from evaluation."""
# needs: TV001 TV002 TV003
# flags: --unsafe-fixes
# before-warning: volatile was removed (Variable.volatile is always False)
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


class GaussianNoise(nn.Module):
    def __init__(self, sigma):
        super(GaussianNoise, self).__init__()
        self.sigma = sigma

    def forward(self, x):
        if self.training and not x.volatile:
            noise = Variable(x.data.new(x.size()).normal_(0, self.sigma))
            return x + noise
        return x


model = nn.Sequential(GaussianNoise(0.1), nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
clean = torch.randn(16, 4)
for step in range(4):
    x = Variable(clean)
    optimizer.zero_grad()
    loss = ((model(x) - x) ** 2).mean()
    loss.backward()
    optimizer.step()
    print('step %d loss %.6f' % (step, loss.data[0]))
model.eval()
print('eval %.6f' % ((model(Variable(clean)) - clean) ** 2).mean().data[0])
