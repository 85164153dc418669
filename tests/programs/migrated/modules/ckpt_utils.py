"""Migrated copy of ../../modules/ckpt_utils.py: the files hold whole models (what every caller saves), so they are loaded with weights_only=False (files the program wrote)."""
import torch


def save_model(model, file_name):
    with open(file_name, "wb") as f:
        torch.save(model, f)


def load_model(file_name):
    with open(file_name, "rb") as f:
        return torch.load(f, weights_only=False)
