"""Fixes of TV005 (type comparisons) and TV006 (dotted names): (source, expected) tables.

Each fix is applied on its own, with a local helper, so these tables pin the
rules' edits independently of the fixer's rounds and import handling.
"""
import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flake8_torch04.analysis.findings import UNSAFE
from flake8_torch04.analysis.run import check_source

FIXTURES = Path(__file__).parent / "fixtures"


def apply(source, edits):
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos):
        return starts[pos[0] - 1] + pos[1]

    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        source = source[: offset(edit.start)] + edit.text + source[offset(edit.end):]
    return source


def fixed(source, code):
    """``source`` with the fix of its single ``code`` finding applied."""
    findings = check_source(source, "t.py", [code])
    assert len(findings) == 1, findings
    fix = findings[0].fix
    assert fix is not None, findings[0]
    assert fix.safety == UNSAFE
    return apply(source, fix.edits), fix.imports


HEAD = "import torch\nfrom torch.autograd import Variable\n"

TV005_FIXES = [
    ("type(x) == torch.FloatTensor", "isinstance(x, torch.FloatTensor)", ()),
    ("torch.FloatTensor == type(x)", "isinstance(x, torch.FloatTensor)", ()),
    ("type(x) != torch.FloatTensor", "not isinstance(x, torch.FloatTensor)", ()),
    ("type(x) is not torch.FloatTensor", "not isinstance(x, torch.FloatTensor)", ()),
    ("x.__class__ is torch.cuda.FloatTensor", "isinstance(x, torch.cuda.FloatTensor)", ()),
    ("type(h) == Variable", "isinstance(h, torch.Tensor)", ()),
    ("type(h) != Variable", "not isinstance(h, torch.Tensor)", ()),
    ("type(x) in (torch.FloatTensor, torch.DoubleTensor)",
     "isinstance(x, (torch.FloatTensor, torch.DoubleTensor))", ()),
    ("type(x) in [torch.FloatTensor, torch.DoubleTensor]",
     "isinstance(x, (torch.FloatTensor, torch.DoubleTensor))", ()),
    ("type(x) not in {torch.FloatTensor}", "not isinstance(x, torch.FloatTensor)", ()),
    ("type(x) in (Variable, torch.FloatTensor)",
     "isinstance(x, (torch.Tensor, torch.FloatTensor))", ()),
    ("type(x) in (Variable, torch.Tensor)", "isinstance(x, torch.Tensor)", ()),
    ("type(x).__name__ == 'Variable'", "isinstance(x, torch.Tensor)", ()),
    ("type(x).__name__ != 'Variable'", "not isinstance(x, torch.Tensor)", ()),
    ("type((y := x)) == torch.FloatTensor", "isinstance((y := x), torch.FloatTensor)", ()),
    ("a or type(x) != torch.FloatTensor", "a or not isinstance(x, torch.FloatTensor)", ()),
    ("(type(x) != torch.FloatTensor) + 1", "(not isinstance(x, torch.FloatTensor)) + 1", ()),
    ("y if type(x) != Variable else z", "y if not isinstance(x, torch.Tensor) else z", ()),
    ("f(type(x) != torch.FloatTensor)", "f(not isinstance(x, torch.FloatTensor))", ()),
    ("[type(x) != torch.FloatTensor]", "[not isinstance(x, torch.FloatTensor)]", ()),
    ("self.assertEqual(type(x), torch.FloatTensor)",
     "self.assertIsInstance(x, torch.FloatTensor)", ()),
    ("self.assertNotEqual(Variable, type(x), 'msg')",
     "self.assertNotIsInstance(x, torch.Tensor, 'msg')", ()),
    ("self.assertIn(type(x), [torch.FloatTensor, torch.LongTensor])",
     "self.assertIsInstance(x, (torch.FloatTensor, torch.LongTensor))", ()),
]


@pytest.mark.parametrize("expr, expected, imports", TV005_FIXES, ids=[t[0] for t in TV005_FIXES])
def test_tv005_fix(expr, expected, imports):
    new, got_imports = fixed(HEAD + f"r = {expr}\n", "TV005")
    assert new == HEAD + f"r = {expected}\n"
    assert got_imports == imports
    ast.parse(new)


