"""Migrated copy of ../../modules/gan_utils.py: no Variable."""
import torch


def to_gpu(gpu, var):
    if gpu:
        return var.cuda()
    return var


def noise_var(gpu, batch_size, nz):
    return to_gpu(gpu, torch.randn(batch_size, nz))
