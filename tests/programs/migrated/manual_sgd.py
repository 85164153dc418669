"""Migrated copy of ../manual_sgd.py: the SGD step under torch.no_grad()."""
import torch

torch.manual_seed(0)
lr = 0.1
x = torch.randn(16, 3)
true_w = torch.tensor([[1.0], [-2.0], [0.5]])
y = x.mm(true_w) + 0.3

w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(5):
    y_pred = x.mm(w) + b
    loss = (y_pred - y).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    print('step %d loss %.6f' % (step, loss.item()))
print('w', ' '.join('%.4f' % v for v in w.view(-1).tolist()), 'b %.4f' % b.item())
