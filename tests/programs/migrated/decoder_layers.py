"""decoder_layers.py, migrated by hand to PyTorch 2.13."""
import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self, hidden_size, output_size, n_layers=1, dropout=0.2):
        super(Decoder, self).__init__()
        self.embed = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, n_layers)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, word, hidden):
        embedded = self.embed(word).unsqueeze(0)
        output, hidden = self.gru(embedded, hidden)
        return self.out(output.squeeze(0)), hidden


torch.manual_seed(0)
decoder = Decoder(6, 5, n_layers=1, dropout=0.5)
optimizer = torch.optim.SGD(decoder.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()
targets = torch.LongTensor([[1, 2, 3, 4], [4, 3, 2, 1]])
for epoch in range(3):
    hidden = torch.zeros(1, 2, 6)
    word = torch.LongTensor([0, 0])
    loss = 0
    for t in range(4):
        out, hidden = decoder(word, hidden)
        target = targets[:, t]
        loss = loss + criterion(out, target)
        word = target
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('epoch %d loss %.5f' % (epoch, loss.item() / 4))
