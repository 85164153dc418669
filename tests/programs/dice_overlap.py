"""A 2017 segmentation evaluation: a dice score summed with torch.dot of a (1, H, W)
prediction and an (H, W) mask, which 0.3 flattened."""
# needs: TV001 TV144 TV171
# before-error: 1D tensors expected
import torch
from torch.autograd import Variable

torch.manual_seed(0)


def dice_coeff(preds, masks):
    s = Variable(torch.zeros(1))
    for p, m in zip(preds, masks):
        inter = torch.dot(p, m)
        union = p.sum() + m.sum()
        s = s + (2 * inter + 1e-4) / (union + 1e-4)
    return s / len(preds)


preds = Variable(torch.rand(4, 1, 6, 6))
masks = Variable((torch.rand(4, 6, 6) > 0.5).float())
tot = 0
for i in range(3):
    tot += dice_coeff(preds * (i + 1) / 3, masks).data[0]
print("dice %.6f" % (tot / 3))
