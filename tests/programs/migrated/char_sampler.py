"""A PyTorch 0.3 character sampler with a gradient penalty: torch.multinomial(p), grad(retain_variables=)."""
import torch
import torch.nn as nn
from torch.autograd import grad

torch.manual_seed(0)
vocab = "abcdefgh"
embed = nn.Embedding(len(vocab), 6)
head = nn.Linear(6, len(vocab))
optimizer = torch.optim.Adam(list(embed.parameters()) + list(head.parameters()), lr=0.05)
text = torch.tensor([0, 1, 2, 3, 4, 5, 6, 7, 0, 1])
for step in range(4):
    inputs = embed(text[:-1]).detach().requires_grad_()
    logits = head(inputs)
    loss = nn.functional.cross_entropy(logits, text[1:])
    penalty = grad(loss, inputs, create_graph=True, retain_graph=True)[0].pow(2).sum()
    optimizer.zero_grad()
    (loss + penalty).backward()
    optimizer.step()
    print("step %d loss %.6f penalty %.6f" % (step, loss.item(), penalty.item()))

weights = nn.functional.softmax(head(embed.weight[:1]), dim=1).detach().view(-1)
chars = [vocab[int(torch.multinomial(weights, num_samples=1))] for _ in range(12)]
print("".join(chars))
