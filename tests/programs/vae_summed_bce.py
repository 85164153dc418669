"""A 2017 VAE example: the reconstruction loss is a BCELoss whose size_average attribute is set to False after construction (0.3 then summed over the batch and the pixels), plus the KL term, trained for a few steps."""
# needs: TV001 TV003 TV120
# before-error: invalid index of a 0-dim tensor
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.autograd import Variable

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(16, 8)
        self.fc21 = nn.Linear(8, 2)
        self.fc22 = nn.Linear(8, 2)
        self.fc3 = nn.Linear(2, 8)
        self.fc4 = nn.Linear(8, 16)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparametrize(self, mu, logvar):
        std = logvar.mul(0.5).exp_()
        eps = Variable(torch.randn(std.size()))
        return eps.mul(std).add_(mu)

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparametrize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE()
reconstruction_function = nn.BCELoss()
reconstruction_function.size_average = False


def loss_function(recon_x, x, mu, logvar):
    BCE = reconstruction_function(recon_x, x)
    KLD_element = mu.pow(2).add_(logvar.exp()).mul_(-1).add_(1).add_(logvar)
    KLD = torch.sum(KLD_element).mul_(-0.5)
    return BCE + KLD


optimizer = optim.Adam(model.parameters(), lr=1e-2)
data = torch.rand(32, 16).round()
for step in range(5):
    inputs = Variable(data[step * 6:step * 6 + 6])
    optimizer.zero_grad()
    recon, mu, logvar = model(inputs)
    loss = loss_function(recon, inputs, mu, logvar)
    loss.backward()
    optimizer.step()
    print("step %d loss %.4f" % (step, loss.data[0]))
