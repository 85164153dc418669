"""Fixes of TV120-TV129 (the deprecations that warn): exact (source, expected) tables.

Each row runs the fixer with the one rule; the result must parse and be a
fixpoint.  The combined rows run TV004 with TV121/TV126, whose fixes touch
the same calls.
"""
import ast

import pytest

from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text

HEADER = (
    "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "from torch.nn import init\nfrom torch.autograd import Variable\n"
)


def run(source, codes, unsafe=False):
    result = fix_text(HEADER + source, lambda text: Analysis(text, codes), unsafe)
    ast.parse(result.text)
    again = fix_text(result.text, lambda text: Analysis(text, codes), unsafe)
    assert again.text == result.text and not again.fixed
    assert result.text.startswith(HEADER)
    return result.text[len(HEADER):]


FIXES = [
    # TV120
    ("TV120", "c = nn.CrossEntropyLoss(size_average=False)\n",
     "c = nn.CrossEntropyLoss(reduction='sum')\n"),
    ("TV120", "l = F.nll_loss(o, t, size_average=False, reduce=False)\n",
     "l = F.nll_loss(o, t, reduction='none')\n"),
    ("TV120", "l = F.nll_loss(o, t, reduce=True, size_average=True)\n",
     "l = F.nll_loss(o, t, reduction='mean')\n"),
    ("TV120", "l = F.mse_loss(o, t, size_average=None, reduce=False)\n",
     "l = F.mse_loss(o, t, reduction='none')\n"),
    ("TV120", "c = nn.MSELoss(reduce=False, size_average=False)\n",
     "c = nn.MSELoss(reduction='none')\n"),
    ("TV120", "c = nn.BCELoss(weight=w,\n               size_average=False)\n",
     "c = nn.BCELoss(weight=w,\n               reduction='sum')\n"),
    ("TV120", "c = nn.MSELoss(size_average=False, weight=w)\n",
     "c = nn.MSELoss(reduction='sum', weight=w)\n"),
    ("TV120", "c = nn.L1Loss(reduce=0)\n", "c = nn.L1Loss(reduction='none')\n"),
    # the KL divergence's 'mean' warns: its number is the sum over the number of elements
    ("TV120", "l = F.kl_div(o, t)\n", "l = F.kl_div(o, t, reduction='sum') / o.numel()\n", True),
    ("TV120", "l = F.kl_div(o, t, reduction='mean', log_target=True) * T\n",
     "l = F.kl_div(o, t, log_target=True, reduction='sum') / o.numel() * T\n", True),
    ("TV120", "l = F.kl_div(self.o, t, size_average=True)\n",
     "l = F.kl_div(self.o, t, reduction='sum') / self.o.numel()\n", True),
    ("TV120", "l = T / F.kl_div(o[0], t).item()\n",
     "l = T / (F.kl_div(o[0], t, reduction='sum') / o[0].numel()).item()\n", True),
    # a legacy attribute set on a loss module: 2.13 reads `reduction` only
    ("TV120", "c = nn.BCELoss()\nc.size_average = False\n",
     "c = nn.BCELoss()\nc.reduction = 'sum'\n"),
    ("TV120", "c = nn.MSELoss(weight=w).cuda()\nc.reduce = False\n",
     "c = nn.MSELoss(weight=w).cuda()\nc.reduction = 'none'\n"),
    # on self, constructed with a reduction, or both attributes set: unsafe
    ("TV120", "class M(nn.Module):\n    def __init__(self):\n"
     "        self.c = nn.BCELoss()\n        self.c.size_average = False\n",
     "class M(nn.Module):\n    def __init__(self):\n"
     "        self.c = nn.BCELoss()\n        self.c.reduction = 'sum'\n", True),
    ("TV120", "c = nn.BCELoss(reduction='none')\nc.size_average = False\n",
     "c = nn.BCELoss(reduction='none')\nc.reduction = 'sum'\n", True),
    # the old keywords of the construction count (0.3 derived the reduction from both)
    ("TV120", "c = nn.BCELoss(reduce=False)\nc.size_average = False\n",
     "c = nn.BCELoss(reduction='none')\nc.reduction = 'none'\n"),
    # TV155: keywords renamed in 0.4
    ("TV155", "a, b = torch.split(x, split_size=2, dim=1)\n",
     "a, b = torch.split(x, split_size_or_sections=2, dim=1)\n"),
    ("TV155", "m = nn.Linear(2, 2).cuda(device_id=0)\n", "m = nn.Linear(2, 2).cuda(device=0)\n"),
    # TV156: the non-inplace resize
    ("TV156", "y = Variable(x).resize(4, 4)\n", "y = Variable(x).reshape(4, 4)\n"),
    ("TV156", "y = torch.ones(16).resize (4, 4)\n", "y = torch.ones(16).reshape (4, 4)\n"),
    # TV121
    ("TV121", "init.xavier_uniform(m.weight)\n", "init.xavier_uniform_(m.weight)\n"),
    ("TV121", "nn.init.constant(m.bias, 0)\n", "nn.init.constant_(m.bias, 0)\n"),
    ("TV121", "w = torch.nn.init.orthogonal(m.weight, gain=2)\n",
     "w = torch.nn.init.orthogonal_(m.weight, gain=2)\n"),
    ("TV121", "from torch.nn.init import kaiming_normal\nkaiming_normal(m.weight)\n",
     "from torch.nn.init import kaiming_normal_\nkaiming_normal_(m.weight)\n"),  # (the old
    # name's import, unused now, goes)
    # TV122
    ("TV122", "torch.nn.utils.clip_grad_norm(model.parameters(), 0.5)\n",
     "torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)\n"),
    ("TV122", "n = nn.utils.clip_grad_norm(ps, 5)\n", "n = nn.utils.clip_grad_norm_(ps, 5)\n"),
    # TV123
    ("TV123", "def f(x):\n    x = x.view(-1, 320)\n    return F.log_softmax(x)\n",
     "def f(x):\n    x = x.view(-1, 320)\n    return F.log_softmax(x, dim=1)\n"),
    ("TV123", "y = F.softmax(torch.randn(5, 3, 4))\n",
     "y = F.softmax(torch.randn(5, 3, 4), dim=0)\n"),
    ("TV123", "y = F.softmax(v.view(-1), None)\n", "y = F.softmax(v.view(-1), 0)\n"),
    # a matrix-vector product is 1-D, a batched product 3-D, and a transpose keeps the
    # rank: 0.3 took dim=0 for both (dim=1 would raise, or change the numbers)
    ("TV123", "def f(h, q):\n    s = torch.mv(h, q)\n    return F.softmax(2 * s)\n",
     "def f(h, q):\n    s = torch.mv(h, q)\n    return F.softmax(2 * s, dim=0)\n"),
    ("TV123", "def f(a, b):\n    s = torch.bmm(a, b)\n    s = s.transpose(0, 2)\n"
     "    return F.softmax(s)\n",
     "def f(a, b):\n    s = torch.bmm(a, b)\n    s = s.transpose(0, 2)\n"
     "    return F.softmax(s, dim=0)\n"),
    # a 1-D product scaled by a value of unknown kind (``args.theta``): the unsafe fix
    # writes the operand's implicit dim, not dim=1 (IndexError on a 1-D input)
    ("TV123", "def f(h, q, a):\n    s = torch.mv(h, q)\n    return F.softmax(a.t * s)\n",
     "def f(h, q, a):\n    s = torch.mv(h, q)\n    return F.softmax(a.t * s, dim=0)\n", True),
    ("TV123", "def f(x, a):\n    s = x.view(-1, 4)\n    return F.softmax(s / a.t)\n",
     "def f(x, a):\n    s = x.view(-1, 4)\n    return F.softmax(s / a.t, dim=1)\n", True),
    ("TV123", "def f(x, a):\n    s = x.view(-1)\n    return F.softmax(s * a.t + a.u)\n",
     "def f(x, a):\n    s = x.view(-1)\n    return F.softmax(s * a.t + a.u, dim=1)\n", True),
    # through a helper that only wraps its argument (``cuda_variable(torch.zeros(n))``)
    ("TV123", "def var(t):\n    return Variable(t.cuda()) if C else Variable(t)\n\n"
     "def f(hs):\n    n = len(hs)\n    return F.softmax(var(torch.zeros(n)))\n",
     "def var(t):\n    return Variable(t.cuda()) if C else Variable(t)\n\n"
     "def f(hs):\n    n = len(hs)\n    return F.softmax(var(torch.zeros(n)), dim=0)\n"),
    ("TV123", "def f(a, b):\n    return F.log_softmax(torch.mm(a, b))\n",
     "def f(a, b):\n    return F.log_softmax(torch.mm(a, b), dim=1)\n"),
    ("TV123", "y = F.softmax(x, dim=None)\n", "y = F.softmax(x, dim=1)\n", True),
    ("TV123", "y = F.softmax(scores)\n", "y = F.softmax(scores, dim=1)\n", True),
    ("TV123", "s = nn.Softmax()\n", "s = nn.Softmax(dim=1)\n", True),
    ("TV123",
     "class N(nn.Module):\n    def __init__(self):\n        self.sm = nn.LogSoftmax()\n"
     "    def forward(self, x):\n        return self.sm(x.view(x.size(0), -1))\n",
     "class N(nn.Module):\n    def __init__(self):\n        self.sm = nn.LogSoftmax(dim=1)\n"
     "    def forward(self, x):\n        return self.sm(x.view(x.size(0), -1))\n"),
    # values followed, not shapes (issue 26): a size read from a tensor is a number,
    # so ``torch.zeros(seq_len)`` is 1-D and 0.3 normalised over dim 0
    ("TV123", "def f(x):\n    seq_len = x.size(0)\n    attn = torch.zeros(seq_len)\n"
     "    return F.softmax(attn)\n",
     "def f(x):\n    seq_len = x.size(0)\n    attn = torch.zeros(seq_len)\n"
     "    return F.softmax(attn, dim=0)\n"),
    # a 3-D input made in a function of the file: dim 0, as 0.3 chose
    ("TV123", "def scores():\n    return torch.randn(2, 3, 4)\n\n\ny = F.softmax(scores())\n",
     "def scores():\n    return torch.randn(2, 3, 4)\n\n\ny = F.softmax(scores(), dim=0)\n"),
    # the output of a 2-D layer built in ``__init__``: dim 1
    ("TV123",
     "class N(nn.Module):\n    def __init__(self):\n        self.fc = nn.Linear(4, 2)\n"
     "    def forward(self):\n        return F.softmax(self.fc(torch.zeros(8, 4)))\n",
     "class N(nn.Module):\n    def __init__(self):\n        self.fc = nn.Linear(4, 2)\n"
     "    def forward(self):\n        return F.softmax(self.fc(torch.zeros(8, 4)), dim=1)\n"),
    # a parameter may hold a whole shape: the rank is unknown, the fix unsafe
    ("TV123", "def f(n):\n    return F.softmax(torch.zeros(n))\n",
     "def f(n):\n    return F.softmax(torch.zeros(n), dim=1)\n", True),
    # a squeezed input (directly or through a name): 2-D for a batch, 1-D for one row,
    # and 0.3's choice the last dim for both (dim=1 would raise on the 1-D call)
    ("TV123", "def f(h):\n    return F.softmax(h.squeeze())\n",
     "def f(h):\n    return F.softmax(h.squeeze(), dim=-1)\n", True),
    ("TV123", "def f(h):\n    s = torch.squeeze(h)\n    return F.log_softmax(s)\n",
     "def f(h):\n    s = torch.squeeze(h)\n    return F.log_softmax(s, dim=-1)\n", True),
    ("TV123", "def f(h):\n    return F.softmax(h.t().squeeze(), None)\n",
     "def f(h):\n    return F.softmax(h.t().squeeze(), -1)\n", True),
    ("TV123",
     "class N(nn.Module):\n    def __init__(self):\n        self.sm = nn.Softmax()\n"
     "    def forward(self, x):\n        return self.sm(x.squeeze())\n",
     "class N(nn.Module):\n    def __init__(self):\n        self.sm = nn.Softmax(dim=-1)\n"
     "    def forward(self, x):\n        return self.sm(x.squeeze())\n", True),
    # ... but a squeeze of one dim, a name also bound otherwise, arithmetic on a
    # squeezed value, numpy's squeeze: the fallback dim=1
    ("TV123", "def f(h):\n    return F.softmax(h.squeeze(1))\n",
     "def f(h):\n    return F.softmax(h.squeeze(1), dim=1)\n", True),
    ("TV123", "def f(h, c):\n    s = h.squeeze()\n    if c:\n        s = h\n"
     "    return F.softmax(s)\n",
     "def f(h, c):\n    s = h.squeeze()\n    if c:\n        s = h\n"
     "    return F.softmax(s, dim=1)\n", True),
    ("TV123", "def f(h, t):\n    return F.softmax(h.squeeze() / t)\n",
     "def f(h, t):\n    return F.softmax(h.squeeze() / t, dim=1)\n", True),
    ("TV123", "import numpy as np\ndef f(h):\n    return F.softmax(np.squeeze(h))\n",
     "import numpy as np\ndef f(h):\n    return F.softmax(np.squeeze(h), dim=1)\n", True),
    # a squeezed value of evident rank stays the rank's (a 2-D view, then unsqueezed)
    ("TV123", "def f(h):\n    return F.softmax(h.squeeze().view(-1, 4))\n",
     "def f(h):\n    return F.softmax(h.squeeze().view(-1, 4), dim=1)\n"),
    # a class on nn.Softmax: the rank its own forward passes to torch's (2-D: dim 1) ...
    ("TV123",
     "class FlatSoftmax(nn.Softmax):\n    def forward(self, x):\n"
     "        return super(FlatSoftmax, self).forward(x.view(-1, x.size(-1)))\n\n\n"
     "s = FlatSoftmax()\n",
     "class FlatSoftmax(nn.Softmax):\n    def forward(self, x):\n"
     "        return super(FlatSoftmax, self).forward(x.view(-1, x.size(-1)))\n\n\n"
     "s = FlatSoftmax(dim=1)\n"),
    # ... through a mixin's forward (``super()`` there is nn.LogSoftmax's) ...
    ("TV123",
     "class Flat(nn.Module):\n    def forward(self, x):\n"
     "        return super().forward(x.view(-1, 6))\n\n\n"
     "class FlatLog(Flat, nn.LogSoftmax):\n    pass\n\n\ns = FlatLog(None)\n",
     "class Flat(nn.Module):\n    def forward(self, x):\n"
     "        return super().forward(x.view(-1, 6))\n\n\n"
     "class FlatLog(Flat, nn.LogSoftmax):\n    pass\n\n\ns = FlatLog(1)\n"),
    # ... or, without a forward of its own, what its instance is called with (3-D: dim 0)
    ("TV123",
     "class Soft(nn.Softmin):\n    pass\n\n\ndef f(x):\n    s = Soft()\n"
     "    return s(x.view(2, 3, -1))\n",
     "class Soft(nn.Softmin):\n    pass\n\n\ndef f(x):\n    s = Soft(dim=0)\n"
     "    return s(x.view(2, 3, -1))\n"),
    # TV124
    ("TV124", "y = F.upsample(x, size=s, mode='bilinear')\n",
     "y = F.interpolate(x, size=s, mode='bilinear', align_corners=True)\n"),
    ("TV124", "y = F.upsample(x, scale_factor=2)\n", "y = F.interpolate(x, scale_factor=2)\n"),
    ("TV124", "y = F.upsample(x, None, 2, 'trilinear')\n",
     "y = F.interpolate(x, None, 2, 'trilinear', align_corners=True)\n"),
    ("TV124", "y = F.upsample(x, s, mode='bilinear', align_corners=False)\n",
     "y = F.interpolate(x, s, mode='bilinear', align_corners=False)\n"),
    ("TV124", "y = F.upsample_bilinear(x, s)\n",
     "y = F.interpolate(x, s, mode='bilinear', align_corners=True)\n"),
    ("TV124", "y = F.upsample_nearest(x, scale_factor=2)\n",
     "y = F.interpolate(x, scale_factor=2)\n"),
    ("TV124", "u = nn.Upsample(scale_factor=2, mode='bilinear')\n",
     "u = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)\n"),
    ("TV124", "y = F.upsample(x, None, 2, mode)\n", "y = F.interpolate(x, None, 2, mode)\n",
     True),
    # TV125
    ("TV125", "r = torch.range(0, n - 1)\n", "r = torch.arange(0, n, dtype=torch.float)\n",
     True),
    ("TV125", "r = torch.range(1, 10)\n", "r = torch.arange(1, 11, dtype=torch.float)\n", True),
    ("TV125", "r = torch.range(0, 1, 0.25)\n", "r = torch.arange(0, 1 + 0.25, 0.25)\n", True),
    ("TV125", "r = torch.range(5, 0, -1)\n", "r = torch.arange(5, -1, -1, dtype=torch.float)\n",
     True),
    ("TV125", "r = torch.range(a, b, step)\n",
     "r = torch.arange(a, b + step, step, dtype=torch.float)\n", True),
    ("TV125", "r = torch.range(0, n, dtype=torch.long)\n",
     "r = torch.arange(0, n + 1, dtype=torch.long)\n", True),
    # TV126
    ("TV126", "p.data.add_(-lr, g)\n", "p.data.add_(g, alpha=-lr)\n"),
    ("TV126", "b.mul_(m).add_(1 - d, g)\n", "b.mul_(m).add_(g, alpha=1 - d)\n"),
    ("TV126", "s.addcmul_(1 - beta2, g, g)\n", "s.addcmul_(g, g, value=1 - beta2)\n"),
    ("TV126", "p.addcdiv_(-step_size, m, d)\n", "p.addcdiv_(m, d, value=-step_size)\n"),
    ("TV126", "y = torch.add(x, 2, z)\n", "y = torch.add(x, z, alpha=2)\n"),
    ("TV126", "y = torch.addcmul(x, 0.5, a, b)\n", "y = torch.addcmul(x, a, b, value=0.5)\n"),
    ("TV126", "p.sub_(group['lr'],\n       g)\n", "p.sub_(g, alpha=group['lr'])\n"),
    # TV127
    ("TV127",
     "class S(torch.autograd.Function):\n    @staticmethod\n    def backward(ctx, g):\n"
     "        x, = ctx.saved_variables\n        return g * x\n",
     "class S(torch.autograd.Function):\n    @staticmethod\n    def backward(ctx, g):\n"
     "        x, = ctx.saved_tensors\n        return g * x\n"),
    ("TV127", "class N(nn.Container):\n    pass\n", "class N(nn.Module):\n    pass\n"),
    ("TV127", "c = nn.Container()\n", "c = nn.Module()\n"),
    ("TV127",
     "class N(nn.Container):\n    def __init__(self, **kw):\n"
     "        super(N, self).__init__(**kw)\n",
     "class N(nn.Module):\n    def __init__(self, **kw):\n"
     "        super(N, self).__init__(**kw)\n", True),
    # TV128
    ("TV128", "from torchvision import datasets\nd = datasets.MNIST('.')\nx = d.train_data\n"
              "y = d.test_labels\n",
     "from torchvision import datasets\nd = datasets.MNIST('.')\nx = d.data\ny = d.targets\n"),
    # TV133 (the header makes it 0.3 code)
    ("TV133", "g = F.affine_grid(theta, x.size())\n",
     "g = F.affine_grid(theta, x.size(), align_corners=True)\n"),
    ("TV133", "y = F.grid_sample(x, g)\n", "y = F.grid_sample(x, g, align_corners=True)\n"),
    ("TV133", "y = F.grid_sample(x, g, 'nearest',\n                  padding_mode='border')\n",
     "y = F.grid_sample(x, g, 'nearest',\n                  padding_mode='border', "
     "align_corners=True)\n"),
    # TV129
    ("TV129", "y = x[(t > 0).byte()]\n", "y = x[(t > 0).bool()]\n"),
    ("TV129", "m = (t > 0).byte()\nx.masked_fill_(m, 0)\n",
     "m = (t > 0).byte()\nx.masked_fill_(m.bool(), 0)\n"),
    ("TV129", "y = x[torch.zeros(3, dtype=torch.uint8)]\n",
     "y = x[torch.zeros(3, dtype=torch.bool)]\n"),
    ("TV129", "m = (t > 0).byte()\ny = x.masked_select(1 - m)\n",
     "m = (t > 0).byte()\ny = x.masked_select((1 - m).bool())\n"),
    ("TV129", "y = torch.where(torch.ByteTensor([1, 0]), a, b)\n",
     "y = torch.where(torch.ByteTensor([1, 0]).bool(), a, b)\n"),
    # TV139 (the weights torchvision 0.28 itself loads for ``pretrained=True``)
    ("TV139", "import torchvision.models as models\n"
              "f = models.vgg19(pretrained=True).features\n",
     "import torchvision.models as models\n"
     "f = models.vgg19(weights=models.VGG19_Weights.IMAGENET1K_V1).features\n"),
    ("TV139", "from torchvision import models\nm = models.resnet18(pretrained=False)\n",
     "from torchvision import models\nm = models.resnet18(weights=None)\n"),
    ("TV139", "import torchvision\n"
              "m = torchvision.models.densenet121(pretrained=opt.pre, num_classes=2)\n",
     "import torchvision\nm = torchvision.models.densenet121("
     "weights=torchvision.models.DenseNet121_Weights.IMAGENET1K_V1 if opt.pre else None, "
     "num_classes=2)\n"),
    ("TV139", "from torchvision.models import resnet50\nm = resnet50(True)\n",
     "from torchvision.models import resnet50\nimport torchvision.models\n"
     "m = resnet50(weights=torchvision.models.ResNet50_Weights.IMAGENET1K_V1)\n"),
    # TV165: the class's ``apply``, unsafe where the class has an ``__init__`` or is given arguments
    ("TV165", "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(c, x):\n"
              "        return x\n\n\ny = F().apply(x)\n",
     "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(c, x):\n"
     "        return x\n\n\ny = F.apply(x)\n"),
    ("TV165", "class F(torch.autograd.Function):\n    def __init__(self, k=1):\n"
              "        self.k = k\n\n    @staticmethod\n    def forward(c, x):\n"
              "        return x\n\n\ny = F(2).apply(x)\n",
     "class F(torch.autograd.Function):\n    def __init__(self, k=1):\n"
     "        self.k = k\n\n    @staticmethod\n    def forward(c, x):\n"
     "        return x\n\n\ny = F.apply(x)\n", True),
    # TV166: a tensor count, as Adam's own; unsafe (other readers of the count get a tensor)
    ("TV166", "class A(torch.optim.Adam):\n    def __init__(self, ps):\n"
              "        super(A, self).__init__(ps)\n        for p in ps:\n"
              "            self.state[p]['step'] = 0\n            s = self.state[p]\n"
              "            s['step'] = 2\n",
     "class A(torch.optim.Adam):\n    def __init__(self, ps):\n"
     "        super(A, self).__init__(ps)\n        for p in ps:\n"
     "            self.state[p]['step'] = torch.tensor(0.0)\n            s = self.state[p]\n"
     "            s['step'] = torch.tensor(float(2))\n", True),
]

