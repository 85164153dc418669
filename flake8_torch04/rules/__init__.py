"""The rule table: what the walker must know of a rule before it loads it.

Each rule lives in a module of its own, which defines one function decorated
with ``_core.rule(code)``; its docstring is the rule's documentation, with
the sections ``## What it does``, ``## Why is this bad?``, ``## Example``,
``Use instead:`` and ``## Fix safety``.

``TABLE`` gives, for each code, that module, the node types the rule
visits and its markers (see ``_core.Gate``).  The markers are searched in a
file's text before any rule module is imported, and only the modules of the
rules whose markers match are loaded: an editor that runs flake8 on a file
that no marker matches never pays for loading the rules.
"""
import ast

#: code: (module, node types, markers)
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
    # TV12x: deprecations that warn on PyTorch 2.13 (each marker is a name the
    # flagged statement spells, or, for byte masks, where the mask is used)
    "TV120": ("loss_reduction", (ast.Call,), ("size_average", r"\breduce\b")),
    "TV121": (
        "init_names", (ast.Call,),
        (r"\b(?:xavier_uniform|xavier_normal|kaiming_uniform|kaiming_normal|uniform|normal"
         r"|constant|eye|dirac|orthogonal|sparse)\b",),
    ),
    "TV122": ("clip_grad_norm", (ast.Call,), ("clip_grad_norm",)),
    "TV123": ("softmax_dim", (ast.Call,), ("softmax", "Softmax", "softmin", "Softmin")),
    "TV124": ("upsample", (ast.Call,), ("upsample", "Upsample")),
    "TV125": ("torch_range", (ast.Call,), (r"\brange\b",)),
    "TV126": ("scalar_overloads", (ast.Call,), (r"\b(?:add|sub|addcmul|addcdiv)_?\b",)),
    "TV127": ("saved_variables", (ast.Attribute, ast.Name), ("saved_variables", "Container")),
    "TV128": ("dataset_attributes", (ast.Attribute,), (r"\b(?:train|test)_(?:data|labels)\b",)),
    "TV129": (
        "byte_masks", (ast.Subscript, ast.Call),
        (
            (r"\[", ast.Subscript),
            (r"\b(?:masked_fill|masked_select|masked_scatter|where)", ast.Call),
        ),
    ),
}
