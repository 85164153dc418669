"""A 0.3-style segmentation net: F.upsample, upsample_bilinear, bilinear nn.Upsample,
a per-pixel loss with reduce=False and a softmax over the class dimension.  On 2.13 the
bilinear upsampling defaults to align_corners=False: the fix restores 0.3's numbers, so
the fixed program prints what the migrated copy prints, not what the legacy one prints."""
# needs: TV120 TV123 TV124
# flags: --unsafe-fixes
# before-warning: `nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.
# before-warning: `nn.functional.upsample_bilinear` is deprecated.
# before-warning: size_average and reduce args will be deprecated, please use reduction='none'
# before-warning: Implicit dimension choice for softmax has been deprecated
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class SegNet(nn.Module):
    def __init__(self, classes=3):
        super(SegNet, self).__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.score = nn.Conv2d(8, classes, 1)
        self.up = nn.Upsample(scale_factor=2, mode='bilinear')

    def forward(self, x):
        h = F.relu(self.down(x))
        s = self.score(h)
        a = F.upsample(s, size=x.size()[2:], mode='bilinear')
        b = F.upsample_bilinear(s, scale_factor=2)
        c = self.up(s)
        return (a + b + c) / 3


torch.manual_seed(0)
net = SegNet()
criterion = nn.CrossEntropyLoss(reduce=False)
optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
images = Variable(torch.randn(2, 3, 8, 8))
labels = Variable(torch.LongTensor(2, 8, 8).random_(0, 3))
for step in range(3):
    optimizer.zero_grad()
    out = net(images)
    loss = criterion(out, labels).mean()
    loss.backward()
    optimizer.step()
    probs = F.softmax(out)
    print("%d %.5f %.5f %.5f" % (step, float(loss.data), float(probs.data.mean()),
                                 float(probs.data.max())))
