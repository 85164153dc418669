"""Migrated copy of ../finetune_freeze.py: nn.init on the new classifier, .item() sums,
and the scheduler's first step skipped: 0.3's schedule ran an epoch behind (its
constructor left last_epoch at -1), so epoch 2 ran at the first rate."""
import copy

import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)


class Pretrained(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 10), nn.ReLU())
        self.classifier = nn.Linear(10, 4)

    def forward(self, x):
        return self.classifier(self.features(x))


model = Pretrained()
for param in model.features.parameters():
    param.requires_grad = False
model.classifier = nn.Linear(10, 3)
nn.init.normal_(model.classifier.weight, 0, 0.01)
nn.init.zeros_(model.classifier.bias)

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5,
                      momentum=0.9)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.1)
inputs_all = torch.randn(24, 6)
labels_all = (inputs_all[:, :3].sum(1) > 0).long() + (inputs_all[:, 3] > 1).long()
best_acc, best_wts = 0.0, copy.deepcopy(model.state_dict())

for epoch in range(3):
    running_loss = 0.0
    running_corrects = 0
    for i in range(0, 24, 8):
        inputs = inputs_all[i:i + 8]
        labels = labels_all[i:i + 8]
        optimizer.zero_grad()
        outputs = model(inputs)
        preds = outputs.argmax(1)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.size(0)
        running_corrects += (preds == labels).sum().item()
    if epoch > 0:
        scheduler.step()
    epoch_loss = running_loss / 24
    epoch_acc = running_corrects / 24.0
    print('epoch {} Loss: {:.4f} Acc: {:.4f}'.format(epoch, epoch_loss, epoch_acc))
    if epoch_acc > best_acc:
        best_acc = epoch_acc
        best_wts = copy.deepcopy(model.state_dict())
model.load_state_dict(best_wts)
print('Best val Acc: {:4f}'.format(best_acc))
