"""A 2017 TRPO-style update: the line search gets the loss as a callback, reads it with .data and indexes the result with [0]."""
# needs: TV001 TV003
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
from torch.autograd import Variable

torch.manual_seed(0)


def backtracking_search(f, fullstep, expected_rate):
    fval = f(0.0).data
    print("loss before %.4f" % fval[0])
    for stepfrac in .5 ** torch.arange(4).float():
        newfval = f(stepfrac * fullstep).data
        actual = fval - newfval
        ratio = actual / (expected_rate * stepfrac)
        print("step %.3f improve %.4f ratio %.3f" % (stepfrac, actual[0], ratio[0]))
        if ratio[0] > 0.5 and actual[0] > 0:
            return stepfrac
    return 0.0


def update(weight, states, advantages):
    def surrogate_loss(step):
        prob = torch.sigmoid(Variable(states).mv(weight + step))
        return (-Variable(advantages) * prob).mean()

    loss = surrogate_loss(0.0)
    grad = torch.autograd.grad(loss, weight)[0]
    return backtracking_search(surrogate_loss, -grad.data, (grad.data ** 2).sum())


weight = Variable(torch.randn(4), requires_grad=True)
states = torch.randn(16, 4)
advantages = torch.randn(16)
print("accepted step %.3f" % update(weight, states, advantages))
