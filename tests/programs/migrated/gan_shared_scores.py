"""Migrated copy of ../gan_shared_scores.py: G's loss from D's score recomputed after opt_D.step(), .item()."""
import torch
import torch.nn as nn

torch.manual_seed(0)
BATCH_SIZE, N_IDEAS, ART_COMPONENTS = 8, 3, 6
points = torch.linspace(-1, 1, ART_COMPONENTS).unsqueeze(0)

G = nn.Sequential(nn.Linear(N_IDEAS, 16), nn.ReLU(), nn.Linear(16, ART_COMPONENTS))
D = nn.Sequential(nn.Linear(ART_COMPONENTS, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
opt_D = torch.optim.Adam(D.parameters(), lr=0.001)
opt_G = torch.optim.Adam(G.parameters(), lr=0.001)

for step in range(4):
    a = torch.rand(BATCH_SIZE, 1) + 1
    artist_paintings = a * points ** 2 + (a - 1)
    G_ideas = torch.randn(BATCH_SIZE, N_IDEAS)
    G_paintings = G(G_ideas)

    prob_artist0 = D(artist_paintings)
    prob_artist1 = D(G_paintings)

    D_loss = - torch.mean(torch.log(prob_artist0) + torch.log(1. - prob_artist1))
    G_loss = torch.mean(torch.log(1. - prob_artist1))

    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt_D.step()

    prob_artist1 = D(G_paintings)
    G_loss = torch.mean(torch.log(1. - prob_artist1))
    opt_G.zero_grad()
    G_loss.backward()
    opt_G.step()

    print('%d D accuracy %.6f D score %.6f G loss %.6f' % (
        step, prob_artist0.mean().item(), -D_loss.item(), G_loss.item()))
