"""Fixes of TV003 (scalar extraction, accumulation) and TV004 (``.data`` in place).

(source, expected) tables: each fix is applied alone, so the tables pin the
rules' own edits; the fixed text must parse.
"""
import ast
import textwrap

import pytest

from flake8_torch04.analysis.findings import SAFE, UNSAFE
from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text
from flake8_torch04.fix.edits import apply_edits


def only_fix(source, code):
    findings = check_source(source, "t.py", [code])
    assert len(findings) == 1, findings
    return findings[0]


def fixed(source, code):
    finding = only_fix(source, code)
    assert finding.fix is not None, finding
    text = apply_edits(source, finding.fix.edits)
    ast.parse(text)
    return text, finding.fix


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


EXTRACTION = [
    ("loss.data[0]", "loss.item()"),
    ("loss.data.cpu().numpy()[0]", "loss.data.cpu().numpy().reshape(-1)[0]"),  # (numpy scalar)
    ("loss.cpu().data.numpy()[0]", "loss.cpu().data.numpy().reshape(-1)[0]"),
    ("loss.data.tolist()[0]", "loss.item()"),
    ("rpn_loss_cls.mean().data[0]", "rpn_loss_cls.mean().item()"),
    ("(-torch.log(loss)).data[0]", "(-torch.log(loss)).item()"),
    ("(loss_a + loss_b).data[0]", "(loss_a + loss_b).item()"),
    ("criterion(out, y).data[0]", "criterion(out, y).item()"),
    # half-migrated code: the ``.item()`` already there is the one the fix makes
    ("loss.data[0].item()", "loss.item()"),
    ("loss.data[0].item", "loss.item().item"),
]


@pytest.mark.parametrize("before, after", EXTRACTION)
def test_extraction_fix(before, after):
    source = f"import torch\nprint({before})\n"
    text, fix = fixed(source, "TV003")
    assert text == f"import torch\nprint({after})\n"
    assert fix.safety == SAFE


def test_extraction_fix_dropping_a_comment_is_unsafe():
    source = "print(loss.data[  # note\n    0])\n"
    text, fix = fixed(source, "TV003")
    assert text == "print(loss.item())\n"
    assert fix.safety == UNSAFE


def test_extraction_message_quotes_code_and_fix():
    finding = only_fix("x = errD.data.tolist()[0]\n", "TV003")
    assert finding.message.startswith("`errD.data.tolist()[0]` raises TypeError")
    assert finding.message.endswith("use `errD.item()`")
    assert (finding.line, finding.col) == (1, 4)


BACKPROPAGATED = dedent("""
    import torch


    def train(model, batches, normalize, opt):
        total = 0
        for x in batches:
            l = model(x)
            l = l.sum()[0] / normalize
            total += l.data[0]
            l.backward()
        return total
""")


def test_extraction_of_a_value_backpropagated_later_keeps_the_tensor():
    """Seen on real code: ``.item()`` there gave a float with nothing to backpropagate."""
    findings = check_source(BACKPROPAGATED, "t.py", ["TV003"])
    text = apply_edits(BACKPROPAGATED, [e for f in findings for e in f.fix.edits])
    assert "l = l.sum() / normalize\n" in text
    assert "total += l.item()\n" in text
    assert all(f.fix.safety == SAFE for f in findings)
    assert "`l` is backpropagated later" in findings[0].message
    # read as a number only: ``.item()`` stays right
    printed = BACKPROPAGATED.replace("l.backward()", "print(l)")
    text, _ = fixed(printed.replace("        total += l.data[0]\n", ""), "TV003")
    assert "l = l.sum().item() / normalize\n" in text


ACCUMULATION = [
    ("total += loss", "total += loss.item()"),
    ("total = total + loss", "total = total + loss.item()"),
    ("losses.append(loss)", "losses.append(loss.item())"),
    ("total += loss * x.size(0)", "total += loss.item() * x.size(0)"),
    ("total += criterion(out, y)", "total += criterion(out, y).item()"),
]


@pytest.mark.parametrize("before, after", ACCUMULATION)
def test_accumulation_fix(before, after):
    template = dedent("""
        import torch


        def train(loader, criterion, model):
            total, losses = 0, []
            for x, y in loader:
                out = model(x)
                loss = criterion(out, y)
                {}
            print(total, losses)
    """)
    text, fix = fixed(template.format(before), "TV003")
    assert text == template.format(after)
    assert fix.safety == UNSAFE
    finding = only_fix(template.format(before), "TV003")
    assert f"use `{after}`" in finding.message


