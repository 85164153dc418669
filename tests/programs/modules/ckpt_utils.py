"""Checkpoint helpers of the helper_checkpoint program (0.3 repositories kept them in utils.py and called them with the path from the command line)."""
import torch


def save_model(model, file_name):
    with open(file_name, "wb") as f:
        torch.save(model, f)


def load_model(file_name):
    with open(file_name, "rb") as f:
        return torch.load(f)
