"""A 2017 conditional VAE's latent tracker: each example's label is read as yi[0] from the rows of y.data and the points are grouped by label for a plot (0.3 gave Python ints; 0-dim tensors hash by identity)."""
# needs: TV144
# flags: --unsafe-fixes
# before-silent: every 0-dim label is a group of its own
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
encoder = nn.Linear(4, 2)
x = Variable(torch.randn(12, 4))
y = Variable(torch.LongTensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]))
y = y.view(-1, 1)
z = encoder(x)
tracker = {}
for i, yi in enumerate(y.data):
    tracker[i] = {"x": z.data[i, 0], "label": yi[0]}
groups = {}
for point in tracker.values():
    groups.setdefault(point["label"], []).append(point["x"])
print("groups", len(groups))
print("means", " ".join("%.4f" % (sum(v) / len(v)) for k, v in sorted(groups.items())))
