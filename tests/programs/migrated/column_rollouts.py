"""A PyTorch 0.3 sequence sampler scored step by step: each row's token from torch.multinomial(p, 1) and a critic's (N, 1) score are stored as columns of the batch (samples[:, t] = out.data)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
vocab, hidden, batch, steps = 7, 12, 5, 6


class Sampler(nn.Module):
    def __init__(self):
        super(Sampler, self).__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, tokens, h):
        h = self.cell(self.embed(tokens), h)
        return h, F.log_softmax(self.out(h.view(-1, hidden)), dim=1)

    def rollout(self, n, length):
        samples = torch.zeros(n, length).long()
        scores = torch.zeros(n, length)
        values = torch.zeros(n, length)
        h = torch.zeros(n, hidden)
        tokens = torch.zeros(n, dtype=torch.long)
        for t in range(length):
            h, logp = self.forward(tokens, h)
            out = torch.multinomial(torch.exp(logp), 1)
            samples[:, t] = out.view(-1)
            scores[:, t] = torch.sigmoid(self.critic(h.view(-1, hidden))).detach().view(-1)
            values[:, t].copy_(self.critic(h.view(-1, hidden)).detach().view(-1))
            tokens = out.view(-1)
        return samples, scores, values


model = Sampler()
samples, scores, values = model.rollout(batch, steps)
print("samples", samples.tolist())
print("scores %.4f values %.4f" % (scores.sum(), values.sum()))