NOOPS = [
    ("TV120", "c = nn.CrossEntropyLoss(size_average=flag)\n"),
    ("TV120", "c = nn.CrossEntropyLoss(size_average=False, reduction='mean')\n"),
    ("TV120", "c = F.nll_loss(o, t, size_average=False,  # sum\n    reduce=True)\n"),
    ("TV121", "init.xavier_uniform_(m.weight)\n"),
    ("TV155", "a, b = x.split(split_size=2)\n"),
    ("TV156", "y = torch.ones(16)  \\\n    .resize(4, 4)\n"),
    ("TV133", "y = F.grid_sample(x, g, align_corners=False)\n"),
    ("TV133", "y = F.grid_sample(x, g, 'bilinear', 'zeros', True)\n"),
    ("TV133", "g = F.affine_grid(theta, size, False)\n"),
    ("TV133", "y = F.grid_sample(*args, **kwargs)\n"),
    ("TV123", "y = F.softmax(x, 1)\n"),
    # a class on nn.Softmax whose forward passes torch's a value of unknown rank, or
    # whose own ``__init__`` calls nn.Softmax's without dim: a message, no fix
    ("TV123", "class B(nn.Module):\n    def forward(self, x):\n"
     "        return super(B, self).forward(x)\n\n\nclass S(B, nn.Softmax):\n    pass\n\n\n"
     "s = S()\n"),
    ("TV123", "class S(nn.Softmax):\n    def __init__(self):\n        super().__init__()\n\n\n"
     "s = S()\n"),
    ("TV125", "r = torch.range(0, 5)\n"),  # unsafe only
    # the KL divergence: an input written twice must be a name; a module's calls are elsewhere
    ("TV120", "l = F.kl_div(F.log_softmax(o, 1), t)\n"),
    ("TV120", "c = nn.KLDivLoss()\n"),
    # both attributes set: 0.3's reduction depended on their order at run time
    ("TV120", "c = nn.BCELoss()\nc.reduce = False\nc.size_average = False\n"),
    ("TV126", "p.add_(g, alpha=-lr)\n"),
    ("TV126", "p.add_(-lr,  # step\n       g)\n"),
    ("TV127", "c = nn.Container(conv=m)\n"),
    ("TV139", "import torchvision.models as models\nm = models.resnet18(**options)\n"),
    ("TV139", "import torchvision.models as models\nm = models.resnet18(weights=None)\n"),
]


