"""The tables of torch operations that the value facts (:mod:`.values`) read: which
constructors take sizes, which methods keep a rank, reduce it or cast a dtype, which
``nn`` modules give which ranks; and the shapes that literals write."""
import ast
from typing import Dict, List, Optional, Sequence

#: the kinds of value (see :class:`.values.Value`)
TENSOR = "tensor"
NUMBER = "number"
NDARRAY = "ndarray"
LIST = "list"
TUPLE = "tuple"
DICT = "dict"
STRING = "string"
MODULE = "module"

#: torch constructors that take sizes (``torch.zeros(3, 4)``, ``torch.zeros((3, 4))``)
SIZED = frozenset(f"torch.{f}" for f in (
    "zeros", "ones", "empty", "rand", "randn", "randint_like", "full"))
#: legacy typed constructors: sizes or data (``torch.FloatTensor(3)``, ``([1, 2])``)
TYPED = {
    **{f"torch.{t}Tensor": "float" for t in ("Float", "Double", "Half", "BFloat16")},
    **{f"torch.cuda.{t}Tensor": "float" for t in ("Float", "Double", "Half")},
    **{f"torch.{t}Tensor": "int" for t in ("Long", "Int", "Short", "Char")},
    **{f"torch.cuda.{t}Tensor": "int" for t in ("Long", "Int", "Short", "Char")},
    "torch.ByteTensor": "uint8", "torch.cuda.ByteTensor": "uint8",
    "torch.BoolTensor": "bool", "torch.cuda.BoolTensor": "bool",
    "torch.Tensor": "float",
}
DTYPES = {
    **{f"torch.{d}": "float" for d in ("float", "float32", "double", "float64", "half",
                                       "float16", "bfloat16")},
    **{f"torch.{d}": "int" for d in ("long", "int64", "int", "int32", "short", "int16",
                                     "int8")},
    "torch.uint8": "uint8", "torch.bool": "bool",
}
#: methods whose result has the receiver's rank and dtype
SAME = frozenset((
    "contiguous", "clone", "detach", "cuda", "cpu", "abs", "neg", "clamp", "clamp_",
    "relu", "tanh", "sigmoid", "exp", "log", "sqrt", "pow", "mul", "add", "sub", "div",
    "mul_", "add_", "sub_", "div_", "abs_", "neg_", "fill_", "zero_", "copy_", "pin_memory",
    "requires_grad_", "detach_", "masked_fill", "masked_fill_", "transpose", "permute",
    "expand_as", "type_as", "sign", "floor", "ceil", "round", "exp_", "log_", "sqrt_",
))
#: of those, the ones that move dimensions (the last size is another)
MOVES = frozenset(("transpose", "permute"))
#: the in-place methods that change their tensor's shape (the others return it as it was)
RESHAPED_IN_PLACE = frozenset((
    "resize_", "resize_as_", "unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_",
    "swapaxes_", "set_", "as_strided_", "put_", "index_put_"))
CASTS = {"float": "float", "double": "float", "half": "float", "long": "int", "int": "int",
         "short": "int", "char": "int", "byte": "uint8", "bool": "bool"}
COMPARISONS = frozenset(("eq", "ne", "lt", "gt", "le", "ge"))
#: reductions: no dim gives a 0-dim tensor, a dim removes one (unless keepdim)
REDUCTIONS = frozenset(("sum", "mean", "prod", "std", "var", "norm", "all", "any",
                        "logsumexp", "median", "mode"))
