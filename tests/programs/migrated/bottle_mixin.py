"""A 2017 Transformer-style projection: a Bottle mixin flattens the batch and time dimensions with view before its Linear base, on the output of a position-wise feed-forward computed through transposes."""
# needs: TV115
# flags: --unsafe-fixes
# before-error: view size is not compatible with input tensor's size and stride
import torch
import torch.nn as nn

torch.manual_seed(0)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_hid, d_inner):
        super(PositionwiseFeedForward, self).__init__()
        self.w_1 = nn.Conv1d(d_hid, d_inner, 1)
        self.w_2 = nn.Conv1d(d_inner, d_hid, 1)
        self.relu = nn.ReLU()

    def forward(self, x):
        output = self.relu(self.w_1(x.transpose(1, 2)))
        output = self.w_2(output).transpose(2, 1)
        return output + x


class Bottle(nn.Module):
    def forward(self, input):
        if len(input.size()) <= 2:
            return super(Bottle, self).forward(input)
        size = input.size()[:2]
        out = super(Bottle, self).forward(input.reshape(size[0] * size[1], -1))
        return out.view(size[0], size[1], -1)


class BottleLinear(Bottle, nn.Linear):
    pass


ffn = PositionwiseFeedForward(6, 8)
proj = BottleLinear(6, 4)
x = torch.randn(2, 5, 6)
logits = proj(ffn(x))
print("logits", tuple(logits.size()))
print("sum %.4f" % logits.data.sum())
print("first %.4f" % logits.data[0, 0, 0])
