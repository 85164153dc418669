"""Migrated copy of ../seq2seq.py: plain tensors, clip_grad_value_, .item()."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

torch.manual_seed(0)
SOS, EOS, V, H = 0, 1, 7, 12
words = ['<s>', '</s>', 'a', 'b', 'c', 'd', 'e']


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        embedded = self.embedding(input).view(1, 1, -1)
        return self.gru(embedded, hidden)

    def initHidden(self):
        return torch.zeros(1, 1, self.hidden_size)


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input, hidden):
        output = F.relu(self.embedding(input).view(1, 1, -1))
        output, hidden = self.gru(output, hidden)
        return F.log_softmax(self.out(output[0]), dim=1), hidden


def train(input_tensor, target_tensor, encoder, decoder, enc_opt, dec_opt, criterion):
    encoder_hidden = encoder.initHidden()
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    target_length = target_tensor.size(0)
    loss = 0
    for ei in range(input_tensor.size(0)):
        encoder_output, encoder_hidden = encoder(input_tensor[ei], encoder_hidden)
    decoder_input = torch.tensor([[SOS]])
    decoder_hidden = encoder_hidden
    for di in range(target_length):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
        loss += criterion(decoder_output, target_tensor[di])
        decoder_input = target_tensor[di]
    loss.backward()
    nn.utils.clip_grad_value_(list(encoder.parameters()) + list(decoder.parameters()), 5)
    enc_opt.step()
    dec_opt.step()
    return loss.item() / target_length


@torch.no_grad()
def greedy(encoder, decoder, sentence, max_length=6):
    encoder_hidden = encoder.initHidden()
    for ei in range(sentence.size(0)):
        _, encoder_hidden = encoder(sentence[ei], encoder_hidden)
    decoder_input = torch.tensor([[SOS]])
    decoder_hidden = encoder_hidden
    decoded = []
    for di in range(max_length):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
        ni = decoder_output.argmax(1).item()
        if ni == EOS:
            break
        decoded.append(words[ni])
        decoder_input = torch.tensor([[ni]])
    return ' '.join(decoded)


encoder, decoder = EncoderRNN(V, H), DecoderRNN(H, V)
enc_opt = optim.SGD(encoder.parameters(), lr=0.05)
dec_opt = optim.SGD(decoder.parameters(), lr=0.05)
criterion = nn.NLLLoss()
pairs = [([2, 3, 4], [4, 3, 2, EOS]), ([5, 6], [6, 5, EOS])]
for it in range(3):
    for src, tgt in pairs:
        src_t = torch.tensor(src).view(-1, 1)
        tgt_t = torch.tensor(tgt).view(-1, 1)
        loss = train(src_t, tgt_t, encoder, decoder, enc_opt, dec_opt, criterion)
        print('iter %d loss %.5f' % (it, loss))
print('greedy:', greedy(encoder, decoder, torch.tensor([2, 3, 4]).view(-1, 1)))