#: the reductions numpy arrays have as well, with the same meaning without a dimension
#: (``a.mean()`` of a value of unknown kind: a 0-dim tensor or a numpy scalar)
WHOLE_REDUCTIONS = frozenset(("sum", "mean", "prod", "std", "var"))
PAIRED = frozenset(("max", "min", "sort", "topk", "kthvalue", "median", "mode"))
INDEX = frozenset(("argmax", "argmin"))
#: element-wise torch functions: the broadcast rank of their tensor arguments
ELEMENTWISE_FUNCTIONS = frozenset(
    [f"torch.{f}" for f in ("abs", "exp", "log", "sqrt", "sigmoid", "tanh", "relu", "neg",
                            "clamp", "add", "sub", "mul", "div", "pow", "sign", "softmax",
                            "log_softmax")]
    + [f"torch.nn.functional.{f}" for f in (
        "relu", "relu6", "elu", "selu", "celu", "gelu", "leaky_relu", "dropout", "tanh",
        "sigmoid", "softplus", "hardtanh", "softmax", "log_softmax", "softmin")]
)
ARRAY_MODULES = ("numpy", "np")
#: ``torch.nn`` modules whose output has the rank of their input (``Linear`` keeps
#: the leading dimensions)
SAME_RANK_MODULES = frozenset(f"torch.nn.{m}" for m in (
    "Linear", "ReLU", "ReLU6", "ELU", "SELU", "LeakyReLU", "Tanh", "Sigmoid", "Dropout",
    "Softplus", "Softmax", "LogSoftmax", "BatchNorm1d", "BatchNorm2d", "Identity",
))
#: of those, the ones whose output has the shape of their input
SAME_SHAPE_MODULES = SAME_RANK_MODULES - {"torch.nn.Linear"}
#: ``torch.nn`` modules whose output has a fixed rank
FIXED_RANK_MODULES = {"torch.nn.Conv1d": 3, "torch.nn.Conv2d": 4, "torch.nn.Conv3d": 5,
                      "torch.nn.MaxPool2d": 4, "torch.nn.AvgPool2d": 4}
#: methods of a module that return the module itself
MODULE_ITSELF = frozenset(("cuda", "cpu", "to", "train", "eval", "float", "double", "half",
                           "apply", "type", "requires_grad_", "share_memory"))
#: torch functions that are the method of their first argument
TORCH_METHODS = frozenset(f"torch.{f}" for f in (
    "max", "min", "sum", "mean", "prod", "argmax", "argmin", "sort", "topk", "squeeze",
    "unsqueeze", "t", "transpose", "eq", "ne", "lt", "gt", "le", "ge", "std", "var", "norm",
    "mm", "bmm", "mv", "dot", "matmul", "multinomial", "split", "chunk", "gather"))
#: ``torch.nn.functional``'s losses: 0-dim results unless asked per element
LOSS_FUNCTIONS = frozenset(f"torch.nn.functional.{f}" for f in (
    "nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "soft_margin_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
    "hinge_embedding_loss", "cosine_embedding_loss", "margin_ranking_loss",
    "triplet_margin_loss", "poisson_nll_loss"))
MADE = frozenset(("torch.tensor", "torch.arange", "torch.from_numpy", "torch.randint",
                  "torch.randperm"))
LIKE = frozenset(f"torch.{f}_like" for f in ("zeros", "ones", "rand", "randn", "empty"))
#: constructors 0.3 did not have, and keywords its constructors did not take
_SINCE_04 = frozenset(("torch.tensor", "torch.empty", "torch.full"))
_KEYWORDS_SINCE_04 = frozenset(("dtype", "device", "requires_grad", "layout", "pin_memory"))
BUILTINS = frozenset(("len", "int", "float", "round", "abs", "list", "sorted", "str", "zip",
                      "enumerate", "range", "sum", "iter", "next", "min", "max", "dict"))
#: calls that make a dict (its entries not evident)
DICTS = frozenset(("dict", "collections.OrderedDict"))


def constructor(name: str) -> bool:
    """``name`` makes a new tensor from sizes, data or another's shape."""
    return name in SIZED or name in TYPED or name in LIKE or name in MADE


def made_in_03(name: str, call: ast.Call) -> bool:
    """``call`` (of ``name``) is a constructor 0.3 code could write, a plain 0.3 tensor
    (not with ``dtype=``, ``device=``, nor ``torch.tensor``/``empty``/``full``: code
    written for 0.4 or later, whose tensors are meant)."""
    return constructor(name) and name not in _SINCE_04 \
        and not any(kw.arg in _KEYWORDS_SINCE_04 for kw in call.keywords)


