"""A 2017 recurrent layer of its own, written after 0.3's autograd RNN: it takes
a packed batch apart as ``input, batch_sizes = input`` and steps a cell through
the batch sizes, the longest sequences first.  0.3's PackedSequence had two
fields; since 0.4.1 it has four, and the unpacking raises."""
# needs: TV001 TV003 TV172
# before-error: ValueError: too many values to unpack
import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence


class StepRNN(nn.Module):
    def __init__(self, n_in, n_hid):
        super(StepRNN, self).__init__()
        self.cell = nn.RNNCell(n_in, n_hid)
        self.n_hid = n_hid

    def forward(self, input):
        is_packed = isinstance(input, PackedSequence)
        if is_packed:
            input, batch_sizes = input
        else:
            batch_sizes = [input.size(1)] * input.size(0)
            input = input.view(-1, input.size(2))
        h = Variable(torch.zeros(batch_sizes[0], self.n_hid))
        outputs, offset = [], 0
        for size in batch_sizes:
            h = self.cell(input[offset:offset + size], h[:size])
            outputs.append(h)
            offset += size
        return torch.cat(outputs, 0)


torch.manual_seed(0)
rnn = StepRNN(3, 5)
head = nn.Linear(5, 1)
optimizer = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.1)
x = Variable(torch.randn(4, 3, 3))  # (time, batch, features), lengths 4, 3, 2
lengths = [4, 3, 2]
target = Variable(torch.randn(9, 1))
for step in range(4):
    out = rnn(pack_padded_sequence(x, lengths))
    loss = ((head(out) - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('step %d loss %.5f' % (step, loss.data[0]))
print('unpacked %.5f' % rnn(x).sum().data[0])