def test_tv005_fix_spells_the_files_own_torch_name():
    source = "import torch as th\nfrom torch.autograd import Variable\nr = type(h) == Variable\n"
    new, imports = fixed(source, "TV005")
    assert new.endswith("r = isinstance(h, th.Tensor)\n") and imports == ()


def test_tv005_fix_asks_for_an_import_when_torch_is_not_bound():
    source = "from torch.autograd import Variable\nr = type(h) is Variable\n"
    new, imports = fixed(source, "TV005")
    assert new.endswith("r = isinstance(h, torch.Tensor)\n") and imports == ("torch",)


TV005_NO_FIX = [
    "type(x).__name__ == 'FloatTensor'",  # x.type() raises on non-tensors
    "type(x).__name__ in ('FloatTensor', 'DoubleTensor')",
    "a == type(x) == torch.FloatTensor",  # a chain
    "type(x) in (  # the types\n    torch.FloatTensor,\n)",  # a comment would be lost
    "{torch.FloatTensor: 1}[type(x)]",
    "self.assertEqual(type(x).__name__, 'FloatTensor')",
]


@pytest.mark.parametrize("expr", TV005_NO_FIX)
def test_tv005_reported_without_fix(expr):
    findings = check_source(HEAD + f"r = {expr}\n", "t.py", ["TV005"])
    assert len(findings) == 1 and findings[0].fix is None, findings


def test_tv005_name_held_container():
    source = HEAD + "TYPES = (torch.FloatTensor,)\nLIST = [torch.FloatTensor]\n" \
        "a = type(x) in TYPES\nb = type(x) in LIST\n"
    a, b = check_source(source, "t.py", ["TV005"])
    assert apply(source, a.fix.edits).endswith("a = isinstance(x, TYPES)\nb = type(x) in LIST\n")
    assert b.fix is None  # isinstance() takes no list


def test_tv005_message_quotes_the_code_and_the_fix():
    (finding,) = check_source(HEAD + "r = type(h) != Variable\n", "t.py", ["TV005"])
    assert finding.message == (
        "`type(h) != Variable` is always True since PyTorch 0.4 (type(t) is Tensor); "
        "use `not isinstance(h, torch.Tensor)`"
    )


NN_HEAD = "import torch.nn as nn\nfrom collections import OrderedDict\n"

TV006_FIXES = [
    ("m.add_module('norm.1', c)", "m.add_module('norm_1', c)"),
    ('m.add_module("a.b.c", c)', 'm.add_module("a_b_c", c)'),
    ("m.register_buffer(name=r'a.b', tensor=t)", "m.register_buffer(name=r'a_b', tensor=t)"),
    ("m.add_module('a.' 'b', c)", "m.add_module('a_' 'b', c)"),
    ("m.add_module(f'conv.{i}', c)", "m.add_module(f'conv_{i}', c)"),
    ("m.add_module(f'conv.{i:.2f}', c)", "m.add_module(f'conv_{i:.2f}', c)"),
    ("m.add_module(f'{cfg.name}.{i}', c)", "m.add_module(f'{cfg.name}_{i}', c)"),
    ("m.add_module(f'{{a.b}}.{i}', c)", "m.add_module(f'{{a_b}}_{i}', c)"),
    ("m.add_module('pyramid.{0}.relu'.format(n), c)",
     "m.add_module('pyramid_{0}_relu'.format(n), c)"),
    ("m.add_module('{0.name}.{1}'.format(a, n), c)",
     "m.add_module('{0.name}_{1}'.format(a, n), c)"),
    ("m.add_module('layer.%d' % n, c)", "m.add_module('layer_%d' % n, c)"),
    ("m.add_module('%s.%.1f' % (a, n), c)", "m.add_module('%s_%.1f' % (a, n), c)"),
    ("m.add_module('stage.' + str(i) + '.x', c)", "m.add_module('stage_' + str(i) + '_x', c)"),
    ("nn.Sequential(OrderedDict([('conv.0', c)]))", "nn.Sequential(OrderedDict([('conv_0', c)]))"),
    ("nn.ModuleDict({'a.b': c})", "nn.ModuleDict({'a_b': c})"),
]


