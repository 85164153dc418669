"""PCA and a Cholesky whitening of random points with torch.symeig and torch.potrf (removed)."""
# needs: TV001 TV111
# before-error: This function was deprecated since version 1.9 and is now removed
# hand-edit: torch.symeig(cov, eigenvectors=True) => torch.linalg.eigh(cov)
# hand-edit: torch.potrf(cov) => torch.linalg.cholesky(cov).mT
import torch
from torch.autograd import Variable

torch.manual_seed(0)
points = Variable(torch.randn(50, 3) * torch.Tensor([3.0, 1.0, 0.5]))
centered = points - points.mean(0, keepdim=True)
cov = centered.t().mm(centered) / (points.size(0) - 1)
eigenvalues, eigenvectors = torch.symeig(cov, eigenvectors=True)
print("eigenvalues", " ".join("%.5f" % v for v in eigenvalues.tolist()))
upper = torch.potrf(cov)
print("cholesky diagonal", " ".join("%.5f" % v for v in upper.diag().tolist()))
print("reconstructed", "%.5f" % (upper.t().mm(upper) - cov).abs().max().item())
