"""Migrated copy of ../line_search.py: the callback's 0-dim loss is read with .item()."""
import torch

torch.manual_seed(0)


def backtracking_search(f, fullstep, expected_rate):
    fval = f(0.0).data
    print("loss before %.4f" % fval.item())
    for stepfrac in .5 ** torch.arange(4).float():
        newfval = f(stepfrac * fullstep).data
        actual = fval - newfval
        ratio = actual / (expected_rate * stepfrac)
        print("step %.3f improve %.4f ratio %.3f" % (stepfrac, actual.item(), ratio.item()))
        if ratio.item() > 0.5 and actual.item() > 0:
            return stepfrac
    return 0.0


def update(weight, states, advantages):
    def surrogate_loss(step):
        prob = torch.sigmoid(states.mv(weight + step))
        return (-advantages * prob).mean()

    loss = surrogate_loss(0.0)
    grad = torch.autograd.grad(loss, weight)[0]
    return backtracking_search(surrogate_loss, -grad.data, (grad.data ** 2).sum())


weight = torch.randn(4).requires_grad_()
states = torch.randn(16, 4)
advantages = torch.randn(16)
print("accepted step %.3f" % update(weight, states, advantages))