@pytest.mark.parametrize("expr, expected", TV006_FIXES, ids=[t[0] for t in TV006_FIXES])
def test_tv006_fix(expr, expected):
    new, imports = fixed(NN_HEAD + f"{expr}\n", "TV006")
    assert new == NN_HEAD + f"{expected}\n"
    assert imports == ()


TV006_NO_FIX = [
    "m.add_module('', c)",
    "m.add_module('x\\N{FULL STOP}y', c)",  # the dot is not in the source text
    "m.add_module('a.'  # a comment inside the literal's text\n    'b', c)",
    "m.add_module('a.' + name, c)",
]


@pytest.mark.parametrize("expr", TV006_NO_FIX)
def test_tv006_reported_without_fix(expr):
    source = NN_HEAD + f"name = 'x.y'\n{expr}\n"
    findings = check_source(source, "t.py", ["TV006"])
    assert len(findings) == 1 and findings[0].fix is None, findings


def test_tv006_message_asks_for_checkpoint_remapping():
    (finding,) = check_source("m.add_module('norm.1', c)\n", "t.py", ["TV006"])
    assert finding.message == (
        "`'norm.1'` contains '.': add_module() raises KeyError since PyTorch 0.4; "
        "use `'norm_1'` and remap old checkpoints' keys"
    )


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("TV00[56]*.py")), ids=lambda p: p.name)
def test_fixture_fixes_parse_and_settle(path):
    """Applying every fix of a fixture gives a program that parses, in which the
    fixed sites are gone and nothing new is found."""
    code = path.name[:5]
    source = path.read_text(encoding="utf-8")
    findings = check_source(source, str(path), [code])
    edits = [e for f in findings if f.fix for e in f.fix.edits]
    new = apply(source, edits)
    ast.parse(new)
    again = check_source(new, str(path), [code])
    assert all(f.fix is None for f in again)
    assert len(again) == sum(f.fix is None for f in findings)


BEHAVIOUR = textwrap.dedent("""
    from collections import OrderedDict
    import torch
    import torch.nn as nn
    from torch.autograd import Variable

    x = torch.ones(2)
    assert (type(x) == torch.FloatTensor) is False
    assert type(x).__name__ == 'Tensor'
    assert (type(x) == Variable) is False
    assert x.type() == 'torch.FloatTensor'
    for build in (
        lambda: nn.Module().add_module('norm.1', nn.ReLU()),
        lambda: nn.Module().register_buffer('a.b', x),
        lambda: nn.Module().register_parameter('', None),
        lambda: nn.Sequential(OrderedDict([('conv.1', nn.ReLU())])),
        lambda: nn.ParameterDict({'a.b': nn.Parameter(x)}),
    ):
        try:
            build()
        except KeyError:
            pass
        else:
            raise AssertionError('no KeyError')
    # and what the fixes write instead
    assert isinstance(x, torch.FloatTensor) and isinstance(x, torch.Tensor)
    assert not isinstance(x, (torch.DoubleTensor, torch.cuda.FloatTensor))
    assert x.type().endswith('.FloatTensor')
    nn.Sequential(OrderedDict([('conv_1', nn.ReLU())]))
""")


