"""A character model trained one step at a time: criterion(output, target[i]), then idx2char[sampled id]."""
# needs: TV001 TV003 TV107
# flags: --unsafe-fixes
# before-error: Expected input batch_size (1) to match target batch_size (0)
import torch
import torch.nn as nn
from torch.autograd import Variable

chars = 'abcdef'
idx2char = {i: c for i, c in enumerate(chars)}


def to_tensor(text):
    return Variable(torch.LongTensor([chars.index(c) for c in text]))


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
        output = decoder(embed(inp[i]).view(1, -1))
        loss += criterion(output, target[i])
    loss.backward()
    optimizer.step()
    print("step %d loss %.6f" % (step, loss.data[0] / (len(text) - 1)))

probs = decoder(embed(inp[0]).view(1, -1)).data.view(-1).exp()
sampled = ''
for _ in range(5):
    sampled += idx2char[torch.multinomial(probs, 1)[0]]
print("sampled", sampled)
