"""A 2017 hand-written LSTM cell: its gates come from torch.split(..., split_size=hidden_size, dim=1), and the sequence output is flattened with the Variable's resize before the classifier."""
# needs: TV001 TV003 TV155 TV156
# before-error: unexpected keyword argument 'split_size'
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)


class LSTMCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(LSTMCell, self).__init__()
        self.hidden_size = hidden_size
        self.weight_ih = nn.Linear(input_size, 4 * hidden_size)
        self.weight_hh = nn.Linear(hidden_size, 4 * hidden_size, bias=False)

    def forward(self, x, state):
        h, c = state
        gates = self.weight_ih(x) + self.weight_hh(h)
        f, i, o, g = torch.split(gates, split_size=self.hidden_size, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


cell = LSTMCell(3, 4)
classifier = nn.Linear(5 * 4, 2)
inputs = Variable(torch.randn(5, 2, 3))
targets = Variable(torch.LongTensor([0, 1]))
h = Variable(torch.zeros(2, 4))
c = Variable(torch.zeros(2, 4))
outputs = []
for t in range(5):
    h, c = cell(inputs[t], (h, c))
    outputs.append(h)
hidden = torch.stack(outputs, 1)
logits = classifier(hidden.resize(2, 5 * 4))
loss = F.cross_entropy(logits, targets)
loss.backward()
print("loss %.4f" % loss.data[0])
print("grad %.4f" % cell.weight_ih.weight.grad.data.abs().sum())
