"""hidden_choice.py, migrated by hand to PyTorch 2.13."""
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.LSTMCell(3, 4)
out = nn.Linear(4, 2)
state = (torch.zeros(2, 4), torch.zeros(2, 4))
total = 0.0
for x in torch.randn(5, 2, 3):
    state = cell(x, state)
    hidden = state[0] if isinstance(state, tuple) else state
    total += out(hidden).sum().item()
print('total %.6f' % total)