#: the ``math`` functions that give an int (the others give a float, but the tests)
MATH_INTS = frozenset(("floor", "ceil", "trunc", "factorial", "gcd", "lcm", "comb", "perm",
                       "isqrt"))
MATH_TESTS = frozenset(("isnan", "isinf", "isfinite", "isclose"))


# ---------------------------------------------------------------------------
# shapes written as literals


def reduced_rank(rank: Optional[int], args: Sequence[ast.AST],
                 keywords: Dict[str, ast.AST]) -> Optional[int]:
    """The rank a reduction over a dimension leaves of a tensor of ``rank``
    (``x.sum(1)``, ``x.max(0, keepdim=True)``, ``x.sum((0, 1))``), given its
    arguments; ``None`` where a ``keepdim`` is not a constant."""
    keep = keywords.get("keepdim")
    if keep is None and len(args) >= 2:
        keep = args[1]
    if keep is not None:
        if isinstance(keep, ast.Constant) and keep.value is True:
            return rank
        if not (isinstance(keep, ast.Constant) and keep.value is False):
            return None
    dim = args[0] if args else keywords.get("dim")
    if isinstance(dim, (ast.Tuple, ast.List)):
        return rank - len(dim.elts) if rank is not None else None
    return rank - 1 if rank is not None and rank >= 1 else None


#: ``numpy.random`` draws: how many parameters come before ``size`` (without which,
#: or with ``size=None``, the draw is one number); ``rand``/``randn`` take sizes
_DRAWS = {"random": 0, "random_sample": 0, "rand": 0, "randn": 0, "normal": 2, "uniform": 2,
          "beta": 2, "gamma": 2, "binomial": 2, "poisson": 1, "exponential": 1,
          "randint": 2, "standard_normal": 0, "laplace": 2}


def numpy_draw(name: str, call: ast.Call) -> bool:
    """Whether ``call`` of ``name`` draws one number from ``numpy.random`` (no
    ``size``: ``np.random.beta(1, 1)``, ``np.random.rand()``, ``np.random.randint(0, 5)``)."""
    head, _, draw = name.rpartition(".")
    if head not in ("numpy.random", "np.random") or draw not in _DRAWS:
        return False
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            kw.arg is None or kw.arg == "size" and not (
                isinstance(kw.value, ast.Constant) and kw.value.value is None)
            for kw in call.keywords):
        return False
    return len(call.args) <= _DRAWS[draw]


#: numpy constructors whose first argument (or ``shape=``) is the shape
_SHAPED = frozenset(("zeros", "ones", "empty", "full"))
#: numpy's dtypes by family
_NUMPY_DTYPES = {"uint8": "uint8", "bool": "bool", "bool_": "bool"}
_NUMPY_DTYPES.update((t, "int") for t in ("int8", "int16", "int32", "int64", "int_", "long"))
_NUMPY_DTYPES.update((t, "float") for t in ("float16", "float32", "float64", "float_",
                                            "double", "single", "half"))


def numpy_shape(name: str, call: ast.Call) -> Optional[List[ast.AST]]:
    """The sizes a numpy array maker is given (``[shape]`` for ``zeros(shape)``,
    the arguments of ``random.rand(a, b)``, ``[size]`` for a draw given one), or
    ``None``."""
    head, _, last = name.rpartition(".")
    if head in ("numpy", "np") and last in _SHAPED:
        given = call.args[0] if call.args else next(
            (kw.value for kw in call.keywords if kw.arg == "shape"), None)
        return [given] if given is not None else None
    if head in ("numpy.random", "np.random"):
        if last in ("rand", "randn") and call.args:
            return list(call.args)
        size = next((kw.value for kw in call.keywords if kw.arg == "size"), None)
        if size is None and last in _DRAWS and len(call.args) > _DRAWS[last]:
            size = call.args[_DRAWS[last]]
        return [size] if size is not None else None
    return None


