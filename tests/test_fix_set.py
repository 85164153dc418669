"""The fixer checks its fixes as a set, and does work in proportion to the file.

Issue 16 (fixes consistent as a set, a linear fixer) and issue 19 (broken
code written, several parses of a file with nothing to fix).  No test here
times anything: the work is counted (parses, walks, line splits), and the
benchmark (``bench/benchmark.py``) prints the seconds.
"""
import ast
import textwrap
from pathlib import Path

import pytest

from flake8_torch04.analysis.findings import SAFE, Finding, Fix
from flake8_torch04.fix import (
    analysis as fix_analysis, edits as fix_edits, fixer as fix_fixer, imports as fix_imports
)
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text
from flake8_torch04.pipeline import Options, check_document
from flake8_torch04.source import parse as source_parse, text as source_text
from flake8_torch04.source.document import Document
from flake8_torch04.source.text import Edit

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_train.py"


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


def fixed(source, codes, unsafe=False):
    return fix_text(source, lambda t: Analysis(t, codes), unsafe)


# ---------------------------------------------------------------------------
# replacements stay one expression (issue 19: TV001 with a continuation line)


CONTINUATION = dedent("""
    import torch
    from torch.autograd import Variable


    def f(a, b):
        x = Variable(a
        - b)
        return x
""")


def test_tv001_keeps_a_continuation_line_one_expression():
    out = fixed(CONTINUATION, ["TV001"]).text
    assert "    x = (a\n    - b)\n" in out
    tree = ast.parse(out)
    assign = tree.body[-1].body[0]
    assert isinstance(assign.value, ast.BinOp)  # a - b, not ``x = a`` then ``-b``


class _OneFix:
    def __init__(self, text, produce):
        self.text = text
        self.tree = ast.parse(text)
        self.findings = produce(text)

    def fixable(self, finding, unsafe):
        return True


def test_fixer_drops_a_replacement_that_parses_as_something_else():
    # a rule that forgets the parentheses: the text parses, but as two statements
    source = "a = b = 1\nx = int(a\n- b)\n"

    def produce(text):
        if "int(" not in text:
            return []
        return [Finding("TV999", 2, 4, "made up",
                        Fix((Edit((2, 4), (3, 4), "a\n- b"),), SAFE))]

    result = fix_text(source, lambda t: _OneFix(t, produce))
    assert result.text == source
    assert len(result.dropped) == 1
    assert "parentheses" in result.dropped[0].reason


def test_fixer_keeps_a_replacement_with_its_own_parentheses():
    source = "a = b = 1\nx = int(a + b).bit_length()\n"

    def produce(text):
        if "int(" not in text:
            return []
        return [Finding("TV999", 2, 4, "made up",
                        Fix((Edit((2, 4), (2, 14), "(a + b)"),), SAFE))]

    result = fix_text(source, lambda t: _OneFix(t, produce))
    assert result.text == "a = b = 1\nx = (a + b).bit_length()\n"
    assert result.dropped == []


# ---------------------------------------------------------------------------
# no name becomes undefined, no code gains findings (issue 16)


def test_string_annotation_keeps_the_variable_import():
    source = dedent("""
        import torch
        from torch.autograd import Variable


        def g(t: "Variable") -> "Optional[Variable]":
            y = Variable(t)
            return y
    """)
    out = fixed(source, ["TV001"]).text
    assert "from torch.autograd import Variable\n" in out
    assert "    y = t\n" in out


def test_fix_that_leaves_a_name_undefined_is_dropped_with_the_reason():
    source = "import os\nx = os.sep\n"

    def produce(text):
        if "os.sep" not in text:
            return []
        return [Finding("TV999", 2, 4, "made up",
                        Fix((Edit((2, 4), (2, 10), "posixpath.sep"),), SAFE))]

    result = fix_text(source, lambda t: _OneFix(t, produce))
    assert result.text == source
    assert "`posixpath` undefined" in result.dropped[0].reason


