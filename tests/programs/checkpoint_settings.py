"""A 2017 checkpoint: the training settings (an argparse.Namespace) saved beside the weights, read back to rebuild the model."""
# needs: TV001 TV003 TV106
# flags: --unsafe-fixes
# before-error: Weights only load failed
import argparse
import io

import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=5)
opt = parser.parse_args([])
model = nn.Sequential(nn.Linear(3, opt.hidden), nn.Tanh(), nn.Linear(opt.hidden, 1))
buffer = io.BytesIO()
torch.save({"settings": opt, "model": model.state_dict()}, buffer)
buffer.seek(0)

checkpoint = torch.load(buffer)
settings = checkpoint["settings"]
restored = nn.Sequential(nn.Linear(3, settings.hidden), nn.Tanh(),
                         nn.Linear(settings.hidden, 1))
restored.load_state_dict(checkpoint["model"])
x = Variable(torch.randn(4, 3))
print("restored %.5f" % restored(x).sum().data[0])
