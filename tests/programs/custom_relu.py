"""A PyTorch 0.3 two-layer net with its own legacy ReLU Function, an instance made each step (relu = MyReLU())."""
# needs: TV001 TV003 TV004 TV104
# flags: --unsafe-fixes
# before-error: Legacy autograd function with non-static forward method is deprecated
import torch
from torch.autograd import Variable


class MyReLU(torch.autograd.Function):
    def forward(self, input):
        self.save_for_backward(input)
        return input.clamp(min=0)

    def backward(self, grad_output):
        input, = self.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class Shift(torch.autograd.Function):
    def __init__(self, offset):
        super(Shift, self).__init__()
        self.offset = offset

    def forward(self, x):
        return x + self.offset

    def backward(self, grad_output):
        return grad_output


torch.manual_seed(0)
x = Variable(torch.randn(16, 10), requires_grad=False)
y = Variable(torch.randn(16, 3), requires_grad=False)
w1 = Variable(torch.randn(10, 8), requires_grad=True)
w2 = Variable(torch.randn(8, 3), requires_grad=True)
learning_rate = 1e-3
for t in range(4):
    relu = MyReLU()
    shift = Shift(0.5)
    y_pred = relu(shift(x.mm(w1))).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    print("step %d loss %.6f" % (t, loss.data[0]))
    loss.backward()
    w1.data -= learning_rate * w1.grad.data
    w2.data -= learning_rate * w2.grad.data
    w1.grad.data.zero_()
    w2.grad.data.zero_()