def test_fix_that_adds_findings_is_dropped_with_the_reason():
    # the fix itself writes ``Variable(...)`` (a TV001 finding): kept out
    source = "import torch\nfrom torch.autograd import Variable\nx = torch.ones(2).data\n"

    class Both(Analysis):
        def __init__(self, text):
            super().__init__(text, ["TV001"])
            if ".data\n" in text:
                self.findings = self.findings + [Finding(
                    "TV998", 3, 4, "made up",
                    Fix((Edit((3, 4), (3, 22), "Variable(torch.ones(2))"),), SAFE))]

        def fixable(self, finding, unsafe):
            return finding.code == "TV998" or super().fixable(finding, unsafe)

    result = fix_text(source, Both)
    assert result.text == source
    assert [d.finding.code for d in result.dropped] == ["TV998"]
    assert "would add a finding (TV001)" in result.dropped[0].reason


# ---------------------------------------------------------------------------
# the work is linear (issue 16: 10k lines 24 s, 40k lines 318 s)


def _legacy(repeats):
    return EXAMPLE.read_text(encoding="utf-8") * repeats


def _work(monkeypatch, text):
    """Nodes walked and characters split into lines while fixing ``text``."""
    counts = {"nodes": 0, "chars": 0}
    iter_child_nodes = ast.iter_child_nodes
    lines_of = source_text.lines_of

    def counting_children(node):
        counts["nodes"] += 1
        return iter_child_nodes(node)

    def counting_lines(text):
        counts["chars"] += len(text)
        return lines_of(text)

    monkeypatch.setattr(ast, "iter_child_nodes", counting_children)
    for module in (fix_analysis, fix_edits, fix_imports):  # (where the fixer splits lines)
        monkeypatch.setattr(module, "lines_of", counting_lines)
    codes = ["TV001", "TV002", "TV003", "TV004", "TV005", "TV006"]
    result = fix_text(text, lambda t: Analysis(t, codes), unsafe=True)
    monkeypatch.undo()
    return counts, result


def test_fixer_work_grows_linearly_with_the_file(monkeypatch):
    small, r_small = _work(monkeypatch, _legacy(4))
    large, r_large = _work(monkeypatch, _legacy(16))
    assert sum(r_large.fixed.values()) == 4 * sum(r_small.fixed.values())
    # four times the file, about four times the work (quadratic work: sixteen)
    for key in small:
        assert large[key] <= 5 * small[key], (key, small[key], large[key])


def test_a_file_with_nothing_to_fix_is_parsed_once(monkeypatch):
    source = "import torch\n\n\ndef f(x):\n    return torch.relu(x)\n" * 50
    parses = []
    parse = source_parse.parse

    def counting(text):
        parses.append(len(text))
        return parse(text)

    for module in (fix_fixer, fix_imports, source_parse):  # (where the fixer parses)
        monkeypatch.setattr(module, "parse", counting)
    doc = Document(source.encode(), "m.py")
    result = check_document(doc, Options(codes=("TV001", "TV003", "TV004"), fix=True,
                                         unsafe=True))
    assert result.findings == [] and result.new_data is None
    assert len(parses) == 1


def test_a_set_with_one_bad_fix_costs_few_builds(monkeypatch):
    # 64 fixes, one of which breaks the code: halving finds it in about
    # 2 log2(64) builds, not one build per fix
    lines = [f"v{i} = {i}\n" for i in range(64)]
    source = "".join(lines)

    def produce(text):
        if "w0" in text:
            return []
        return [Finding("TV999", i + 1, 0, "made up",
                        Fix((Edit((i + 1, 0), (i + 1, 2 + len(str(i))),
                                  "(w" if i == 37 else f"w{i}"),), SAFE))
                for i in range(64)]

    builds = []
    build = fix_fixer.Round.build

    def counting(self, fixes):
        builds.append(len(fixes))
        return build(self, fixes)

    monkeypatch.setattr(fix_fixer.Round, "build", counting)
    result = fix_text(source, lambda t: _OneFix(t, produce))
    assert [d.finding.line for d in result.dropped] == [38]
    assert result.text.count("w") == 63
    assert len(builds) <= 4 * 6 + 2


