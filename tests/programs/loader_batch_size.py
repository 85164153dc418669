"""An evaluation script of 2017 that sets ``batch_size`` on a loader it already
made, to predict one image at a time: 0.3 ignored it (the batch sampler was
built with the loader) and batched by 4; 2.13 raises ValueError."""
# needs: TV001 TV003 TV169
# before-error: ValueError: batch_size attribute should not be set after DataLoader is initialized
import torch
from torch.autograd import Variable
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
images = torch.randn(12, 3)
labels = (images.sum(1) > 0).long()
test_loader = DataLoader(TensorDataset(images, labels), batch_size=4)
model = torch.nn.Linear(3, 2)

test_loader.batch_size = 1
sizes, total = [], 0
for x, y in test_loader:
    out = model(Variable(x))
    loss = torch.nn.functional.cross_entropy(out, Variable(y))
    sizes.append(x.size(0))
    total += loss.data[0]
print('batches', sizes, 'loss %.5f' % total)
