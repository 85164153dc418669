"""Migrated copy of ../spatial_transformer.py: align_corners=True keeps 0.3's sampling."""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
image = torch.arange(0, 36).view(1, 1, 6, 6).float()
theta = torch.tensor([[[0.8, 0.2, 0.1], [-0.1, 0.9, 0.05]]])
grid = F.affine_grid(theta, image.size(), align_corners=True)
warped = F.grid_sample(image, grid, align_corners=True)
print("grid corner %.5f %.5f" % (grid[0, 0, 0, 0].item(), grid[0, 0, 0, 1].item()))
print("warped sum %.5f" % warped.sum().item())
print("warped row %s" % " ".join("%.4f" % v for v in warped[0, 0, 2].tolist()))
