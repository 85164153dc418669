"""Migrated copy of ../checkpoint_settings.py: the checkpoint holds a Namespace, so it is loaded with weights_only=False (a file this program wrote)."""
import argparse
import io

import torch
import torch.nn as nn

torch.manual_seed(0)
parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=5)
opt = parser.parse_args([])
model = nn.Sequential(nn.Linear(3, opt.hidden), nn.Tanh(), nn.Linear(opt.hidden, 1))
buffer = io.BytesIO()
torch.save({"settings": opt, "model": model.state_dict()}, buffer)
buffer.seek(0)

checkpoint = torch.load(buffer, weights_only=False)
settings = checkpoint["settings"]
restored = nn.Sequential(nn.Linear(3, settings.hidden), nn.Tanh(),
                         nn.Linear(settings.hidden, 1))
restored.load_state_dict(checkpoint["model"])
x = torch.randn(4, 3)
print("restored %.5f" % restored(x).sum().item())
