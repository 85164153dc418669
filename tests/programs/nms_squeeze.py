"""A 2017 detector's non-maximum suppression: the boxes left after each round
found with ``(ovr <= t).nonzero().squeeze()``.  When one box is left, 0.3's
squeeze gave shape (1,); 2.13's gives a 0-dim tensor, and ``order[0]`` of the
next round raises."""
# needs: TV001 TV003 TV168
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
from torch.autograd import Variable


def nms(boxes, scores, threshold=0.3):
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = scores.sort(0, descending=True)[1]
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        xx1 = x1[order[1:]].clamp(min=x1[i])
        yy1 = y1[order[1:]].clamp(min=y1[i])
        xx2 = x2[order[1:]].clamp(max=x2[i])
        yy2 = y2[order[1:]].clamp(max=y2[i])
        inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)
        ovr = inter / (areas[i] + areas[order[1:]] - inter)
        ids = (ovr <= threshold).nonzero().squeeze()
        if ids.numel() == 0:
            break
        order = order[ids + 1]
    return torch.LongTensor(keep)


boxes = torch.Tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30],
                      [21, 21, 29, 29], [50, 50, 60, 60]])
scores = Variable(torch.Tensor([0.9, 0.8, 0.7, 0.95, 0.6]))
kept = nms(boxes, scores.data)
total = scores[kept].sum()
print('kept', kept.tolist(), 'score %.4f' % total.data[0])
labels = torch.LongTensor([0, 0, 3, 0])
positives = (labels > 0).nonzero().squeeze()
print('positives', len(positives), positives.tolist())