def numpy_dtype(name: str, call: ast.Call, resolve) -> Optional[str]:
    """The dtype family of the array a numpy maker gives: its ``dtype=`` (``np.uint8``,
    ``int``, ``'float32'``), else ``float`` for ``zeros``, ``ones``, ``empty``,
    ``rand``, ``randn``, ``int`` for ``randint``."""
    given = next((kw.value for kw in call.keywords if kw.arg == "dtype"), None)
    if given is not None:
        if isinstance(given, ast.Constant) and isinstance(given.value, str):
            return _NUMPY_DTYPES.get(given.value)
        if isinstance(given, ast.Name) and given.id in ("int", "float", "bool"):
            return given.id
        found = resolve(given) or ""
        return _NUMPY_DTYPES.get(found.rpartition(".")[2]) if found.startswith(
            ("numpy.", "np.")) else None
    last = name.rpartition(".")[2]
    if last in ("zeros", "ones", "empty", "rand", "randn"):
        return "float"
    return "int" if last == "randint" else None


def kept_last(rank: Optional[int], last: Optional[int], args: Sequence[ast.AST],
              keywords: Dict[str, ast.AST]) -> Optional[int]:
    """The last size a reduction leaves where it keeps its dimension (``keepdim=True``):
    1 where it reduces the last one (``-1``, or ``rank - 1``), else the input's."""
    keep = keywords.get("keepdim", args[1] if len(args) >= 2 else None)
    if not (isinstance(keep, ast.Constant) and keep.value is True):
        return None
    dim = args[0] if args else keywords.get("dim")
    if isinstance(dim, ast.UnaryOp) and isinstance(dim.op, ast.USub):
        at = dim.operand
        dim = -at.value if isinstance(at, ast.Constant) and type(at.value) is int else None
    elif isinstance(dim, ast.Constant) and type(dim.value) is int:
        dim = dim.value
    if dim is None or not isinstance(dim, int):
        return None
    return 1 if dim == -1 or rank is not None and dim == rank - 1 else last


def literal_size(node: Optional[ast.AST]) -> Optional[int]:
    """A size written as a constant (``1``, not ``-1``): the ``last`` fact."""
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return node.value
    return None


def literal_last(node: ast.AST) -> Optional[int]:
    """The last size of a tensor made from a flat literal list (``[1]``: 1)."""
    elts = node.elts  # type: ignore[attr-defined]
    if elts and not any(isinstance(e, (ast.List, ast.Tuple, ast.Starred)) for e in elts):
        return len(elts)
    return None


def literal_rank(node: ast.AST) -> Optional[int]:
    """The rank of a tensor made from a literal list (``[[1, 2], [3, 4]]``: 2)."""
    rank = 0
    while isinstance(node, (ast.List, ast.Tuple)):
        if not node.elts:
            return rank + 1
        rank += 1
        node = node.elts[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return rank
    return None


def data_rank(data: ast.AST, of) -> Optional[int]:
    """The rank of a tensor made from a list literal: of constants
    (``[[1, 2], [3, 4]]``: 2), or a flat one of numbers and 0-dim tensors, by
    their values ``of(element)`` (``[-d.mean()]``: 1; 0.3 gave numbers there)."""
    rank = literal_rank(data)
    if rank is None and isinstance(data, (ast.List, ast.Tuple)) and data.elts and all(
            v.kind == NUMBER or v.kind == TENSOR and v.rank == 0
            for v in (of(e) for e in data.elts)):
        return 1
    return rank


def list_rank(value) -> Optional[int]:
    """The rank of a tensor made from a list of numbers (1), of lists of numbers
    (2), ...; ``None`` where the elements are not evident."""
    rank = 0
    while value.kind == LIST and value.parts:
        rank += 1
        value = value.parts[0]
    return rank if rank and value.kind == NUMBER else None


def sampled(args: Sequence[ast.AST], keywords: dict) -> Optional[int]:
    """The last size of ``p.multinomial(n)``: ``n`` where a constant (1 where none
    is given: 0.3's default, one sample)."""
    given = args[0] if args else keywords.get("num_samples")
    return 1 if given is None else literal_size(given)


def multinomial_call(ctx, node: ast.AST) -> bool:
    """``p.multinomial(...)`` or ``torch.multinomial(p, ...)``, perhaps read through ``.data``."""
    if isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
        node.func.attr == "multinomial" and ctx.resolve(node.func) in (None, "torch.multinomial"))


