"""Tables of renames that more than one rule reads: each is written here once.

TV121 reports the deprecated ``torch.nn.init`` names and TV126 the
scalar-first overloads; TV004, rewriting an in-place change made through
``.data``, writes the same successors (``init.normal(w.data)`` becomes
``init.normal_(w)``, ``p.data.add_(-lr, g)`` becomes ``p.add_(g, alpha=-lr)``).
"""


#: deprecated ``torch.nn.init`` name -> its in-place successor (each still warns
#: on PyTorch 2.13)
INIT_RENAMES = {
    "xavier_uniform": "xavier_uniform_",
    "xavier_normal": "xavier_normal_",
    "kaiming_uniform": "kaiming_uniform_",
    "kaiming_normal": "kaiming_normal_",
    "uniform": "uniform_",
    "normal": "normal_",
    "constant": "constant_",
    "eye": "eye_",
    "dirac": "dirac_",
    "orthogonal": "orthogonal_",
    "sparse": "sparse_",
}

#: scalar-first overloads: method -> (positional arguments of the deprecated
#: overload, the keyword the scalar becomes)
SCALAR_FIRST_METHODS = {
    "add_": (2, "alpha"), "sub_": (2, "alpha"), "add": (2, "alpha"), "sub": (2, "alpha"),
    "addcmul_": (3, "value"), "addcdiv_": (3, "value"),
    "addcmul": (3, "value"), "addcdiv": (3, "value"),
}
#: function -> the same (the first positional is the input)
SCALAR_FIRST_FUNCTIONS = {
    "torch.add": (3, "alpha"), "torch.sub": (3, "alpha"),
    "torch.addcmul": (4, "value"), "torch.addcdiv": (4, "value"),
}
