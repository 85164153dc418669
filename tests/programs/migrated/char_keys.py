"""Migrated copy of ../char_keys.py: the indices are made Python ints (.tolist())
before they key the dict, .item() for the loss, no Variable."""
import torch
import torch.nn as nn

torch.manual_seed(0)
text = "the cat sat on the mat and the rat ate the hat "
chars = sorted(set(text))
char2ix = {c: i for i, c in enumerate(chars)}
ix2char = {i: c for i, c in enumerate(chars)}

encoded = torch.tensor([char2ix[c] for c in text])

starts = [0, 4, 8, 12]
batch = torch.zeros(len(starts), 3, dtype=torch.long)
for row, s in enumerate(starts):
    batch[row] = encoded[s:s + 3]
firsts = []
for w in batch[:, 0].tolist():
    firsts.append(ix2char[w])
print('first chars:', firsts)

embed = nn.Embedding(len(chars), 8)
head = nn.Linear(8, len(chars))
params = list(embed.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=0.05)
criterion = nn.CrossEntropyLoss()
for step in range(20):
    loss = criterion(head(embed(encoded[:-1])), encoded[1:])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 4:
        print('step %d loss %.4f' % (step, loss.item()))

sample_ids = torch.zeros(10, dtype=torch.long)
sample_ids[0] = char2ix['t']
with torch.no_grad():
    for t in range(1, 10):
        logits = head(embed(sample_ids[t - 1:t]))
        sample_ids[t] = logits.argmax(1)[0]
print('greedy:', ''.join([ix2char[i] for i in sample_ids.tolist()]))