# ---------------------------------------------------------------------------
# TV003: a fix that makes the accumulator a float also fixes its later uses


ACCUMULATOR = dedent("""
    import torch


    def train(model, loader, criterion):
        total = 0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            total += loss
        print(total.data[0], total.item())
""")


def test_accumulation_fix_rewrites_the_uses_a_float_would_break():
    out = fixed(ACCUMULATOR, ["TV003"], unsafe=True).text
    assert "        total += loss.item()\n" in out
    assert "    print(total, total)\n" in out  # not ``total.item()`` on a float


def test_safe_fixes_alone_keep_the_accumulator_a_tensor():
    out = fixed(ACCUMULATOR, ["TV003"], unsafe=False).text
    assert "        total += loss\n" in out
    assert "    print(total.item(), total.item())\n" in out


def test_accumulation_fix_is_withheld_when_a_use_needs_a_tensor():
    source = ACCUMULATOR.replace("print(total.data[0], total.item())", "print(total.cpu())")
    findings = [f for f in Analysis(source, ["TV003"]).findings if f.line == 9]
    assert len(findings) == 1 and findings[0].fix is None
    assert "used as a tensor" in findings[0].message
    assert fixed(source, ["TV003"], unsafe=True).text == source


RETURNED = ACCUMULATOR + "    return total\n"


def test_returned_accumulator_of_backpropagated_terms_is_reported():
    # the migration guide's example: each loss is backpropagated, the sum returned
    assert [f.line for f in Analysis(RETURNED, ["TV003"]).findings] == [9, 10]


def test_returned_accumulator_keeps_tensors_its_callers_may_read():
    # a caller's ``train(...).data[0]`` becomes ``.item()``: the sum stays a tensor,
    # without the graphs (sweep 23's MADDPG returned a list of losses so)
    out = fixed(RETURNED, ["TV003"], unsafe=True).text
    assert "        total += loss.detach()\n" in out
    assert "    print(total.item(), total.item())\n" in out
    listed = RETURNED.replace("total = 0", "total = []").replace(
        "total += loss", "total.append(loss)").replace(
        "print(total.data[0], total.item())", "print(len(total))")
    assert "        total.append(loss.detach())\n" in fixed(listed, ["TV003"], unsafe=True).text


def test_returned_accumulator_built_as_a_loss_is_not_reported():
    source = dedent("""
        import torch


        def total_loss(model, batches, criterion):
            total = 0
            for x, y in batches:
                total += criterion(model(x), y)
            return total
    """)
    assert Analysis(source, ["TV003"]).findings == []


@pytest.mark.parametrize("source", [
    # TensorFlow: no torch in the file
    "import tensorflow as tf\n\n\ndef run(sess, batches, op):\n    average_loss = 0\n"
    "    for b in batches:\n        batch_loss = sess.run(op, b)\n"
    "        average_loss += batch_loss\n    return average_loss / len(batches)\n",
    # scipy: ``rho = loss_function(f)`` is a 2-D array
    "import numpy as np\n\n\ndef fun(loss_function, f):\n    rho = loss_function(f)\n"
    "    return rho[0]\n",
    # scikit-learn style: a tuple
    "def fit(est, X):\n    loss_ = est.loss(X)\n    return loss_[0]\n",
    # pandas test
    "import pandas as pd\n\n\ndef test(s):\n    result = s.sum()\n    assert result[0] == 1\n",
], ids=["tensorflow", "scipy", "sklearn", "pandas"])
def test_tv003_needs_torch_in_the_file(source):
    assert Analysis(source, ["TV003"]).findings == []


def test_a_function_named_loss_function_is_a_loss_call_only_with_data():
    source = dedent("""
        import torch


        def test(model, loader, loss_function):
            test_loss = 0
            for data in loader:
                test_loss += loss_function(model(data), data).data[0]
                rho = loss_function(data)
                print(rho[0])
    """)
    assert [f.line for f in Analysis(source, ["TV003"]).findings] == [7]


# ---------------------------------------------------------------------------
# TV003: a per-sample loss is not a scalar (``.item()`` would raise)


