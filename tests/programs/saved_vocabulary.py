"""A 2017 character model: the preparation step saves its vocabulary, an object of the project's own Dictionary class, and training reads it back. The load's uses say nothing; the class of what was saved says what the file holds."""
# needs: TV001 TV003 TV106
# flags: --unsafe-fixes
# module: vocab_data.py
# before-error: Weights only load failed
import os
import shutil
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

import vocab_data

text = "the cat sat on the mat and the rat sat on the cat"
folder = tempfile.mkdtemp()
try:
    dictionary = vocab_data.Dictionary()
    for char in text:
        dictionary.add(char)
    torch.save(dictionary, os.path.join(folder, "dictionary.pt"))

    vocab = torch.load(os.path.join(folder, "dictionary.pt"))
finally:
    shutil.rmtree(folder)

torch.manual_seed(0)
ids = torch.LongTensor(vocab_data.encode(vocab, text))
model = nn.Sequential(nn.Embedding(len(vocab), 5), nn.Linear(5, len(vocab)))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(4):
    inputs, targets = Variable(ids[:-1]), Variable(ids[1:])
    loss = F.cross_entropy(model(inputs), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step %d loss %.5f" % (step, loss.data[0]))
print("vocabulary of %d: %s" % (len(vocab), vocab_data.spelled(vocab)))
