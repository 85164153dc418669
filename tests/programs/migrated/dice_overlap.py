"""Migrated copy of ../dice_overlap.py: the operands of torch.dot are flattened."""
import torch

torch.manual_seed(0)


def dice_coeff(preds, masks):
    s = torch.zeros(1)
    for p, m in zip(preds, masks):
        inter = torch.dot(p.reshape(-1), m.reshape(-1))
        union = p.sum() + m.sum()
        s = s + (2 * inter + 1e-4) / (union + 1e-4)
    return s / len(preds)


preds = torch.rand(4, 1, 6, 6)
masks = (torch.rand(4, 6, 6) > 0.5).float()
tot = 0
for i in range(3):
    tot += dice_coeff(preds * (i + 1) / 3, masks)[0].item()
print("dice %.6f" % (tot / 3))
