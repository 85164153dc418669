"""One notion of "this project is 0.3 code" (``flake8_torch04/analysis/era.py``).

The case that made it: two segmentation projects, 0.3 code throughout
(``Variable``, ``volatile``, ``.data[0]`` in their training scripts), whose
model modules call ``F.upsample(x, size, mode='bilinear')`` and never name
``Variable``: the safe fix renamed the call without ``align_corners=True``, and
the numbers changed from 0.3's.
"""
import re
import textwrap

import pytest
from cli_runner import in_process

from flake8_torch04.analysis import era
from flake8_torch04.analysis.run import check_source

MODEL = """\
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def forward(self, x, size):
        return F.upsample(x, size, mode='bilinear')
"""
TRAIN_03 = """\
import torch
from torch.autograd import Variable
from models.head import Head

x = Variable(torch.randn(1, 2, 4, 4), volatile=True)
print(Head()(x, (8, 8)).data[0])
"""
TRAIN_MODERN = """\
import torch
from models.head import Head

with torch.no_grad():
    print(Head()(torch.randn(1, 2, 4, 4), (8, 8))[0])
"""


@pytest.fixture(autouse=True)
def no_setting():
    era.configured_target = None
    yield
    era.configured_target = None


def project(root, train):
    files = {"models/__init__.py": "", "models/head.py": MODEL, "train.py": train}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "models" / "head.py"


def fixed(path, *flags):
    status, out, err = in_process("check", "--fix", "-q", "--select", "TV124", *flags,
                                  str(path))
    assert "internal error" not in err, err
    return path.read_text(encoding="utf-8")


def test_upsample_in_a_module_of_a_03_project_keeps_03s_numbers(tmp_path):
    head = project(tmp_path, TRAIN_03)
    assert "F.interpolate(x, size, mode='bilinear', align_corners=True)" in fixed(head)


def test_upsample_in_a_modern_project_keeps_todays_numbers(tmp_path):
    head = project(tmp_path, TRAIN_MODERN)
    text = fixed(head)
    assert "F.interpolate(x, size, mode='bilinear')" in text
    assert "align_corners" not in text


def test_the_setting_wins_both_ways(tmp_path):
    head = project(tmp_path, TRAIN_MODERN)
    source = head.read_text(encoding="utf-8")
    era.configured_target = "0.3"
    [finding] = check_source(source, str(head), ["TV124"])
    assert "align_corners=True" in finding.message
    era.configured_target = "0.4"
    legacy = "from torch.autograd import Variable\n" + source
    [finding] = check_source(legacy, str(head), ["TV124"])
    assert "interpolate(..., align_corners=True)" not in finding.message
    assert era.target() is False
    era.configured_target = "nonsense"
    assert era.target() is None


def test_without_a_file_name_only_the_file_counts(tmp_path, monkeypatch):
    project(tmp_path, TRAIN_03)
    monkeypatch.chdir(tmp_path)
    [finding] = check_source(MODEL, "", ["TV124"])
    assert "interpolate(..., align_corners=True)" not in finding.message
    assert "0.3 computed align_corners=True" in finding.message


@pytest.mark.parametrize("text, evidence", [
    ("from torch.autograd import Variable\n", True),
    ("from torch.autograd.variable import Variable\n", True),
    ("v = torch.autograd.Variable(x)\n", True),
    ("x = V(t, volatile=True)\n", True),
    ("total += loss.data[0]\n", True),
    ("m.cuda(async=True)\n", True),
    ("row = x.data[0][1]\n", False),
    ("head = x.data[0:2]\n", False),
    ("n = x.data[0].item()\n", False),
    ("import tensorflow as tf\nv = tf.Variable(0.0)\n", False),
    ("volatile = False\n", False),
])
def test_evidence_in_a_file(text, evidence):
    assert era.file_evidence(textwrap.dedent(text)) is evidence


SIAMESE = """\
import torch.nn.functional as F


def contrastive(a, b, label):
    d = F.pairwise_distance(a, b)
    return ((1 - label) * d ** 2).mean()
"""


def test_pairwise_distance_asks_the_file_itself_not_its_project(tmp_path):
    """TV145's fix changes the shape code written for 0.4 expects: another module's
    0.3 idioms (torch's own tests use ``Variable``) do not make this file 0.3 code;
    its own idioms, or the setting, do."""
    path = tmp_path / "losses.py"
    path.write_text(SIAMESE, encoding="utf-8")
    (tmp_path / "train.py").write_text(TRAIN_03, encoding="utf-8")
    assert era.project_is_legacy(str(path))  # (the project says 0.3)
    assert check_source(SIAMESE, str(path), ["TV145"]) == []
    legacy = "from torch.autograd import Variable\n" + SIAMESE
    assert [f.code for f in check_source(legacy, str(path), ["TV145"])] == ["TV145"]
    era.configured_target = "0.3"
    assert [f.code for f in check_source(SIAMESE, str(path), ["TV145"])] == ["TV145"]


def test_era_rules_are_the_rules_that_ask_whether_the_code_is_03():
    from pathlib import Path

    from flake8_torch04.analysis.registry import all_rules
    from flake8_torch04.rules import TABLE

    rules = Path(era.__file__).parent.parent / "rules"
    asking = {code for code, row in TABLE.items()
              if re.search(r"\b(?:legacy|file_is_legacy)\(ctx\)",
                           (rules / f"{row[0]}.py").read_text(encoding="utf-8"))}
    assert asking == set(era.ERA_RULES) and asking <= set(all_rules())