def _params(rows):
    for row in rows:
        code, source, expected = row[:3]
        unsafe = row[3] if len(row) > 3 else False
        yield pytest.param(code, source, expected, unsafe,
                           id=f"{code}-{source.splitlines()[-1][:40]}")


@pytest.mark.parametrize("code, source, expected, unsafe", list(_params(FIXES)))
def test_fix(code, source, expected, unsafe):
    assert run(source, [code], unsafe) == expected
    if unsafe:  # not applied without --unsafe-fixes
        assert run(source, [code]) == source


@pytest.mark.parametrize("code, source", NOOPS, ids=[f"{c}-{s[:40]}" for c, s in NOOPS])
def test_noop(code, source):
    assert run(source, [code]) == source


@pytest.mark.parametrize("unsafe", [False, True])
def test_init_names_with_data_inplace(unsafe):
    """TV004 and TV121 both rename ``init.normal``: one per round, the same end."""
    source = "def f(m):\n    init.normal(m.weight.data, 0, 0.02)\n"
    expected = "def f(m):\n    init.normal_(m.weight, 0, 0.02)\n"
    assert run(source, ["TV004", "TV121"], unsafe) == expected


def test_init_names_with_data_inplace_when_the_result_is_used():
    """There TV004's fix is unsafe: the safe run renames only."""
    source = "w = init.normal(m.weight.data)\n"
    assert run(source, ["TV004", "TV121"]) == "w = init.normal_(m.weight.data)\n"
    assert run(source, ["TV004", "TV121"], unsafe=True) == "w = init.normal_(m.weight)\n"


