"""An LSTM language model in the 0.3 word_language_model shape: hidden state repackaged
with type(h) == Variable, manual SGD through p.data.add_, loss summed through .data."""
# needs: TV001 TV002 TV003 TV004 TV005
# flags: --unsafe-fixes
# before-error: TypeError: iteration over a 0-d tensor
# hand-edit: Variable(source[i:i + seq_len], volatile=evaluation) => source[i:i + seq_len]
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
ntokens, emsize, nhid, nlayers, bptt, batch_size, lr = 10, 8, 8, 2, 5, 4, 1.0


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers):
        super(RNNModel, self).__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.init_weights()
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        self.encoder.weight.data.uniform_(-initrange, initrange)
        self.decoder.bias.data.fill_(0)
        self.decoder.weight.data.uniform_(-initrange, initrange)

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output.view(output.size(0) * output.size(1), output.size(2)))
        return decoded.view(output.size(0), output.size(1), decoded.size(1)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters()).data
        return (Variable(weight.new(self.nlayers, bsz, self.nhid).zero_()),
                Variable(weight.new(self.nlayers, bsz, self.nhid).zero_()))


def repackage_hidden(h):
    """Wraps hidden states in new Variables, to detach them from their history."""
    if type(h) == Variable:
        return Variable(h.data)
    else:
        return tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, evaluation=False):
    seq_len = min(bptt, len(source) - 1 - i)
    data = Variable(source[i:i + seq_len], volatile=evaluation)
    target = Variable(source[i + 1:i + 1 + seq_len].view(-1))
    return data, target


corpus = torch.LongTensor(120).random_(0, ntokens)
train_data = batchify(corpus[:96], batch_size)
val_data = batchify(corpus[96:], batch_size)
model = RNNModel(ntokens, emsize, nhid, nlayers)
criterion = nn.CrossEntropyLoss()


def train():
    model.train()
    total_loss = 0
    hidden = model.init_hidden(batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        for p in model.parameters():
            p.data.add_(-lr, p.grad.data)
        total_loss += loss.data
    return total_loss[0] / (batch + 1)


def evaluate(data_source):
    model.eval()
    total_loss = 0
    hidden = model.init_hidden(batch_size)
    for i in range(0, data_source.size(0) - 1, bptt):
        data, targets = get_batch(data_source, i, evaluation=True)
        output, hidden = model(data, hidden)
        output_flat = output.view(-1, ntokens)
        total_loss += len(data) * criterion(output_flat, targets).data
        hidden = repackage_hidden(hidden)
    return total_loss[0] / len(data_source)


for epoch in range(1, 3):
    train_loss = train()
    val_loss = evaluate(val_data)
    print('| epoch %d | train loss %.4f | valid loss %.4f' % (epoch, train_loss, val_loss))
