"""A GRU encoder-decoder with teacher forcing, in the shape of the 0.3 seq2seq tutorial:
the loss summed over time steps, gradients clamped through p.grad.data, greedy decoding."""
# needs: TV001 TV003 TV004
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.autograd import Variable

torch.manual_seed(0)
SOS, EOS, V, H = 0, 1, 7, 12
words = ['<s>', '</s>', 'a', 'b', 'c', 'd', 'e']


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        embedded = self.embedding(input).view(1, 1, -1)
        return self.gru(embedded, hidden)

    def initHidden(self):
        return Variable(torch.zeros(1, 1, self.hidden_size))


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(DecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input, hidden):
        output = F.relu(self.embedding(input).view(1, 1, -1))
        output, hidden = self.gru(output, hidden)
        return F.log_softmax(self.out(output[0]), dim=1), hidden


def train(input_variable, target_variable, encoder, decoder, enc_opt, dec_opt, criterion):
    encoder_hidden = encoder.initHidden()
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    target_length = target_variable.size()[0]
    loss = 0
    for ei in range(input_variable.size()[0]):
        encoder_output, encoder_hidden = encoder(input_variable[ei], encoder_hidden)
    decoder_input = Variable(torch.LongTensor([[SOS]]))
    decoder_hidden = encoder_hidden
    for di in range(target_length):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
        loss += criterion(decoder_output, target_variable[di])
        decoder_input = target_variable[di]
    loss.backward()
    for p in list(encoder.parameters()) + list(decoder.parameters()):
        p.grad.data.clamp_(-5, 5)
    enc_opt.step()
    dec_opt.step()
    return loss.data[0] / target_length


def greedy(encoder, decoder, sentence, max_length=6):
    encoder_hidden = encoder.initHidden()
    for ei in range(sentence.size()[0]):
        _, encoder_hidden = encoder(sentence[ei], encoder_hidden)
    decoder_input = Variable(torch.LongTensor([[SOS]]))
    decoder_hidden = encoder_hidden
    decoded = []
    for di in range(max_length):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
        topv, topi = decoder_output.data.topk(1)
        ni = int(topi[0][0])
        if ni == EOS:
            break
        decoded.append(words[ni])
        decoder_input = Variable(torch.LongTensor([[ni]]))
    return ' '.join(decoded)


encoder, decoder = EncoderRNN(V, H), DecoderRNN(H, V)
enc_opt = optim.SGD(encoder.parameters(), lr=0.05)
dec_opt = optim.SGD(decoder.parameters(), lr=0.05)
criterion = nn.NLLLoss()
pairs = [([2, 3, 4], [4, 3, 2, EOS]), ([5, 6], [6, 5, EOS])]
for it in range(3):
    for src, tgt in pairs:
        src_v = Variable(torch.LongTensor(src).view(-1, 1))
        tgt_v = Variable(torch.LongTensor(tgt).view(-1, 1))
        loss = train(src_v, tgt_v, encoder, decoder, enc_opt, dec_opt, criterion)
        print('iter %d loss %.5f' % (it, loss))
print('greedy:', greedy(encoder, decoder, Variable(torch.LongTensor([2, 3, 4]).view(-1, 1))))
