"""A 2017 per-pixel classifier: a 1x1-conv head, log_softmax over the classes, NLLLoss2d."""
# needs: TV001 TV003 TV111
# flags: --unsafe-fixes
# before-warning: `NLLLoss2d` has been deprecated
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)
n_classes = 3
head = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, n_classes, 1))
criterion = nn.NLLLoss2d(weight=torch.Tensor([1.0, 2.0, 0.5]))
optimizer = optim.SGD(head.parameters(), lr=0.1)
images = Variable(torch.randn(4, 2, 6, 6))
labels = Variable((torch.rand(4, 6, 6) * n_classes).long())
for step in range(5):
    optimizer.zero_grad()
    loss = criterion(F.log_softmax(head(images), dim=1), labels)
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.data[0]))
