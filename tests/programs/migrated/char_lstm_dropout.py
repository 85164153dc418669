"""Migrated copy of ../char_lstm_dropout.py: no dropout on the one-layer LSTM, no Variable, .item()."""
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
text = "hello world, hello torch"
chars = sorted(set(text))
index = {c: i for i, c in enumerate(chars)}


class CharLSTM(nn.Module):
    def __init__(self, n_chars, hidden):
        super(CharLSTM, self).__init__()
        self.embed = nn.Embedding(n_chars, 8)
        self.lstm = nn.LSTM(8, hidden)
        self.out = nn.Linear(hidden, n_chars)

    def forward(self, seq):
        h, _ = self.lstm(self.embed(seq).unsqueeze(1))
        return self.out(h.squeeze(1))


model = CharLSTM(len(chars), 16)
optimizer = optim.SGD(model.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()
seq = torch.LongTensor([index[c] for c in text[:-1]])
target = torch.LongTensor([index[c] for c in text[1:]])
for step in range(5):
    model.train()
    optimizer.zero_grad()
    loss = criterion(model(seq), target)
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.item()))
