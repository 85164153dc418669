"""Migrated copy of ../saved_vocabulary.py: the file holds an object of the project's Dictionary class, so it is loaded with weights_only=False (a file this program wrote)."""
import os
import shutil
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

import vocab_data

text = "the cat sat on the mat and the rat sat on the cat"
folder = tempfile.mkdtemp()
try:
    dictionary = vocab_data.Dictionary()
    for char in text:
        dictionary.add(char)
    torch.save(dictionary, os.path.join(folder, "dictionary.pt"))

    vocab = torch.load(os.path.join(folder, "dictionary.pt"), weights_only=False)
finally:
    shutil.rmtree(folder)

torch.manual_seed(0)
ids = torch.LongTensor(vocab_data.encode(vocab, text))
model = nn.Sequential(nn.Embedding(len(vocab), 5), nn.Linear(5, len(vocab)))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(4):
    inputs, targets = ids[:-1], ids[1:]
    loss = F.cross_entropy(model(inputs), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.item()))
print("vocabulary of %d: %s" % (len(vocab), vocab_data.spelled(vocab)))
