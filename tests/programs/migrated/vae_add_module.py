"""The add_module VAE, migrated by hand to PyTorch 2.13: tensors for Variables,
``.item()`` for the elements read through ``.data``."""
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, layer_sizes, latent_size):
        super(Encoder, self).__init__()
        self.MLP = nn.Sequential()
        for i, (in_size, out_size) in enumerate(zip(layer_sizes[:-1], layer_sizes[1:])):
            self.MLP.add_module(name="L%i" % (i), module=nn.Linear(in_size, out_size))
            self.MLP.add_module(name="A%i" % (i), module=nn.ReLU())
        self.linear_means = nn.Linear(layer_sizes[-1], latent_size)
        self.linear_log_var = nn.Linear(layer_sizes[-1], latent_size)

    def forward(self, x):
        x = self.MLP(x)
        return self.linear_means(x), self.linear_log_var(x)


class Decoder(nn.Module):
    def __init__(self, layer_sizes, latent_size):
        super(Decoder, self).__init__()
        self.MLP = nn.Sequential()
        sizes = zip([latent_size] + layer_sizes[:-1], layer_sizes)
        for i, (in_size, out_size) in enumerate(sizes):
            self.MLP.add_module(name="L%i" % (i), module=nn.Linear(in_size, out_size))
            if i + 1 < len(layer_sizes):
                self.MLP.add_module(name="A%i" % (i), module=nn.ReLU())
            else:
                self.MLP.add_module(name="sigmoid", module=nn.Sigmoid())

    def forward(self, z):
        return self.MLP(z)


class VAE(nn.Module):
    def __init__(self, encoder_layer_sizes, latent_size, decoder_layer_sizes):
        super(VAE, self).__init__()
        self.latent_size = latent_size
        self.encoder = Encoder(encoder_layer_sizes, latent_size)
        self.decoder = Decoder(decoder_layer_sizes, latent_size)

    def forward(self, x):
        batch_size = x.size(0)
        means, log_var = self.encoder(x)
        std = torch.exp(0.5 * log_var)
        eps = torch.randn([batch_size, self.latent_size])
        z = eps * std + means
        return self.decoder(z), means, log_var, z


torch.manual_seed(0)
vae = VAE([8, 6], 2, [6, 8])
optimizer = torch.optim.Adam(vae.parameters(), lr=0.01)
data = torch.rand(4, 8)
for step in range(3):
    x = data
    recon_x, mean, log_var, z = vae(x)
    kld = -0.5 * torch.sum(1 + log_var - mean.pow(2) - log_var.exp())
    loss = ((recon_x - x) ** 2).sum() + kld
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for i in range(2):
        print('z %.4f %.4f' % (z[i, 0].item(), z[i, 1].item()))
    print('step %d loss %.4f' % (step, loss.item()))
