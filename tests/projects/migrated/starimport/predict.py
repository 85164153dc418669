from network import *

torch.manual_seed(0)
net = BaseNetwork()
x = ones(2)
score = net(x).sum()
print("%.4f" % score.item())