PER_SAMPLE = dedent("""
    import torch
    import torch.nn as nn
    from torch.autograd import Variable


    class Weighted(nn.Module):
        def __init__(self):
            super(Weighted, self).__init__()
            self.criterion = nn.CrossEntropyLoss(reduce=False).cuda()

        def forward(self, out, y, w):
            per_sample = self.criterion(out, Variable(y))
            print(per_sample.data[0])
            return (per_sample * w).mean()


    criterion = nn.CrossEntropyLoss(reduce=False)


    def step(model, x, y, total):
        loss = criterion(model(Variable(x)), Variable(y))
        print(loss.data[0])
        mean = loss.mean()
        mean.backward()
        total += loss
        return mean.data[0], total
""")


PER_SAMPLE_FIXED = dedent("""
    import torch
    import torch.nn as nn


    class Weighted(nn.Module):
        def __init__(self):
            super(Weighted, self).__init__()
            self.criterion = nn.CrossEntropyLoss(reduce=False).cuda()

        def forward(self, out, y, w):
            per_sample = self.criterion(out, y)
            print(per_sample.data[0])
            return (per_sample * w).mean()


    criterion = nn.CrossEntropyLoss(reduce=False)


    def step(model, x, y, total):
        loss = criterion(model(x), y)
        print(loss.data[0])
        mean = loss.mean()
        mean.backward()
        total += loss
        return mean.item(), total
""")


def test_tv003_leaves_per_sample_losses_alone():
    # ``loss.data[0]`` is the first sample's loss on 2.13 too; ``loss.item()`` raises
    assert [f.line for f in Analysis(PER_SAMPLE, ["TV003"]).findings] == [26]
    assert fixed(PER_SAMPLE, ["TV001", "TV003"], unsafe=True).text == PER_SAMPLE_FIXED


# ---------------------------------------------------------------------------
# TV006: the rename never makes two keys of one container equal


def test_tv006_rename_that_would_make_two_keys_equal_gets_no_fix():
    source = dedent("""
        from collections import OrderedDict

        import torch.nn as nn

        net = nn.Sequential(OrderedDict([
            ('l.1', nn.Linear(2, 2)),
            ('l_1', nn.ReLU()),
            ('l.2', nn.Linear(2, 2)),
        ]))
    """)
    findings = Analysis(source, ["TV006"]).findings
    assert [(f.line, f.fix is None) for f in findings] == [(6, True), (8, False)]
    assert "`l_1` is another key" in findings[0].message
    out = fixed(source, ["TV006"], unsafe=True).text
    assert "('l.1', nn.Linear(2, 2))" in out and "('l_2', nn.Linear(2, 2))" in out


# ---------------------------------------------------------------------------
# TV004: suggestions that keep leaves leaves (RULES.md TV004)


def test_tv004_update_step_becomes_an_in_place_update_under_no_grad():
    source = dedent("""
        import torch


        def sgd(w, lr):
            w.data = w.data - lr * w.grad.data
            w.grad.data.zero_()
    """)
    findings = Analysis(source, ["TV004"]).findings
    assert "use `with torch.no_grad(): w -= lr * w.grad`" in findings[0].message
    out = fixed(source, ["TV004"], unsafe=True).text
    assert out == dedent("""
        import torch


        def sgd(w, lr):
            with torch.no_grad():
                w -= lr * w.grad
            w.grad.zero_()
    """)


def test_tv004_ema_over_zipped_parameters_suggests_copy_not_rebinding():
    source = dedent("""
        import torch


        def ema(model, ema_model, decay):
            for p, q in zip(model.parameters(), ema_model.parameters()):
                q.data = decay * q.data + (1 - decay) * p.data
    """)
    (finding,) = Analysis(source, ["TV004"]).findings
    assert "use `with torch.no_grad(): q.copy_(" in finding.message
    assert "use `q =" not in finding.message