def test_claims_hold_on_real_pytorch():
    """What the messages say, run under ``$TORCH04_TORCH_PYTHON`` (default: this one)."""
    python = os.environ.get("TORCH04_TORCH_PYTHON", sys.executable)
    probe = subprocess.run([python, "-c", "import torch"], capture_output=True, timeout=300)
    if probe.returncode:
        pytest.skip(f"{python} cannot import torch (set TORCH04_TORCH_PYTHON)")
    result = subprocess.run([python, "-c", BEHAVIOUR], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr


# TV006: the rename reaches every use of the name in the file (getattr & co,
# ``_modules``/``_buffers``/``_parameters``, state_dict keys), or there is no fix

def fixed_all(source, code="TV006"):
    """``source`` with the fixes of every ``code`` finding applied."""
    findings = check_source(source, "t.py", [code])
    edits = {e for f in findings if f.fix for e in f.fix.edits}
    return apply(source, edits)


USES = textwrap.dedent("""
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self, n):
            super(Net, self).__init__()
            for i in range(n):
                self.add_module('conv.%d' % i, nn.Linear(2, 2))
            self.register_buffer('running.mean', torch.zeros(2))
            self.register_parameter('scale.0', nn.Parameter(torch.ones(1)))

        def forward(self, x):
            for i in range(2):
                if hasattr(self, 'conv.%d' % i):
                    x = getattr(self, 'conv.%d' % (i))(x)
            x = x * self._parameters['scale.0'] + self._buffers['running.mean']
            for name, _ in self.named_buffers():
                if name == 'running.mean':
                    print(name)
            return x


    net = Net(2)
    print(net.state_dict()['running.mean'], net._modules['conv.1'])
    setattr(net, 'conv.0', nn.Linear(2, 2))
    delattr(net, 'conv.0')
    net.load_state_dict({'conv.0.weight': w, 'conv.0.bias': b}, strict=False)
""")

USES_FIXED = (USES.replace("conv.", "conv_").replace("running.mean", "running_mean")
              .replace("scale.0", "scale_0"))


def test_tv006_rename_reaches_the_uses_of_the_name():
    findings = check_source(USES, "t.py", ["TV006"])
    assert [(f.line, f.fix is not None) for f in findings] == [(10, True), (11, True), (12, True)]
    assert "(the fix renames its 7 uses in the file too)" in findings[0].message
    assert "(the fix renames its 3 uses in the file too)" in findings[1].message
    assert "(the fix renames its use in the file too)" in findings[2].message
    assert fixed_all(USES) == USES_FIXED


def test_tv006_literal_rename_reaches_getattr_setattr_and_state_dict_keys():
    source = NN_HEAD + textwrap.dedent("""
        net = nn.Sequential(OrderedDict([('conv.0', nn.Linear(2, 2))]))
        setattr(net, 'conv.0', nn.Linear(2, 2))
        print(getattr(net, "conv.0"), net._modules['conv.0'])
        net.load_state_dict({'conv.0.weight': w, 'conv.0.bias': b})
        print(net.state_dict()['conv.0.weight'], 'conv.0' in net._modules)
        delattr(net, 'conv.0')
    """)
    assert fixed_all(source) == source.replace("conv.0", "conv_0")


TV006_USE_BLOCKS_FIX = [
    # spelled another way: the rename would leave it reading the old name
    ("self.add_module('conv.%d' % i, c)", "getattr(self, 'conv.' + str(i))(x)",
     "`'conv.' + str(i)` reads a dotted name the fix cannot rename"),
    ("self.add_module('conv.%d' % i, c)", "self._modules['block.0']",
     "`'block.0'` reads a dotted name the fix cannot rename"),
    # held in a variable: the fix cannot tell which name it is
    ("self.add_module('conv.%d' % i, c)", "name = 'conv.%d' % i; getattr(self, name)(x)",
     "`name` holds a dotted name read as an attribute"),
    # a literal whose text the fix cannot rewrite
    ("self.register_buffer('a.b', t)", "self._buffers['a\\x2eb']",
     "`'a\\x2eb'` reads a dotted name the fix cannot rename"),
    ("self.register_buffer('a.b', t)", "print(self.state_dict()['a\\x2eb.x'])",
     "`'a\\x2eb.x'` cannot be rewritten"),
]


@pytest.mark.parametrize("register, use, why", TV006_USE_BLOCKS_FIX)
def test_tv006_no_fix_when_a_use_cannot_be_renamed(register, use, why):
    source = NN_HEAD + (
        "class Net(nn.Module):\n"
        "    def __init__(self, i, c, t):\n"
        f"        {register}\n"
        "\n"
        "    def forward(self, x, i):\n"
        f"        {use}\n"
    )
    (finding,) = check_source(source, "t.py", ["TV006"])
    assert finding.fix is None
    assert f"rename its uses by hand (no automatic fix: {why})" in finding.message


def test_tv006_uses_of_other_registered_names_do_not_block():
    source = NN_HEAD + textwrap.dedent("""
        net = nn.Sequential(OrderedDict([('a.b', c), ('x.%d' % 1, d)]))
        print(net._modules['a.b'], getattr(net, 'x.1'), net._modules['x.%d' % 1])
    """)
    assert fixed_all(source) == source.replace("a.b", "a_b").replace("x.", "x_")