def test_a_mean_of_the_accumulator_is_a_number_with_it():
    """``mean = total / n`` holds a float once ``total`` does: the accumulation's fix
    reads its ``.data[0]`` as the number itself (with the extraction's ``.item()``
    it would fail on a float); a divisor that may be a tensor leaves no fix."""
    template = dedent("""
        import torch


        def train(loader, criterion, model, n, scale):
            total = 0
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward()
                total += loss
                if i % n == 0:
                    mean = total / {}
                    print(mean.data[0])
                    total = 0
    """)
    findings = check_source(template.format("len(loader)"), "t.py", ["TV003"])
    accumulation = next(f for f in findings if "graph alive" in f.message)
    text = apply_edits(template.format("len(loader)"), accumulation.fix.edits)
    assert "total += loss.item()" in text and "print(mean)" in text
    findings = check_source(template.format("scale"), "t.py", ["TV003"])
    accumulation = next(f for f in findings if "graph alive" in f.message)
    assert accumulation.fix is None and "no automatic fix" in accumulation.message


def test_torch_nn_init_fix_uses_the_files_binding():
    cases = {
        "import torch.nn as nn\n": "nn.init.normal_(m.weight, 0, 0.02)",
        "from torch.nn import init\n": "init.normal_(m.weight, 0, 0.02)",
        "import torch as th\n": "th.nn.init.normal_(m.weight, 0, 0.02)",
        "import torch.nn.init as weight_init\n": "weight_init.normal_(m.weight, 0, 0.02)",
    }
    for header, call in cases.items():
        source = header + "def f(m):\n    m.weight.data.normal_(0, 0.02)\n"
        text, fix = fixed(source, "TV004")
        assert text == header + f"def f(m):\n    {call}\n"
        assert fix.safety == UNSAFE and fix.imports == ()


def test_torch_nn_init_fix_without_an_import_asks_for_torch():
    source = "def f(m):\n    m.bias.data.zero_()\n"
    text, fix = fixed(source, "TV004")
    assert text == "def f(m):\n    torch.nn.init.zeros_(m.bias)\n"
    assert fix.imports == ("torch",)


@pytest.mark.parametrize("before, after", [
    ("m.bias.data.fill_(0)", "nn.init.zeros_(m.bias)"),
    ("m.weight.data.fill_(1)", "nn.init.ones_(m.weight)"),
    ("m.weight.data.fill_(0.5)", "nn.init.constant_(m.weight, 0.5)"),
    ("m.weight.data.uniform_(-r, r)", "nn.init.uniform_(m.weight, -r, r)"),
])
def test_init_method_names(before, after):
    source = f"import torch.nn as nn\n{before}\n"
    text, _ = fixed(source, "TV004")
    assert text == f"import torch.nn as nn\n{after}\n"


def test_grad_zero_is_safe():
    text, fix = fixed("p.grad.data.zero_()\n", "TV004")
    assert text == "p.grad.zero_()\n"
    assert fix.safety == SAFE


def test_init_function_of_data_is_safe_and_renamed():
    source = "from torch.nn import init\ninit.xavier_uniform(m.weight.data)\n"
    text, fix = fixed(source, "TV004")
    assert text == "from torch.nn import init\ninit.xavier_uniform_(m.weight)\n"
    assert fix.safety == SAFE


def test_init_function_imported_by_name_keeps_its_name():
    source = "from torch.nn.init import xavier_uniform\nxavier_uniform(m.weight.data, 1.0)\n"
    text, _ = fixed(source, "TV004")
    assert text == "from torch.nn.init import xavier_uniform\nxavier_uniform(m.weight, 1.0)\n"


def test_optimizer_step_goes_under_no_grad():
    source = dedent("""
        import torch
        for p in model.parameters():
            p.data.add_(-lr, p.grad.data)
    """)
    text, fix = fixed(source, "TV004")
    assert text == dedent("""
        import torch
        for p in model.parameters():
            with torch.no_grad():
                p.add_(p.grad, alpha=-lr)
    """)
    assert fix.safety == UNSAFE and fix.imports == ()


