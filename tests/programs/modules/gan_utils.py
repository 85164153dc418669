"""Helpers of a 0.3-era GAN project (imported by ../wgan_helper_module.py)."""
import torch
from torch.autograd import Variable


def to_gpu(gpu, var):
    if gpu:
        return var.cuda()
    return var


def noise_var(gpu, batch_size, nz):
    return Variable(to_gpu(gpu, torch.randn(batch_size, nz)))
