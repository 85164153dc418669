"""Fixes of TV103, TV104, TV106 and TV107 (the programs that stop on PyTorch 2.13).

(source, expected) tables: each finding's fix is applied alone, so the tables
pin the rules' own edits; the fixed text must parse.  No-op tables list
sources the rule leaves alone.
"""
import ast
import textwrap

import pytest

from flake8_torch04._core import UNSAFE, check_source
from flake8_torch04._fix import apply_edits


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


def fixed(source, code):
    findings = check_source(source, "t.py", [code])
    assert findings, f"no {code} finding"
    edits = []
    for finding in findings:
        assert finding.fix is not None, finding
        assert finding.fix.safety == UNSAFE
        edits.extend(finding.fix.edits)
    text = apply_edits(source, edits)
    ast.parse(text)
    return text


def findings(source, code):
    return check_source(source, "t.py", [code])


TV106_FIXES = [
    pytest.param("model = torch.load(path)\n", "model = torch.load(path, weights_only=False)\n",
                 id="bound-to-model"),
    pytest.param("m = torch.load(f, map_location='cpu')\nm.eval()\n",
                 "m = torch.load(f, map_location='cpu', weights_only=False)\nm.eval()\n",
                 id="keyword"),
    pytest.param("net = torch.load(\n    path,\n)\n",
                 "net = torch.load(\n    path, weights_only=False,\n)\n", id="trailing-comma"),
    pytest.param("out = torch.load(p)(x)\n", "out = torch.load(p, weights_only=False)(x)\n",
                 id="called"),
]
TV106_NOOPS = [
    "model.load_state_dict(torch.load(path))\n",
    "ckpt = torch.load(path)\nmodel.load_state_dict(ckpt['model'])\n",
    "model = torch.load(path, weights_only=False)\n",
    "x = torch.load(path)\nprint(x.shape)\n",
]


@pytest.mark.parametrize("source, expected", TV106_FIXES)
def test_tv106_fix(source, expected):
    header = "import torch\n"
    assert fixed(header + source, "TV106") == header + expected


@pytest.mark.parametrize("source", TV106_NOOPS)
def test_tv106_noop(source):
    assert not findings("import torch\n" + source, "TV106")


def test_tv106_message_says_only_for_trusted_files():
    (finding,) = findings("import torch\nmodel = torch.load(path)\n", "TV106")
    assert "only for files you trust" in finding.message
    assert "`torch.load(path)`" in finding.message


TV103_HEADER = "import torch\none = torch.FloatTensor([1])\nmone = one * -1\n"
TV103_FIXES = [
    pytest.param("errD_real.backward(one)\n", "errD_real.backward()\n", id="one"),
    pytest.param("errD_fake.backward(mone)\n", "(-errD_fake).backward()\n", id="mone"),
    pytest.param("(a_loss + b_loss).backward(mone)\n", "(-(a_loss + b_loss)).backward()\n",
                 id="mone-binop"),
    pytest.param("loss.backward(one, retain_graph=True)\n",
                 "loss.backward(retain_graph=True)\n", id="keyword-kept"),
    pytest.param("loss.backward(gradient=mone, retain_graph=True)\n",
                 "(-loss).backward(retain_graph=True)\n", id="gradient-keyword"),
    pytest.param("loss.backward(torch.ones(1))\n", "loss.backward()\n", id="ones"),
]
TV103_NOOPS = [
    "loss.backward()\n",
    "loss.backward(torch.tensor(1.))\n",
    "output.backward(one)\n",
    "loss.backward(torch.ones(3))\n",
]


@pytest.mark.parametrize("source, expected", TV103_FIXES)
def test_tv103_fix(source, expected):
    assert fixed(TV103_HEADER + source, "TV103") == TV103_HEADER + expected


@pytest.mark.parametrize("source", TV103_NOOPS)
def test_tv103_noop(source):
    assert not findings(TV103_HEADER + source, "TV103")


def test_tv103_other_values_get_a_message_only():
    source = "import torch\nhalf = torch.FloatTensor([0.5])\nloss.backward(half)\n"
    (finding,) = findings(source, "TV103")
    assert finding.fix is None
    assert "0.5" in finding.message
