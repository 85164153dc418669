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

#: tensor methods whose ``torch.<name>(self, *args, out=...)`` accepts ``out=`` on
#: PyTorch 2.13, with the same arguments in the same order after the tensor
#: (each checked there by a call with ``out=``; ``where`` and ``polygamma`` take
#: the tensor elsewhere and are left out)
FUNCTIONS = frozenset("""
    abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr all amax amin angle
    any arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin asin asinh atan
    atan2 atanh baddbmm bernoulli bitwise_and bitwise_left_shift bitwise_not bitwise_or
    bitwise_right_shift bitwise_xor bmm ceil cholesky cholesky_inverse cholesky_solve clamp
    clamp_max clamp_min clip conj_physical copysign cos cosh cross cumprod cumsum deg2rad diag
    diff digamma div divide dot eq erf erfc erfinv exp exp2 expm1 fix float_power floor
    floor_divide fmax fmin fmod frac gather gcd ge ger greater greater_equal gt hardshrink
    heaviside histc hypot i0 igamma igammac index_add index_copy index_reduce index_select
    inner inverse isneginf isposinf kron lcm ldexp le lerp less less_equal lgamma log log10
    log1p log2 log_softmax logaddexp logaddexp2 logcumsumexp logical_and logical_not
    logical_or logical_xor logit logsumexp lt lu_solve masked_select matmul matrix_power max
    maximum mean median min minimum mm msort mul multinomial multiply mv mvlgamma nan_to_num
    nanmean nanmedian nanquantile nansum narrow_copy ne neg negative nextafter nonzero
    not_equal orgqr ormqr outer pow prod quantile rad2deg reciprocal remainder renorm round
    rsqrt scatter scatter_add scatter_reduce sgn sigmoid sign signbit sin sinc sinh
    slice_scatter softmax sqrt square std sub subtract sum take take_along_dim tan tanh tril
    triu true_divide trunc var vdot xlogy
""".split())
