"""A 2017 DCGAN-style discriminator step: the last convolution makes a 1x1 map, so
the output is (N, 1, 1, 1), scored by BCELoss against (N,) labels."""
import torch
import torch.nn as nn

torch.manual_seed(0)
netD = nn.Sequential(nn.Conv2d(1, 4, 4, 2, 1), nn.LeakyReLU(0.2),
                     nn.Conv2d(4, 1, 4, 1, 0), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(netD.parameters(), lr=0.1)
for step in range(3):
    real = torch.rand(4, 1, 8, 8)
    output = netD(real)
    label = torch.ones(4)
    loss = criterion(output, label.view_as(output))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print('step %d loss %.5f' % (step, loss.item()))