def last_size(sizes: Sequence[ast.AST]) -> Optional[int]:
    """The last of the sizes ``zeros(*sizes)`` is given, where a constant."""
    if len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)):
        sizes = sizes[0].elts
    return literal_size(sizes[-1]) if sizes else None


# -- dtypes and ranks of operators (of two :class:`.values.Value`)

def broadcast(a, b) -> Optional[int]:
    ranks = [v.rank if v.tensor else 0 if v.kind == NUMBER or v.kind is None and v.rank == 0
             else None for v in (a, b)]
    if None in ranks:
        return None
    return max(ranks)


_BYTE_OPS = (ast.Add, ast.Sub, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)


def binop_dtype(op: ast.operator, left, right) -> Optional[str]:
    dtypes = {v.dtype if v.tensor else ("number" if v.kind == NUMBER else None)
              for v in (left, right)}
    if None in dtypes:
        return None
    if isinstance(op, ast.Div):
        return "float"
    if "uint8" in dtypes and isinstance(op, _BYTE_OPS) and all(
            v.dtype == ("uint8" if v.tensor else "int") for v in (left, right)):
        return "uint8"  # (``1 - mask``, ``m1 & m2``: a Python int does not promote it)
    if dtypes <= {"int", "number"} and "int" in dtypes:
        return None  # (an int tensor times a Python float is float: unknown here)
    if "float" in dtypes:
        return "float"
    return None


def sum_dtype(dtype: Optional[str], attr: str) -> Optional[str]:
    if attr in ("all", "any"):
        return "bool"
    if dtype in ("bool", "uint8", "int"):
        return "int"  # (a sum of bools or bytes is int64)
    return dtype


def reduced_loss(node: ast.Call, most: int) -> bool:
    """A loss function (or loss module) called (or made) so that it reduces to one
    value: at most ``most`` positional arguments, and ``reduce``/``reduction`` not
    given or given as constants that reduce."""
    if len(node.args) > most or any(isinstance(a, ast.Starred) for a in node.args):
        return False
    for kw in node.keywords:
        value = getattr(kw.value, "value", None) if isinstance(kw.value, ast.Constant) else ()
        if kw.arg is None or kw.arg == "reduce" and value is not True and value is not None \
                or kw.arg == "reduction" and value not in ("mean", "sum", "batchmean"):
            return False
    return True


def dimensions(node: ast.AST) -> bool:
    """``x.shape`` or ``x.size()``: what unpacks into the sizes, numbers (of a
    tensor, an array or a data frame alike)."""
    if isinstance(node, ast.Call):
        node = node.func if not node.args and not node.keywords and \
            isinstance(node.func, ast.Attribute) and node.func.attr == "size" else None
    return isinstance(node, ast.Attribute) and node.attr in ("shape", "size")


def ranked(value) -> bool:
    """Whether ``value`` (a :class:`~.values.Value`) is a tensor of known rank, or a
    tuple of such tensors."""
    if value.kind == TUPLE:
        return bool(value.parts) and all(ranked(p) for p in value.parts)
    return value.kind == TENSOR and value.rank is not None


def as_plain(value):
    """``value`` as a plain 0.3 tensor (and the tensors of a tuple of them)."""
    if value.kind == TENSOR:
        return value._replace(plain=True)
    if value.kind == TUPLE and value.parts:
        return value._replace(parts=tuple(as_plain(p) for p in value.parts))
    return value