def test_tv004_device_or_dtype_swap_does_not_suggest_copy():
    # ``copy_`` keeps the destination's device and dtype: it cannot stand for
    # ``x.data = x.data.cuda()`` (a 2018 text generator moved its input so)
    source = dedent("""
        import torch


        def move(model, inp, x, table):
            inp.data = inp.data.cuda()
            x.data = x.data.type(table)
            model.fc.weight.data = model.fc.weight.data.cpu()
            x.data = x.data.mul(0.5)
            model.fc.weight.grad.data = model.fc.weight.grad.data.cpu()
    """)
    findings = Analysis(source, ["TV004"]).findings
    messages = [f.message for f in findings]
    assert len(messages) == 5
    assert "use `inp = inp.cuda()` if `inp` needs no grad, else keep it" in messages[0]
    assert "use `x = x.type(table)` if `x` needs no grad" in messages[1]
    assert "keep it, or move its module with `.to(...)`" in messages[2]
    assert all("copy_(" not in m and len(m) < 160 for m in messages[:3])
    assert "use `with torch.no_grad(): x.copy_(x.mul(0.5))`" in messages[3]
    assert "keep it (an assigned `.grad` must match its parameter)" in messages[4]
    assert all(f.fix is None for f in findings)


def test_tv004_storage_swaps_suggest_set_not_copy():
    # ``g.data = p.grad.data`` shares ``p.grad``'s storage from then on, and
    # ``g.data = g.data.clone()`` gives ``g`` its own: ``copy_`` would copy the
    # values once (``g`` into itself), and later updates would reach other tensors
    source = dedent("""
        import torch


        def share(model, shared):
            for p, q in zip(model.parameters(), shared.parameters()):
                q.grad.data = p.grad.data
                p.grad.data = p.grad.data.clone()
                q.data = p.data.clone()
                q.data = p.data * 2
    """)
    messages = [f.message for f in Analysis(source, ["TV004"]).findings]
    assert messages[0].endswith("use `with torch.no_grad(): q.grad.set_(p.grad)`")
    assert messages[1].endswith("use `with torch.no_grad(): p.grad.set_(p.grad.clone())`")
    # (a copy of another tensor's values, or values computed: copied)
    assert messages[2].endswith("use `with torch.no_grad(): q.copy_(p.data.clone())` if the "
                                "new value has `q`'s shape, else keep it")
    assert messages[3].endswith("use `with torch.no_grad(): q.copy_(p.data * 2)` if the new "
                                "value has `q`'s shape, else keep it")


def test_tv125_message_spells_the_fix_with_its_dtype():
    # ``arange`` of integers gives int64 where ``range`` gave floats: the
    # message a user follows by hand names the dtype the fix writes
    source = dedent("""
        import torch
        from torch import range as trange

        a = torch.range(0, n - 1)
        b = trange(1, 5)
        c = torch.range(0, 1, 0.25)
    """)
    messages = [f.message for f in Analysis(source, ["TV125"]).findings]
    assert messages[0].endswith("use `torch.arange(0, n, dtype=torch.float)`")
    assert messages[1].endswith("use `torch.arange(1, 6, dtype=torch.float)`")
    assert messages[2].endswith("use `torch.arange(0, 1 + 0.25, 0.25)`")


def test_tv004_tuple_swap_suggests_copy_of_its_own_value():
    source = dedent("""
        import torch


        def load(m, w, b, pair):
            m.weight.data, m.bias.data = w, b
            m.weight.data, m.bias.data = pair
    """)
    messages = [f.message for f in Analysis(source, ["TV004"]).findings]
    assert messages[0].endswith("use `with torch.no_grad(): m.weight.copy_(w)` if the new "
                                "value has `m.weight`'s shape, else keep it")
    assert messages[1].endswith("use `with torch.no_grad(): m.weight.copy_(...)`")


