"""A classifier whose weight is dropped out (the AWD-LSTM WeightDrop), with 0.3's idioms after 0.4."""
# needs: TV110 TV113 TV118 TV131
# before-error: 'enumerate' object has no attribute 'next'
# hand-edit:             w = F.dropout(raw_w, p=self.dropout, training=self.training)\n => \n            if self.training:\n                w = F.dropout(raw_w, p=self.dropout, training=True)\n            else:\n                w = raw_w.clone()\n
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Parameter
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_tensor_type('torch.DoubleTensor')
torch.manual_seed(0)


class WeightDrop(nn.Module):
    def __init__(self, module, weights, dropout=0):
        super(WeightDrop, self).__init__()
        self.module = module
        self.weights = weights
        self.dropout = dropout
        for name_w in self.weights:
            w = getattr(self.module, name_w)
            del self.module._parameters[name_w]
            self.module.register_parameter(name_w + '_raw', Parameter(w.data))

    def _setweights(self):
        for name_w in self.weights:
            raw_w = getattr(self.module, name_w + '_raw')
            w = F.dropout(raw_w, p=self.dropout, training=self.training)
            setattr(self.module, name_w, w)

    def forward(self, *args):
        self._setweights()
        return self.module.forward(*args)


model = WeightDrop(nn.Linear(4, 3), ['weight'], dropout=0.5)
inputs = torch.randn(12, 4)
labels = torch.LongTensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])
loader = DataLoader(TensorDataset(inputs, labels), batch_size=4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(3):
    model.train()
    for x, y in loader:
        loss = F.nll_loss(F.log_softmax(model(x), dim=1), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    j, (x, y) = enumerate(loader, 0).next()
    scores = model(x)
    scores.clamp(-1, 1, out=scores)
    print("epoch", epoch, "loss %.6f" % loss.item(), "scores", " ".join("%.5f" % v for v in scores.view(-1).tolist()))
print("dtype", scores.dtype)
