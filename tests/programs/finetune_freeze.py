"""Transfer learning in the shape of the 0.3 tutorial: a frozen feature extractor, a new
classifier initialised through .data, running loss and corrects read through .data."""
# needs: TV001 TV003 TV004 TV163
# flags: --unsafe-fixes
# before-error: IndexError: invalid index of a 0-dim tensor
import copy

import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

torch.manual_seed(0)


class Pretrained(nn.Module):
    def __init__(self):
        super(Pretrained, self).__init__()
        self.features = nn.Sequential(nn.Linear(6, 10), nn.ReLU())
        self.classifier = nn.Linear(10, 4)

    def forward(self, x):
        return self.classifier(self.features(x))


model = Pretrained()
for param in model.features.parameters():
    param.requires_grad = False
model.classifier = nn.Linear(10, 3)
model.classifier.weight.data.normal_(0, 0.01)
model.classifier.bias.data.zero_()

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.5,
                      momentum=0.9)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.1)
inputs_all = torch.randn(24, 6)
labels_all = (inputs_all[:, :3].sum(1) > 0).long() + (inputs_all[:, 3] > 1).long()
best_acc, best_wts = 0.0, copy.deepcopy(model.state_dict())

for epoch in range(3):
    running_loss = 0.0
    running_corrects = 0
    for i in range(0, 24, 8):
        inputs = Variable(inputs_all[i:i + 8])
        labels = Variable(labels_all[i:i + 8])
        optimizer.zero_grad()
        outputs = model(inputs)
        _, preds = torch.max(outputs.data, 1)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.data[0] * inputs.size(0)
        running_corrects += torch.sum(preds == labels.data)
    scheduler.step()
    epoch_loss = running_loss / 24
    epoch_acc = running_corrects / 24.0
    print('epoch {} Loss: {:.4f} Acc: {:.4f}'.format(epoch, epoch_loss, epoch_acc))
    if epoch_acc > best_acc:
        best_acc = epoch_acc
        best_wts = copy.deepcopy(model.state_dict())
model.load_state_dict(best_wts)
print('Best val Acc: {:4f}'.format(best_acc))