def test_tv004_inplace_chain_keeps_every_link():
    # ``x.data[:, 0].sub_(m).div_(s)`` (input normalisation in a 2017 model zoo):
    # a suggestion of the first call alone would drop ``.div_(s)``
    source = dedent("""
        import torch


        def norm(x, mean, std, v, data):
            x.data[:, 0].sub_(mean[0]).div_(std[0])
            v.data.resize_(data.size()).copy_(data)
            y = x.data.add_(1).mul_(2)
            return y
    """)
    findings = Analysis(source, ["TV004"]).findings
    assert findings[0].message.endswith(
        "use `with torch.no_grad(): x[:, 0].sub_(mean[0]).div_(std[0])`")
    assert findings[1].message.endswith(
        "use `with torch.no_grad(): v.resize_(data.size()).copy_(data)`")
    assert findings[2].fix is None
    out = fixed(source, ["TV004"], unsafe=True).text
    # (two neighbouring statements: one block, see fix/blocks.py)
    assert ("    with torch.no_grad():\n        x[:, 0].sub_(mean[0]).div_(std[0])\n"
            "        v.resize_(data.size()).copy_(data)\n    y = ") in out
    assert "y = x.data.add_(1).mul_(2)" in out


def test_tv004_not_on_a_config_object_from_a_non_torch_call():
    source = dedent("""
        import torch
        from dataset import CN, Dataset


        def config():
            C = CN()
            C.data = Dataset.get_default_config()
            D = Dataset.get_default_config()
            D.data = 3
            return C, D
    """)
    assert Analysis(source, ["TV004"]).findings == []


def test_tv003_leaves_per_sample_losses_alone_with_reduction_none():
    """``reduction='none'`` (0.4.1's spelling) is per-sample too, also in a file
    that never writes ``reduce``."""
    source = PER_SAMPLE.replace("reduce=False", "reduction='none'")
    assert "reduce" not in source
    assert [f.line for f in Analysis(source, ["TV003"]).findings] == [26]
    assert fixed(source, ["TV001", "TV003"], unsafe=True).text == PER_SAMPLE_FIXED.replace(
        "reduce=False", "reduction='none'")


def test_tv119_makes_a_generator_a_list_comprehension():
    """A generator with its own parentheses gets brackets instead; one that shares
    the call's gets brackets inside them; 0-dim parts also get ``torch.stack``.
    Only the generator changes: what else the call passes is kept."""
    source = dedent("""
        import torch
        from torch.autograd import Variable


        def join(states, n):
            a = torch.cat((s for s in states), 0)
            b = torch.cat(s for s in states)
            v = Variable(torch.randn(n, 4))
            c = torch.cat(v[i, 0] for i in range(n))
            return a, b, c
    """)
    out = fixed(source, ["TV119"]).text
    assert "a = torch.cat([s for s in states], 0)\n" in out
    assert "b = torch.cat([s for s in states])\n" in out
    assert "c = torch.stack([v[i, 0] for i in range(n)])\n" in out
    assert fixed(out, ["TV119"]).text == out


def test_tv002_names_the_lines_that_use_the_variable():
    """"Run the code that uses `hx`" says where that code is: the lines after the
    ``Variable`` that read the name."""
    source = dedent("""
        import torch
        from torch.autograd import Variable


        def test(model, x, steps):
            hx = Variable(torch.zeros(1, 8), volatile=True)
            total = 0
            for t in range(steps):
                out, hx = model(Variable(x), hx)
                total += 1
            x.train()
            print(total, out)
    """)
    [finding] = Analysis(source, ["TV002"]).findings
    assert "run the code that uses `hx` (line 9) under `with torch.no_grad():`" in finding.message


# ---------------------------------------------------------------------------
# neighbouring statements the same round puts under ``no_grad``: one block


NEIGHBOURS = dedent("""
    import torch


    def step(params, buffers, lr):
        for p, v in zip(params, buffers):
            v.data.mul_(0.9)
            v.data.add_(p.grad.data)
            p.data.add_(-lr * v.data)
        {between}
        p.data.zero_()
""")


def _blocks(text):
    return sum(isinstance(n, ast.With) for n in ast.walk(ast.parse(text)))


def test_neighbouring_wraps_make_one_block():
    source = NEIGHBOURS.replace("{between}", "print(lr)")
    out = fixed(source, ["TV004"], unsafe=True).text
    assert ("        with torch.no_grad():\n            v.mul_(0.9)\n            v.add_(p.grad)\n"
            "            p.add_(-lr * v.data)\n    print(lr)\n") in out
    # the statement after ``print`` is not a neighbour: a block of its own
    assert out.endswith("    print(lr)\n    with torch.no_grad():\n        p.zero_()\n")
    assert _blocks(out) == 2


