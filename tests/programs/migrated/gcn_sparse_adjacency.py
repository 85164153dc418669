"""A 2018 graph convolutional network: the normalised adjacency built with
torch.sparse.FloatTensor(indices, values, shape) and multiplied with torch.spmm."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
edges = torch.LongTensor([[0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 2, 3],
                          [1, 0, 2, 1, 3, 2, 0, 3, 0, 1, 2, 3]])
weights = torch.ones(edges.size(1)) / 3.0
adj = torch.sparse_coo_tensor(edges, weights, torch.Size([4, 4]), check_invariants=False)
features = torch.randn(4, 5)
labels = torch.LongTensor([0, 1, 0, 1])
layer1, layer2 = nn.Linear(5, 8), nn.Linear(8, 2)
optimizer = torch.optim.Adam(list(layer1.parameters()) + list(layer2.parameters()), lr=0.05)
for epoch in range(5):
    optimizer.zero_grad()
    hidden = F.relu(torch.spmm(adj, layer1(features)))
    output = F.log_softmax(torch.spmm(adj, layer2(hidden)), dim=1)
    loss = F.nll_loss(output, labels)
    loss.backward()
    optimizer.step()
    print("epoch %d loss %.6f" % (epoch, loss.item()))
