"""A PyTorch 0.3 WGAN-GP style critic step: Adam with the paper's betas, (0, 0.9),
beta1 taken from an option whose default argparse leaves an int.  Since PyTorch 2.6
Adam raises ValueError unless both betas are floats."""
# needs: TV003 TV158
# before-error: ValueError: betas must be either both floats or both Tensors
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument('--beta1', type=float, default=0)
opt = parser.parse_args([])

torch.manual_seed(0)
D = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
G = nn.Linear(2, 4)
optD = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(opt.beta1, 0.9))
optG = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0, 0.9))
real = torch.randn(16, 4) + 1
for step in range(3):
    fake = G(torch.randn(16, 2))
    lossD = D(fake.detach()).mean() - D(real).mean()
    optD.zero_grad()
    lossD.backward()
    optD.step()
    lossG = -D(G(torch.randn(16, 2))).mean()
    optG.zero_grad()
    lossG.backward()
    optG.step()
    print('step %d D %.6f G %.6f' % (step, lossD.data[0], lossG.data[0]))
