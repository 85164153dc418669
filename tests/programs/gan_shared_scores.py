"""A 2017 GAN tutorial loop: both losses from one D(G(z)) score, D's loss backward(retain_graph=True), opt_D.step(), then G's loss through D's old graph."""
# needs: TV001 TV003 TV114
# before-error: one of the variables needed for gradient computation has been modified by an inplace operation
# hand-edit:     opt_G.zero_grad()\n    G_loss.backward()\n =>     prob_artist1 = D(G_paintings)\n    G_loss = torch.mean(torch.log(1. - prob_artist1))\n    opt_G.zero_grad()\n    G_loss.backward()\n
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
BATCH_SIZE, N_IDEAS, ART_COMPONENTS = 8, 3, 6
points = torch.linspace(-1, 1, ART_COMPONENTS).unsqueeze(0)

G = nn.Sequential(nn.Linear(N_IDEAS, 16), nn.ReLU(), nn.Linear(16, ART_COMPONENTS))
D = nn.Sequential(nn.Linear(ART_COMPONENTS, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
opt_D = torch.optim.Adam(D.parameters(), lr=0.001)
opt_G = torch.optim.Adam(G.parameters(), lr=0.001)

for step in range(4):
    a = torch.rand(BATCH_SIZE, 1) + 1
    artist_paintings = Variable(a * points ** 2 + (a - 1))
    G_ideas = Variable(torch.randn(BATCH_SIZE, N_IDEAS))
    G_paintings = G(G_ideas)

    prob_artist0 = D(artist_paintings)
    prob_artist1 = D(G_paintings)

    D_loss = - torch.mean(torch.log(prob_artist0) + torch.log(1. - prob_artist1))
    G_loss = torch.mean(torch.log(1. - prob_artist1))

    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt_D.step()

    opt_G.zero_grad()
    G_loss.backward()
    opt_G.step()

    print('%d D accuracy %.6f D score %.6f G loss %.6f' % (
        step, prob_artist0.data.mean(), -D_loss.data[0], G_loss.data[0]))
