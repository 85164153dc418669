"""The rule table: what the walker must know of a rule before it loads it.

Each rule lives in a module of its own, which defines one function decorated
with ``registry.rule(code)``; its docstring is the rule's documentation, with
the sections ``## What it does``, ``## Why is this bad?``, ``## Example``,
``Use instead:`` and ``## Fix safety``.

``TABLE`` gives, for each code, that module, the node types the rule
visits, its markers and, optionally, what a file must hold for the rule to
find anything in it at all (see ``registry.Gate``).  The markers are searched in a
file's text before any rule module is imported, and only the modules of the
rules whose markers match are loaded: an editor that runs flake8 on a file
that no marker matches never pays for loading the rules.
"""
import ast

#: code: (module, node types, markers[, requires])
TABLE = {
    "TV001": ("variable_wrap", (ast.Call,), ("Variable",)),
    "TV002": ("volatile", (ast.Call, ast.Attribute), ("volatile", (r"Variable", ast.Call))),
    # every finding's statement holds an index ``[0]`` (any spelling of the int
    # zero starts with ``0`` and ends before a ``]``, parentheses, blanks,
    # backslashes or a comment; or a comment comes right after the ``[``), a
    # ``+`` (which only matters at an assignment statement) or an ``append`` (a call)
    "TV003": (
        "scalar_extraction", (ast.Subscript, ast.AugAssign, ast.Assign, ast.Call), (
            (r"\[[\s(\\]*(?:0\w*[\s)\\]*[\]#]|#)", ast.Subscript),
            (r"\+", ast.AugAssign, ast.Assign),
            (r"\bappend\b", ast.Call),
        ),
    ),
    # every finding's statement reads or writes ``.data``
    "TV004": ("data_inplace", (ast.Call, ast.Assign, ast.AugAssign), (r"\.[\s\\]*data\b",)),
    # a call of ``type``, or ``__class__``
    "TV005": (
        "type_comparison", (ast.Compare, ast.Call, ast.Subscript),
        (r"(?<![\w.])type[\s\\]*\(", "__class__"),
    ),
    "TV006": (
        "module_names", (ast.Call,),
        ("add_module", "register_", "Sequential", "ModuleDict", "ParameterDict"),
    ),
    # a file with ``async=`` does not parse: ``_rescue`` finds it in the tokens,
    # and the rule itself visits nothing
    "TV101": ("async_keyword", (), ()),
    "TV102": ("retain_variables", (ast.Call,), ("retain_variables",)),
    "TV105": ("tensor_dataset", (ast.Call, ast.Attribute), ("data_tensor", "target_tensor")),
    "TV108": ("multinomial", (ast.Call,), ("multinomial",)),
    "TV109": ("normal_means", (ast.Call,), ("means",)),
    "TV110": ("iterator_next", (ast.Call,), (r"\.[\s\\]*next\b",)),
    "TV119": ("cat_of_tensor", (ast.Call,), (r"\b(?:cat|stack)[\s\\]*\(",)),
    # a keyword ``out=`` in the call
    "TV113": ("method_out", (ast.Call,), (r"\bout[\s\\]*=",)),
    "TV116": ("normalize_channels", (ast.Call,), ("Normalize",), (r"\btorchvision\b",)),
    # a ``setattr`` call, or an assignment of a dropout (only in files that say dropout)
    "TV118": (
        "dropout_weight", (ast.Call, ast.Assign),
        ((r"\bsetattr\b", ast.Call), (r"\bdropout\b", ast.Assign)), (r"\bdropout\b",),
    ),
    "TV112": (
        "torchvision_transforms", (ast.Attribute, ast.Name, ast.ImportFrom),
        ("Scale", "RandomSizedCrop"),
    ),
    # a loss call has two arguments (a comma), in a file that builds such a loss
    "TV117": (
        "loss_target_shape", (ast.Call,), (",",),
        (r"\b(?:BCELoss|BCEWithLogitsLoss|MSELoss|L1Loss|SmoothL1Loss|binary_cross_entropy"
         r"|mse_loss|l1_loss|smooth_l1_loss)\b",),
    ),
    # a ``backward`` call, in a file that steps an optimizer
    "TV114": ("graph_before_step", (ast.Call,), (r"\bbackward\b",), (r"\.[\s\\]*step\b",)),
    # a ``view`` call, in a file that moves dimensions
    "TV115": (
        "view_after_transpose", (ast.Call,), (r"\bview\b",),
        (r"\b(?:transpose|permute)\b", r"\.[\s\\]*t[\s\\]*\("),
    ),
    # a ``step`` call, in a file that uses a learning-rate scheduler
    # (in a file that makes a scheduler, or may be given one: ``def fit(..., scheduler)``)
    "TV130": ("scheduler_order", (ast.Call,), (r"\bstep\b",), (r"lr_scheduler|\bsched",)),
    # a ``step`` call with an argument, in a file that uses a learning-rate scheduler
    "TV151": ("scheduler_epoch", (ast.Call,), (r"\bstep[\s\\]*\([\s\\]*[^\s\\)]",),
              (r"\blr_scheduler\b",)),
    # a call of ``t`` (``x.t()``, ``torch.t(x)``; ``torch.t`` itself: what an alias stands for)
    "TV153": ("transpose_of_3d", (ast.Call,), (r"\bt[\s\\]*\(", r"\btorch\.t\b")),
    # TV14x: silent changes of behaviour
    # every finding's statement holds the call of the builtin ``isinstance``
    "TV140": (
        "isinstance_variable", (ast.If, ast.While, ast.IfExp, ast.Assert), (r"\bisinstance\b",),
    ),
    # a call of the builtin ``type`` (``x.type(type(y))``, ``type(y)(...)``)
    "TV141": ("tensor_type_of", (ast.Call,), (r"(?<![\w.])type[\s\\]*\(",)),
    "TV142": ("empty_dim", (ast.Call,), (r"\.[\s\\]*dim\b",)),
    # a division (``/``, ``/=``, ``torch.div``) in 0.3 code (``analysis/era.py``)
    "TV143": (
        "integer_division", (ast.BinOp, ast.AugAssign, ast.Call), ("/", r"\bdiv\b"),
        (r"\btorch\b",),
    ),
    # an accumulation (``+=``, ``-=``), ``'%s' %`` formatting, a ``print``, ``str``,
    # ``repr``, ``list``, ``sum``, ``json.dump(s)`` or numpy's ``array``/``asarray``/
    # ``mean``/``std``, or an element read through ``.data[`` in 0.3 code (see
    # ``tensor_numbers``)
    "TV144": (
        "tensor_numbers",
        (ast.AugAssign, ast.Call, ast.Subscript, ast.For, ast.BinOp, ast.Return),
        ((r"\+=", ast.AugAssign), (r"\-=", ast.AugAssign), (r"\breturn\b", ast.Return),
         (r"%[-#0 +]*\d*(?:\.\d*)?[sra]", ast.BinOp),
         (r"\b(?:print|str|repr|dumps?|list|sum|array|asarray|mean|std|round)[\s\\]*\(",
          ast.Call),
         (r"\.[\s\\]*data[\s\\]*\[", ast.Subscript),
         # (``yi[0]`` in the body of ``for yi in y.data``)
         (r"\bfor\b.*\.[\s\\]*data\b", ast.For)), (r"\btorch\b",),
    ),
    # a write into a subscript (``T[idx] = V``: a ``]`` then ``=``) or a ``copy_`` call,
    # in 0.3 code (``analysis/era.py``)
    "TV148": (
        "setitem_shape", (ast.Assign, ast.Call),
        ((r"\][\s\\]*=(?!=)", ast.Assign), (r"\bcopy_\b", ast.Call)), (r"\btorch\b",),
    ),
    # Python 2's ``/`` of two ints as a torch size: the statement holds the ``/``
    # (an assignment of one is followed to the sizes the name reaches)
    "TV149": ("size_division", (ast.Call, ast.Assign), ("/",), (r"\btorch\b",)),
    "TV146": ("sparse_constructor", (ast.Call,), (r"\bsparse\b",)),
    # an indexed assignment or an in-place method, in a file that expands
    "TV150": ("expanded_write", (ast.Subscript, ast.Call),
              ((r"\][\s\\]*=(?!=)", ast.Subscript),
               (r"\.[\s\\]*(?:add|sub|mul|div|pow|clamp|copy|neg|abs|exp|log|sqrt|sign"
                r"|addcmul|addcdiv|uniform|normal|bernoulli|random|floor|ceil|round|sigmoid"
                r"|tanh|relu|masked_fill|index_fill|index_put|masked_scatter|index_copy"
                r"|index_add|scatter|scatter_add)_[\s\\]*\(", ast.Call)),
              (r"\bexpand(?:_as)?\b",)),
    # an ``arange`` call, in 0.3 code (``analysis/era.py``)
    "TV152": ("integer_arange", (ast.Call,), (r"\barange\b",), (r"\btorch\b",)),
    # a ``zero_grad`` call, in a file that assigns a gradient (``p._grad = q.grad``)
    "TV147": ("shared_gradients", (ast.Call,), (r"\bzero_grad\b",),
              (r"\.[\s\\]*_?grad[ \t\\]*=(?!=)",)),
    "TV145": ("pairwise_keepdim", (ast.Call,), (r"\b(?:pairwise_distance|PairwiseDistance)\b",)),
    "TV154": ("dropout_default", (ast.Call,), (r"\bdropout(?:[23]d)?\b",)),
    "TV155": ("renamed_keywords", (ast.Call,),
              (r"\bsplit_size\b", r"\bdevice_id\b", r"\bn(?:um)?_chunks\b")),
    "TV156": ("non_inplace_resize", (ast.Call,), (r"\.[\s\\]*resize[\s\\]*\(",)),
    # a star import, in a file that star-imports a module of torch
    "TV160": ("star_import_names", (ast.ImportFrom,), (r"import[\s\\(]*\*",),
              (r"\bfrom[\s\\]+torch\.",)),
    "TV161": ("rnn_cell_base", (ast.ClassDef,), (r"\bRNNCellBase\b",)),
    # an ``expand_as``/``expand`` call (of a reduction: ``x.norm(2, 1).expand_as(x)``)
    "TV162": ("reduced_expand", (ast.Call,), (r"\bexpand(?:_as)?\b",)),
    # a bare ``step()`` call, in a file that uses a learning-rate scheduler
    "TV163": ("scheduler_lag", (ast.Call,), (r"\bstep[\s\\]*\([\s\\]*\)",),
              (r"lr_scheduler|\bsched",)),
    # a call of a numpy function that warns when given a tensor, in a file that names numpy
    "TV164": ("numpy_of_tensor", (ast.Call,), (
        r"\b(?:array|copy|isnan|isinf|isfinite|exp|exp2|expm1|log|log2|log10|log1p|sqrt"
        r"|square|cbrt|abs|absolute|fabs|sign|negative|reciprocal|sin|cos|tan|arcsin|arccos"
        r"|arctan|sinh|cosh|tanh|floor|ceil|rint|trunc|logical_not|signbit|maximum|minimum"
        r"|fmax|fmin|power|mod|fmod|arctan2|hypot|logical_and|logical_or|logical_xor"
        r"|argwhere|argmax|argmin|clip|round|around|cumsum|cumprod|transpose|reshape"
        r"|repeat)\b",), (r"\bnumpy\b",)),
    # ``C().apply(...)``: an autograd Function called through an instance
    "TV165": ("function_instance", (ast.Call,), (r"\)[\s\\]*\.[\s\\]*apply\b",)),
    # ``state['step'] = 0`` in an optimizer subclass, in a file that names torch.optim
    "TV166": ("optimizer_step_state", (ast.Assign,), (r"""step['"][\s\\]*\]""",),
              (r"\boptim\b",)),
    # 0.3's typed storages (``torch.ByteStorage.from_buffer(b)``)
    "TV167": ("typed_storage", (ast.Call,), ("Storage",)),
    # a call that packs a batch, in a file that reverses something by a slice
    "TV170": ("reversed_array", (ast.Call,), (r"\bpack_padded_sequence\b",),
              (r"::[\s\\]*-",)),
    # an assignment to an attribute a made DataLoader refuses
    "TV169": ("loader_attribute", (ast.Assign,),
              (r"\.[\s\\]*(?:batch_size|drop_last|sampler|batch_sampler|dataset)[\s\\]*=",)),
    # ``dot`` of tensors (torch's, or a tensor's method)
    "TV171": ("flattened_dot", (ast.Call,), (r"\bdot[\s\\]*\(",), (r"\btorch\b",)),
    # autograd called, in a file that names a Function
    "TV173": ("backward_graph", (ast.Call,), (r"\b(?:grad|backward)\b",), (r"\bFunction\b",)),
    # two names assigned at once, in a file that names a packed sequence
    "TV172": ("packed_pair", (ast.Assign,), (r",",),
              (r"\bPackedSequence\b|\bpack_(?:padded_)?sequence\b",)),
    # ``squeeze()`` without a dimension, in a file that says ``nonzero``
    "TV168": ("nonzero_squeeze", (ast.Call,), (r"\bsqueeze[\s\\]*\([\s\\]*\)",),
              ("nonzero",)),
    # ``c and t or d`` (0.1's conditional)
    "TV159": ("tensor_truth", (ast.BoolOp,), (r"\band\b",)),
    # ``betas`` given to an optimizer, or an Adam given its betas by position (Adam
    # and AdamW's must be floats since 2.6)
    "TV158": ("adam_betas", (ast.Call,), (r"\bbetas\b", r"\bAdamW?\b")),
    # a batch-norm module (or an instance norm) built, in a file that names torch
    "TV157": ("batchnorm_init", (ast.Call,), (r"\b(?:Batch|Instance)Norm[123]d\b",),
              (r"\btorch\b",)),
    "TV103": ("one_element_gradient", (ast.Call,), (r"\bbackward\b",)),
    # a class that defines ``forward`` (its Function base may be another class of the
    # file or of the project)
    "TV104": ("legacy_function", (ast.ClassDef,), (r"\bforward\b",)),
    "TV106": ("whole_object_load", (ast.Call,), (r"\bload\b",)),
    # a finding is a loss target or a key written ``x[i]`` (``[``), a loop variable
    # given to a loss named so, a key in ``in``, or a key / value handed to
    # ``get``/``pop``/``setdefault``/``json.dump(s)``
    # (only in files that import torch: ``import torch...`` or ``from torch...``)
    "TV107": (
        "tensor_element", (ast.Call, ast.Subscript, ast.Compare, ast.Set, ast.SetComp), (
            r"\[",
            (r"(?i:loss|crit|nll|cross_entropy)", ast.Call),
            (r"\bin\b", ast.Compare),
            (r"\b(?:get|pop|setdefault|dumps?|set|frozenset)\b", ast.Call),
            ("{", ast.Set, ast.SetComp),
        ),
        (r"\btorch\b",),
    ),
    "TV111": (
        "removed_apis", (ast.Import, ast.ImportFrom, ast.Attribute, ast.Call),
        ("reinforce", "ffi", "trainer", "legacy", "_backend", "gels", "potrf", "potrs", "potri",
         "trtrs", "symeig", r"\beig\b", "_TensorBase", "gesv", "btrifact", "btrisolve",
         "NLLLoss2d", "dist_backend", "_assert_no_grad", "_functions"),
    ),
    # TV12x: deprecations that warn on PyTorch 2.13 (each marker is a name the
    # flagged statement spells, or, for byte masks, where the mask is used)
    "TV120": ("loss_reduction", (ast.Call, ast.Assign),
              ("size_average", r"\breduce\b", "kl_div", "KLDivLoss")),
    "TV121": (
        "init_names", (ast.Call,),
        (r"\b(?:xavier_uniform|xavier_normal|kaiming_uniform|kaiming_normal|uniform|normal"
         r"|constant|eye|dirac|orthogonal|sparse)\b",),
    ),
    "TV122": ("clip_grad_norm", (ast.Call,), ("clip_grad_norm",)),
    "TV123": ("softmax_dim", (ast.Call,), ("softmax", "Softmax", "softmin", "Softmin")),
    "TV124": ("upsample", (ast.Call,), ("upsample", "Upsample")),
    # a call of grid_sample or affine_grid (warns on 2.13 without align_corners)
    "TV133": ("grid_align_corners", (ast.Call,), (r"\b(?:grid_sample|affine_grid)\b",)),
    # a ``dropout`` argument, in a file that builds a recurrent module
    "TV134": ("single_layer_dropout", (ast.Call,), (r"\bdropout\b",), (r"\b(?:RNN|LSTM|GRU)\b",)),
    "TV125": ("torch_range", (ast.Call,), (r"\brange\b",)),
    "TV135": ("moved_functions", (ast.Call,), (r"\bweight_norm\b", r"\bqr\b")),
    "TV136": ("scheduler_verbose", (ast.Call,), (r"\bverbose\b",), (r"\blr_scheduler\b",)),
    # a subtraction from the constant one (``1 - mask``, ``1. - mask``)
    "TV137": ("bool_subtraction", (ast.BinOp,), (r"1\.?0*[\s\\]*-",),
              (r"\btorch\b",)),
    # the keyword ``range=`` of torchvision's ``make_grid``/``save_image`` (only in files
    # that name torchvision: every import of them does)
    "TV138": ("grid_value_range", (ast.Call,), (r"\brange[\s\\]*=",), (r"\btorchvision\b",)),
    # ``pretrained=``, or a builder's name called with ``True``/``False`` first
    "TV139": (
        "pretrained_weights", (ast.Call,), (
            r"\bpretrained[\s\\]*=",
            r"\b(?:alexnet|vgg|resnet|resnext|wide_resnet|squeezenet|densenet|inception_v3|"
            r"googlenet|mobilenet|shufflenet|mnasnet)\w*[\s\\]*\([\s\\]*(?:True|False)\b",
        ), (r"\btorchvision\b",),
    ),
    "TV126": (
        "scalar_overloads", (ast.Call,),
        (r"\b(?:add|sub|addcmul|addcdiv|addmm|addmv|addbmm|baddbmm|addr)_?\b",),
    ),
    "TV127": ("saved_variables", (ast.Attribute, ast.Name), ("saved_variables", "Container")),
    "TV128": ("dataset_attributes", (ast.Attribute, ast.Call),
              (r"\b(?:train|test)_(?:data|labels)\b",)),
    # (only in files that make byte tensors: ``byte_masks._BYTE_TEXT``)
    "TV131": ("default_tensor_type", (ast.Call,), ("set_default_tensor_type",)),
    # (only in files that mention numpy)
    "TV132": ("numpy_list_tensor", (ast.Call,), ("Tensor", r"\btensor\b"), (r"\bnumpy\b",)),
    "TV129": (
        "byte_masks", (ast.Subscript, ast.Call),
        (
            (r"\[", ast.Subscript),
            (r"\b(?:masked_fill|masked_select|masked_scatter|where)", ast.Call),
        ),
        # (or a masking call: its mask may come from a helper of the project)
        (r"\bbyte\b", "ByteTensor", "uint8", r"\bmasked_(?:fill|select|scatter)"),
    ),
}
