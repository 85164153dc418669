"""Linear regression with a hand-written SGD step, as 0.3 tutorials taught it."""
# needs: TV001 TV003 TV004
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
from torch.autograd import Variable

torch.manual_seed(0)
lr = 0.1
x = Variable(torch.randn(16, 3))
true_w = torch.FloatTensor([[1.0], [-2.0], [0.5]])
y = Variable(x.data.mm(true_w) + 0.3, requires_grad=False)

w = Variable(torch.zeros(3, 1), requires_grad=True)
b = Variable(torch.zeros(1), requires_grad=True)
for step in range(5):
    y_pred = x.mm(w) + b
    loss = (y_pred - y).pow(2).mean()
    loss.backward()
    w.data -= lr * w.grad.data
    b.data = b.data - lr * b.grad.data
    w.grad.data.zero_()
    b.grad.data.zero_()
    print('step %d loss %.6f' % (step, loss.data[0]))
print('w', ' '.join('%.4f' % v for v in w.data.view(-1).tolist()), 'b %.4f' % b.data[0])