@pytest.mark.parametrize("between", ["        # a comment between\n", "\n"])
def test_a_comment_or_blank_line_keeps_blocks_apart(between):
    source = dedent("""
        import torch


        def step(p, v):
            v.data.mul_(0.9)
            p.data.add_(v.data)
    """).replace("    p.data", between + "    p.data")
    out = fixed(source, ["TV004"], unsafe=True).text
    assert out.endswith("    with torch.no_grad():\n        v.mul_(0.9)\n" + between
                        + "    with torch.no_grad():\n        p.add_(v.data)\n")
    assert _blocks(out) == 2


def test_statements_at_other_depths_are_not_joined():
    source = dedent("""
        import torch


        def step(p, v, use):
            v.data.mul_(0.9)
            if use:
                p.data.add_(v.data)
    """)
    out = fixed(source, ["TV004"], unsafe=True).text
    assert _blocks(out) == 2
    assert "    if use:\n        with torch.no_grad():\n            p.add_(v.data)\n" in out


def test_joined_blocks_keep_crlf():
    source = NEIGHBOURS.replace("{between}", "print(lr)").replace("\n", "\r\n")
    out = fixed(source, ["TV004"], unsafe=True).text
    assert "\n" not in out.replace("\r\n", "")
    assert _blocks(out) == 2
    assert ("with torch.no_grad():\r\n            v.mul_(0.9)\r\n"
            "            v.add_(p.grad)\r\n") in out


def test_a_rejected_join_falls_back_to_one_block_each():
    from flake8_torch04.fix.blocks import join_blocks
    from flake8_torch04.fix.fixer import fix_key

    source = NEIGHBOURS.replace("{between}", "print(lr)")
    chosen = [f for f in Analysis(source, ["TV004"]).findings if f.fix]
    joined = join_blocks(source, chosen, set(), fix_key)
    assert len({id(f.fix) for f in joined}) == 2  # three joined, the last alone
    rejected = {fix_key(joined[0])}
    again = join_blocks(source, chosen, rejected, fix_key)
    # the three-statement join was rejected: the first two (a join never
    # rejected) still make one, the third stands alone
    fixes = [id(f.fix) for f in again]
    assert [len(set(fixes[:2])), len(set(fixes))] == [1, 3]
    assert all(fix_key(f) not in rejected for f in again)


def test_tv144_meter_finding_does_not_depend_on_the_other_calls():
    """``meter.update(acc)`` is reported whatever the other calls of ``update``
    pass (a ``.data[0]`` that TV003 fixes to a number, or a tensor): the fixer
    saw TV144 appear once TV003's fix changed their join, and dropped TV003's
    fix (sweep 18 triplet, at a942291)."""
    source = dedent("""
        import torch
        from torch.autograd import Variable


        class Meter(object):
            def __init__(self):
                self.sum = 0

            def update(self, val, n=1):
                self.sum += val * n


        def run(out, other):
            losses = Meter()
            accs = Meter()
            loss = ((out - other) ** 2).mean()
            acc = (out.data > 0).sum() * 1.0 / out.size(0)
            losses.update(loss.data[0], 4)
            accs.update(acc, 4)
            return losses, accs


        run(Variable(torch.ones(4)), Variable(torch.zeros(4)))
    """)
    result = fixed(source, None, unsafe=True)
    assert not result.dropped, result.dropped
    assert "losses.update(loss.item(), 4)" in result.text
    assert "accs.update(acc.item(), 4)" in result.text
    # another call passing a tensor (a join that is a tensor, not unknown) does
    # not hide the number passed by the first
    mixed = source.replace("losses.update(loss.data[0], 4)", "accs.update(out.data, 4)")
    flagged = Analysis(mixed, ["TV144"]).findings
    assert [(f.line, f.message.split("`")[1]) for f in flagged] == [(19, "acc")]