def test_scalar_overloads_with_data_inplace():
    source = "for p in model.parameters():\n    p.data.add_(-lr, p.grad.data)\n"
    safe = "for p in model.parameters():\n    p.data.add_(p.grad.data, alpha=-lr)\n"
    unsafe = ("for p in model.parameters():\n    with torch.no_grad():\n"
              "        p.add_(p.grad, alpha=-lr)\n")
    assert run(source, ["TV004", "TV126"]) == safe
    assert run(source, ["TV004", "TV126"], unsafe=True) == unsafe
    assert run(safe, ["TV004", "TV126"], unsafe=True) == unsafe


def test_bare_names_get_their_import():
    source = "from torch.nn.utils import clip_grad_norm\nclip_grad_norm(ps, 1)\n"
    result = fix_text(HEADER + source, lambda text: Analysis(text, ["TV122"]), False)
    assert "from torch.nn.utils import clip_grad_norm_\n" in result.text
    assert result.text.endswith("clip_grad_norm_(ps, 1)\n")


def test_grid_sample_outside_0_3_code_gets_a_message_and_no_fix():
    """Without 0.3 evidence the code may be written for 1.3+, whose numbers
    ``align_corners=False`` keeps: TV133 names both and changes nothing."""
    source = "import torch.nn.functional as F\ny = F.grid_sample(x, g)\n"
    (finding,) = Analysis(source, ["TV133"]).findings
    assert finding.fix is None
    assert "`align_corners=True` for the numbers of PyTorch 0.3-1.2" in finding.message
    assert "`align_corners=False` for today's" in finding.message
    assert fix_text(source, lambda text: Analysis(text, ["TV133"]), True).text == source


