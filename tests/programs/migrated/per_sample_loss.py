"""Migrated copy of ../per_sample_loss.py: one-element targets with target[i:i + 1], .item() keys."""
import torch
import torch.nn as nn

chars = 'abcdef'
idx2char = {i: c for i, c in enumerate(chars)}


def to_tensor(text):
    return torch.tensor([chars.index(c) for c in text])


torch.manual_seed(0)
embed = nn.Embedding(len(chars), 4)
decoder = nn.Linear(4, len(chars))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(list(embed.parameters()) + list(decoder.parameters()), lr=0.2)
text = 'abcabcfed'
inp = to_tensor(text[:-1])
target = to_tensor(text[1:])
for step in range(3):
    optimizer.zero_grad()
    loss = 0
    for i in range(len(text) - 1):
        output = decoder(embed(inp[i:i + 1]))
        loss += criterion(output, target[i:i + 1])
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.item() / (len(text) - 1)))

with torch.no_grad():
    probs = decoder(embed(inp[0:1])).view(-1).exp()
sampled = ''
for _ in range(5):
    sampled += idx2char[torch.multinomial(probs, 1)[0].item()]
print("sampled", sampled)
