"""Migrated copy of ../removed_linalg.py: torch.linalg.eigh and torch.linalg.cholesky."""
import torch

torch.manual_seed(0)
points = torch.randn(50, 3) * torch.tensor([3.0, 1.0, 0.5])
centered = points - points.mean(0, keepdim=True)
cov = centered.t().mm(centered) / (points.size(0) - 1)
eigenvalues, eigenvectors = torch.linalg.eigh(cov)
print("eigenvalues", " ".join("%.5f" % v for v in eigenvalues.tolist()))
upper = torch.linalg.cholesky(cov).mT
print("cholesky diagonal", " ".join("%.5f" % v for v in upper.diag().tolist()))
print("reconstructed", "%.5f" % (upper.t().mm(upper) - cov).abs().max().item())
