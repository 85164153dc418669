"""The annealed-ELBO training loop, migrated by hand to PyTorch 2.13: the
0-dim loss is made one element (``view(1)``) before it joins the tracker, and
read with ``.item()``."""
from __future__ import print_function

import argparse
import math

import torch
import torch.nn as nn


class TinyVAE(nn.Module):
    def __init__(self):
        super(TinyVAE, self).__init__()
        self.enc = nn.Linear(6, 4)
        self.dec = nn.Linear(2, 6)

    def forward(self, x):
        h = self.enc(x)
        mean, logv = h[:, :2], h[:, 2:]
        z = mean + torch.exp(0.5 * logv) * 0.1
        return self.dec(z), mean, logv


def main(args):
    torch.manual_seed(0)
    model = TinyVAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    data = torch.randn(24, 6)

    def kl_anneal_function(anneal_function, step, k, x0):
        if anneal_function == 'logistic':
            return float(1 / (1 + math.exp(-k * (step - x0))))
        elif anneal_function == 'linear':
            return min(1, step / x0)

    def loss_fn(recon, x, mean, logv, anneal_function, step, k, x0):
        NLL_loss = ((recon - x) ** 2).sum()
        KL_loss = -0.5 * torch.sum(1 + logv - mean.pow(2) - logv.exp())
        KL_weight = kl_anneal_function(anneal_function, step, k, x0)
        return NLL_loss, KL_loss, KL_weight

    tracker = torch.Tensor()
    step = 0
    for epoch in range(args.epochs):
        for i in range(0, 24, args.batch_size):
            x = data[i:i + args.batch_size]
            recon, mean, logv = model(x)
            NLL_loss, KL_loss, KL_weight = loss_fn(recon, x, mean, logv, args.anneal_function,
                                                   step, args.k, args.x0)
            loss = (NLL_loss + KL_weight * KL_loss) / args.batch_size
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            tracker = torch.cat((tracker, loss.detach().view(1)))
        print('epoch %d loss %.5f weight %.4f' % (epoch, loss.item(), KL_weight))
    print('batches %d mean ELBO %.5f' % (tracker.numel(), tracker.mean()))


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('-ep', '--epochs', type=int, default=3)
    parser.add_argument('-bs', '--batch_size', type=int, default=8)
    parser.add_argument('-af', '--anneal_function', type=str, default='linear')
    parser.add_argument('-k', '--k', type=float, default=0.0025)
    parser.add_argument('-x0', '--x0', type=int, default=5)
    main(parser.parse_args())
