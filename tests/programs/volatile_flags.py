"""Reading .volatile and passing volatile=False, as 0.3 evaluation code did."""
# needs: TV001 TV002
# flags: --unsafe-fixes
# before-warning: volatile was removed (Variable.volatile is always False)
import torch
from torch.autograd import Variable

torch.manual_seed(0)
w = Variable(torch.randn(3, 2), requires_grad=True)
x = Variable(torch.ones(4, 3), volatile=False)
out = x.mm(w)
if out.volatile:
    print("no graph")
else:
    print("graph")
out.sum().backward()
print("grad %.6f" % w.grad.sum().item())