def test_no_grad_rewrite_keeps_two_space_indentation_and_continuation_lines():
    source = dedent("""
        import torch as th
        def step(w, lr):
          if w.grad is not None:
            w.data -= (lr *
                       w.grad.data)  # update
    """)
    text, _ = fixed(source, "TV004")
    assert text == dedent("""
        import torch as th
        def step(w, lr):
          if w.grad is not None:
            with th.no_grad():
              w -= (lr *
                         w.grad)  # update
    """)


def test_no_grad_rewrite_of_an_indexed_store_and_addcdiv():
    source = "import torch\nw.data[0] = 0.0\np.data.addcdiv_(-s, a, b)\n"
    findings = check_source(source, "t.py", ["TV004"])
    texts = [apply_edits(source, f.fix.edits) for f in findings]
    assert texts == [
        "import torch\nwith torch.no_grad():\n    w[0] = 0.0\np.data.addcdiv_(-s, a, b)\n",
        "import torch\nw.data[0] = 0.0\nwith torch.no_grad():\n    p.addcdiv_(a, b, value=-s)\n",
    ]


def test_no_grad_region_only_drops_data():
    source = dedent("""
        import torch
        with torch.no_grad():
            for p in params:
                p.data.sub_(lr * p.grad.data)
    """)
    text, _ = fixed(source, "TV004")
    assert "        p.sub_(lr * p.grad)\n" in text
    assert text.count("no_grad") == 1


@pytest.mark.parametrize("source", [
    "import torch\nif cond: p.data.add_(1)\n",
    "import torch\nx = 1; p.data.add_(1)\n",
    "import torch\np.data.add_(1); x = 1\n",
    "import torch\ny = p.data.add_(1)\n",
    "import torch\ny = m.weight.data.normal_().fmod_(2)\n",
    "import torch\np.data.copy_(f('''a\nb'''))\n",
    "import torch\nm.weight.data = w\n",
])
def test_no_fix_where_no_statement_can_be_wrapped(source):
    finding = only_fix(source, "TV004")
    assert finding.fix is None
    assert "use `" in finding.message


def test_a_chain_of_inplace_methods_that_is_the_statement_is_wrapped_whole():
    # (it used to get no fix: the flagged call was not the whole statement)
    finding = only_fix("import torch\nm.weight.data.normal_().fmod_(2)\n", "TV004")
    assert finding.message.endswith("use `with torch.no_grad(): m.weight.normal_().fmod_(2)`")
    text = apply_edits("import torch\nm.weight.data.normal_().fmod_(2)\n", finding.fix.edits)
    assert text == "import torch\nwith torch.no_grad():\n    m.weight.normal_().fmod_(2)\n"


def test_no_grad_region_keeps_the_overload_rewrite():
    source = dedent("""
        import torch
        @torch.no_grad()
        def step(params, lr):
            for p in params:
                p.data.add_(-lr, p.grad.data)
    """)
    finding = only_fix(source, "TV004")
    assert finding.message.endswith("use `p.add_(p.grad, alpha=-lr)`")
    text = apply_edits(source, finding.fix.edits)
    assert "        p.add_(p.grad, alpha=-lr)\n" in text


def test_no_grad_rewrite_without_a_torch_binding_asks_for_the_import():
    source = "def step(p):\n    p.data.clamp_(-1, 1)\n"
    text, fix = fixed(source, "TV004")
    assert text == "def step(p):\n    with torch.no_grad():\n        p.clamp_(-1, 1)\n"
    assert fix.imports == ("torch",)


def test_an_element_read_through_data_gets_one_item_where_it_is_read():
    """``first = f(a).data[0]`` (an element of a 1-D tensor, a number on 0.3) then
    ``print(first)``: ``.item()`` goes where the element is read, once; the print
    gets no second one (``first.item()`` of a float raises AttributeError)."""
    source = dedent("""
        import torch
        from torch.autograd import Variable


        def firsts(x):
            return (x ** 2).sum(1)


        first = firsts(Variable(torch.ones(4, 3))).data[0]
        total = 0
        total += first
        print(first)
    """)
    result = fix_text(source, lambda t: Analysis(t, ["TV144"]), False)
    assert result.text.count(".item()") == 1, result.text
    assert "firsts(Variable(torch.ones(4, 3))).data[0].item()" in result.text
