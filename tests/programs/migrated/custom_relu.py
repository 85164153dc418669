"""A PyTorch 0.3 two-layer net with its own legacy ReLU Function, an instance made each step (relu = MyReLU())."""
import torch


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class Shift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, offset):
        return x + offset

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


torch.manual_seed(0)
x = torch.randn(16, 10)
y = torch.randn(16, 3)
w1 = torch.randn(10, 8, requires_grad=True)
w2 = torch.randn(8, 3, requires_grad=True)
learning_rate = 1e-3
for t in range(4):
    y_pred = MyReLU.apply(Shift.apply(x.mm(w1), 0.5)).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    print("step %d loss %.6f" % (t, loss.item()))
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
    w1.grad.zero_()
    w2.grad.zero_()
