"""Migrated copy of ../expected_score.py: the class scores 1..5 are a float arange, as 0.3's was."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
num_classes = 5


class Similarity(nn.Module):
    def __init__(self, dim, hidden):
        super(Similarity, self).__init__()
        self.wh = nn.Linear(2 * dim, hidden)
        self.wp = nn.Linear(hidden, num_classes)

    def forward(self, lvec, rvec):
        mult = torch.mul(lvec, rvec)
        absdiff = torch.abs(lvec - rvec)
        out = torch.sigmoid(self.wh(torch.cat((mult, absdiff), 1)))
        return F.log_softmax(self.wp(out), dim=1)


def predict(model, pairs):
    predictions = torch.zeros(len(pairs))
    indices = torch.arange(1, num_classes + 1, dtype=torch.float)
    for idx, (left, right) in enumerate(pairs):
        output = model(left, right)
        predictions[idx] = torch.dot(indices, torch.exp(output.data.squeeze()))
    return predictions


class Split(object):
    def __init__(self, pairs, config):
        self.pairs = pairs
        self.num_classes = config["classes"]


def predict_split(model, split):
    scores = []
    indices = torch.arange(1, split.num_classes + 1, dtype=torch.float)
    for left, right in split.pairs:
        output = model(left, right)
        scores.append(torch.dot(indices, torch.exp(output.data.squeeze())))
    return scores


model = Similarity(4, 3)
pairs = [(torch.randn(1, 4), torch.randn(1, 4)) for _ in range(3)]
gold = torch.Tensor([1.5, 4.0, 2.5])
predictions = predict(model, pairs)
print("predictions", " ".join("%.4f" % p for p in predictions))
mse = ((predictions - gold) ** 2).mean()
print("mse %.4f" % mse)
print("first %.4f" % predictions[0])
split = Split(pairs, {"classes": num_classes})
print("split", " ".join("%.4f" % p for p in predict_split(model, split)))
