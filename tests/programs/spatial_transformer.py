"""A 2017 spatial transformer step: a fixed affine theta, affine_grid and grid_sample on a small image."""
# needs: TV001 TV133
# before-warning: Default grid_sample and affine_grid behavior has changed to align_corners=False
import torch
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
image = Variable(torch.arange(0, 36).view(1, 1, 6, 6).float())
theta = Variable(torch.Tensor([[[0.8, 0.2, 0.1], [-0.1, 0.9, 0.05]]]))
grid = F.affine_grid(theta, image.size())
warped = F.grid_sample(image, grid)
print("grid corner %.5f %.5f" % (grid[0, 0, 0, 0].item(), grid[0, 0, 0, 1].item()))
print("warped sum %.5f" % warped.sum().item())
print("warped row %s" % " ".join("%.4f" % v for v in warped[0, 0, 2].tolist()))
