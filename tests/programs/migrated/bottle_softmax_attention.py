"""bottle_softmax_attention.py as written for PyTorch 2.13 by hand."""
import torch
import torch.nn as nn


class Bottle(nn.Module):
    def forward(self, input):
        if len(input.size()) <= 2:
            return super(Bottle, self).forward(input)
        size = input.size()[:2]
        out = super(Bottle, self).forward(input.view(size[0] * size[1], -1))
        return out.view(size[0], size[1], -1)


class BottleSoftmax(Bottle, nn.Softmax):
    pass


class FlatSoftmax(nn.Softmax):
    def forward(self, x):
        size = x.size()
        return super(FlatSoftmax, self).forward(x.view(-1, size[-1])).view(size)


class Attention(nn.Module):
    def __init__(self, d_model):
        super(Attention, self).__init__()
        self.temper = d_model ** 0.5
        self.softmax = BottleSoftmax(dim=1)
        self.flat = FlatSoftmax(dim=1)

    def forward(self, q, k, v):
        attn = torch.bmm(q, k.transpose(1, 2)) / self.temper
        attn = self.softmax(attn)
        return torch.bmm(attn, v), self.flat(attn * 3)


torch.manual_seed(0)
layer = Attention(4)
q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 4)
out, sharp = layer(q, k, v)
print(" ".join("%.5f" % x for x in out.view(-1)[:6].tolist()))
print(" ".join("%.5f" % x for x in sharp.view(-1)[:6].tolist()))