def test_softmax_of_a_squeezed_input_says_why_the_last_dim():
    from flake8_torch04.analysis.run import check_source

    [finding] = check_source(HEADER + "def f(h):\n    return F.softmax(h.squeeze())\n",
                             codes=["TV123"])
    assert finding.message == (
        "`F.softmax` without dim is deprecated since PyTorch 0.3 (its input is squeezed, so "
        "its rank depends on the sizes at run time: torch picks dim=0 for a 0- or 1-D input, "
        "1 for a 2-D one, the last dim for all three); pass `dim=-1` (`dim=1` fails on a "
        "1-D input)")
    assert finding.fix.safety == "unsafe"


def test_kl_divergence_messages_name_the_form_that_keeps_the_numbers():
    from flake8_torch04.analysis.run import check_source

    (finding,) = check_source(HEADER + "self.criterion = nn.KLDivLoss()\n", codes=["TV120"])
    assert finding.fix is None
    assert finding.message == (
        "`nn.KLDivLoss()` with the default reduction ('mean') averages over every element, "
        "and every call warns on PyTorch 2.13 ('mean' is to become 'batchmean', which "
        "divides by the batch size only: other numbers); for the same numbers without the "
        "warning construct it with `reduction='sum'` and divide each call's result by its "
        "input's `numel()` (`self.criterion(x, y) / x.numel()`)")
    (finding,) = check_source(HEADER + "l = F.kl_div(F.log_softmax(o, 1), t)\n",
                              codes=["TV120"])
    assert finding.fix is None
    assert "use `F.kl_div(x, t, reduction='sum') / x.numel()` (`x` = " \
        "`F.log_softmax(o, 1)`, computed once) for the same numbers" in finding.message
