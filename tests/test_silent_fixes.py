"""Fixes of TV002's ``volatile=True`` (``@torch.no_grad()``), TV141 and TV142:
exact (source, expected) tables run through the fixer, and no-op tables.

Every row is also checked to parse and to be a fixpoint.  TV002 rows run with
TV001 too, as ``torch04 check --fix --unsafe-fixes`` does: the two fixes of
``Variable(x, volatile=True)`` must combine into correct code.
"""
import ast
import textwrap

import pytest

from flake8_torch04.analysis.findings import SAFE, UNSAFE
from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


def fixed(source, codes, unsafe=True):
    result = fix_text(source, lambda text: Analysis(text, codes), unsafe)
    ast.parse(result.text)
    again = fix_text(result.text, lambda text: Analysis(text, codes), unsafe)
    assert again.text == result.text and not again.fixed, "not a fixpoint"
    return result


# ---------------------------------------------------------------------------
# TV002: volatile=True -> @torch.no_grad() on a function that only reads

NO_GRAD_FIXES = [
    pytest.param(
        """
        import torch
        from torch.autograd import Variable


        def evaluate(model, x):
            out = model(Variable(x, volatile=True))
            return out.data.sum()
        """,
        """
        import torch


        @torch.no_grad()
        def evaluate(model, x):
            out = model(x)
            return out.data.sum()
        """,
        id="call-argument",
    ),
    pytest.param(
        """
        import torch
        import torch.nn.functional as F
        from torch.autograd import Variable


        def test(model, loader):
            model.eval()
            correct = 0
            for data, target in loader:
                data, target = Variable(data, volatile=True), Variable(target, volatile=True)
                output = model(data)
                pred = output.data.max(1, keepdim=True)[1]
                correct += pred.eq(target.data.view_as(pred)).sum()
            return correct
        """,
        """
        import torch
        import torch.nn.functional as F


        @torch.no_grad()
        def test(model, loader):
            model.eval()
            correct = 0
            for data, target in loader:
                output = model(data)
                pred = output.data.max(1, keepdim=True)[1]
                correct += pred.eq(target.data.view_as(pred)).sum()
            return correct
        """,
        id="two-keywords-one-decorator-then-tv001",
    ),
    pytest.param(
        """
        from torch.autograd import Variable


        def predict(net, images):
            inputs = Variable(images.cuda(), volatile=True)
            return net(inputs).data.max(1)[1]
        """,
        """
        import torch


        @torch.no_grad()
        def predict(net, images):
            inputs = images.cuda()
            return net(inputs).data.max(1)[1]
        """,
        id="adds-import-torch",
    ),
    pytest.param(
        """
        import torch as th
        from torch.autograd import Variable


        class Evaluator:
            @staticmethod
            def score(model, batch):
                x = Variable(batch, requires_grad=False, volatile=True)
                return model(x).mean()
        """,
        """
        import torch as th
        import torch


        class Evaluator:
            @staticmethod
            @torch.no_grad()
            def score(model, batch):
                x = batch
                return model(x).mean()
        """,
        id="method-innermost-decorator",
    ),
    pytest.param(
        """
        import torch
        from torch.autograd import Variable


        @torch.no_grad()
        def score(model, batch):
            return model(Variable(batch, volatile=True))
        """,
        """
        import torch


        @torch.no_grad()
        def score(model, batch):
            return model(batch)
        """,
        id="already-no-grad",
    ),
]


NO_GRAD_FIXES.append(pytest.param(
    """
    import torch
    from torch.autograd import Variable


    def test(net, loader):
        global best_loss
        test_loss = 0
        for inputs in loader:
            inputs = Variable(inputs, volatile=True)
            test_loss += net(inputs).sum().item()
        if test_loss < best_loss:
            best_loss = test_loss
            torch.save(net.state_dict(), 'ckpt.pth')
    """,
    """
    import torch


    @torch.no_grad()
    def test(net, loader):
        global best_loss
        test_loss = 0
        for inputs in loader:
            test_loss += net(inputs).sum().item()
        if test_loss < best_loss:
            best_loss = test_loss
            torch.save(net.state_dict(), 'ckpt.pth')
    """,
    id="a-global-that-is-not-the-variable",
))


@pytest.mark.parametrize("source, expected", NO_GRAD_FIXES)
def test_no_grad_fix(source, expected):
    result = fixed(dedent(source), ["TV001", "TV002"])
    assert result.text == dedent(expected)


def test_already_no_grad_is_a_safe_fix():
    source = dedent("""
        import torch
        from torch.autograd import Variable


        @torch.no_grad()
        def score(model, batch):
            return model(Variable(batch, volatile=True))
    """)
    result = fixed(source, ["TV002"], unsafe=False)
    assert "Variable(batch)" in result.text


NO_GRAD_NOOPS = [
    pytest.param("x = Variable(t, volatile=True)\nprint(model(x))\n", id="module-level"),
    pytest.param(
        """
        def train(model, x, optimizer):
            out = model(Variable(x, volatile=True))
            out.sum().backward()
            optimizer.step()
        """,
        id="backward-and-step",
    ),
    pytest.param(
        """
        def evaluate(model, x, scheduler):
            out = model(Variable(x, volatile=True))
            scheduler.step()
            return out
        """,
        id="a-step",
    ),
    pytest.param(
        """
        def wrap(x):
            return Variable(x, volatile=True)
        """,
        id="returned",
    ),
    pytest.param(
        """
        def wrap(x):
            v = Variable(x, volatile=True).cuda()
            return v
        """,
        id="returned-through-a-name",
    ),
    pytest.param(
        """
        class SSD:
            def __init__(self, priors):
                self.priors = Variable(priors, volatile=True)
        """,
        id="stored-on-self",
    ),
    pytest.param(
        """
        def run_epoch(model, x):
            out = model(Variable(x, volatile=True))
            train_epoch(model)
            return out
        """,
        id="calls-a-trainer-by-name",
    ),
    pytest.param(
        """
        def fit(model, x, opt):
            out = model(x)
            out.backward()


        def main(model, x):
            print(model(Variable(x, volatile=True)))
            fit(model, x, None)
        """,
        id="calls-a-function-of-the-file-that-trains",
    ),
    pytest.param(
        """
        def sample(model, x):
            w = torch.zeros(3, requires_grad=True)
            return model(Variable(x, volatile=True)) * w
        """,
        id="wants-a-graph",
    ),
    pytest.param(
        """
        def evaluate(model, x):
            out = model(Variable(x, volatile=True))  # noqa: TV002
            return out
        """,
        id="noqa",
    ),
    pytest.param(
        """
        def evaluate(model, x):
            out = model(Variable(x,  # keep
                                 volatile=True))
            return out
        """,
        id="comment-in-the-edit",
    ),
    pytest.param(
        """
        evaluate = lambda model, x: model(Variable(x, volatile=True))
        """,
        id="lambda",
    ),
    pytest.param(
        """
        def keep(x):
            global last
            last = Variable(x, volatile=True)
        """,
        id="global",
    ),
    pytest.param(
        """
        async def evaluate(model, x):
            return model(Variable(x, volatile=True)).sum()
        """,
        id="async-def",
    ),
    pytest.param(
        """
        def batches(model, xs):
            for x in xs:
                yield Variable(x, volatile=True)
        """,
        id="yielded",
    ),
    pytest.param(
        """
        def act(agent, x):
            agent.eval()
            out = agent.policy(Variable(x, volatile=True))
            agent.train()
            return out
        """,
        id="train-of-an-object-not-known-to-be-a-module",
    ),
    pytest.param(
        """
        class Agent:
            def __init__(self):
                self.model = torch.nn.Linear(3, 1)

            def act(self, x):
                out = self.model(Variable(x, volatile=True))
                self.model.train()
                return out
        """,
        id="train-without-eval",
    ),
]


@pytest.mark.parametrize("source", NO_GRAD_NOOPS)
def test_no_grad_noop(source):
    text = "import torch\nfrom torch.autograd import Variable\n" + dedent(source)
    result = fix_text(text, lambda t: Analysis(t, ["TV002"]), True)
    assert result.text == text


def test_messages_say_where_no_grad_goes():
    source = dedent("""
        import torch
        from torch.autograd import Variable


        def evaluate(model, x):
            return model(Variable(x, volatile=True)).sum()


        def train(model, x):
            inputs = Variable(x, volatile=True)
            model(inputs).sum().backward()
    """)
    first, second = check_source(source, codes=["TV002"])
    assert first.message.endswith("decorate `evaluate()` with `@torch.no_grad()`")
    assert second.message.endswith(
        "run the code that uses `inputs` (line 11) under `with torch.no_grad():`")
    assert second.fix is None


def test_messages_name_the_evaluation_loop():
    """A loop that neither trains nor makes a ``Variable`` that is not volatile
    (a script's top-level evaluation, or one inside a training function) is
    named by its line; a loop that trains, or also makes the inputs of a later
    backward pass (a DQN's target-network step), is not."""
    source = dedent("""
        import torch
        from torch.autograd import Variable

        for epoch in range(2):
            for x, y in loader:
                x = Variable(x)
                out = model(Variable(x, volatile=True))
                crit(model(x), y).backward()
            for x, y in test_loader:
                x = Variable(x, volatile=True)
                correct += (model(x).max(1)[1] == y).sum()
        for s in batch:
            q = model(Variable(s))
            t = target(Variable(s, volatile=True))
        (q - t).pow(2).sum().backward()
        while running:
            out = model(Variable(z, volatile=True))
        out = model(Variable(z, volatile=True))
    """)
    in_training, evaluation, dqn, in_while, alone = check_source(source, codes=["TV002"])
    computed = ("run this statement, which computes `{0}`, and the code that uses `{0}`{1} "
                "under `with torch.no_grad():`")
    assert in_training.message.endswith(computed.format("out", ""))
    assert evaluation.message.endswith("run the `for` loop of line 9 under `with torch.no_grad():`")
    assert dqn.message.endswith(computed.format("t", " (line 15)"))
    assert in_while.message.endswith(
        "run the `while` loop of line 16 under `with torch.no_grad():`")
    assert alone.message.endswith(computed.format("out", ""))


# ---------------------------------------------------------------------------
# TV002 in a file without torch: no fix; flagged only with evidence on the object


def test_no_fix_without_torch_or_variable():
    source = "def to_numpy(var):\n    if var.volatile:\n        return var.data.numpy()\n"
    (finding,) = check_source(source, codes=["TV002"])
    assert finding.fix is None


def test_backward_without_torch_import_flags_but_does_not_fix():
    source = "def step(loss, x):\n    loss.backward()\n    return x.volatile\n"
    (finding,) = check_source(source, codes=["TV002"])
    assert finding.fix is None


@pytest.mark.parametrize("source", [
    "def f(self, eval_ctx):\n    if eval_ctx.volatile:\n        return self.data\n",
    "class E:\n    def __init__(self):\n        self.volatile = False\n        self.x = y.data\n",
    "def g(frame, node):\n    return frame.eval_ctx.volatile or node.data\n",
])
def test_other_objects_data_is_not_evidence(source):
    assert check_source(source, codes=["TV002"]) == []


# ---------------------------------------------------------------------------
# TV141 and TV142


TV141_FIXES = [
    ("self.priors.type(type(x.data))", "self.priors.type_as(x.data)"),
    ("p.type( type(x.data) )", "p.type_as( x.data )"),
    ("(a + b).type(type(x.data))", "(a + b).type_as(x.data)"),
    ("type(x.data)(3, 4)", "x.data.new(3, 4)"),
    ("type(x.data.cpu())(n).zero_()", "x.data.cpu().new(n).zero_()"),
    ("type(torch.zeros(2).double())([1, 2])", "torch.zeros(2).double().new([1, 2])"),
    ("type(x.data)()", "x.data.new()"),
]


@pytest.mark.parametrize("before, after", TV141_FIXES)
def test_tv141_fix(before, after):
    head = "import torch\n"
    result = fixed(f"{head}def f(x, p, a, b, n):\n    return {before}\n", ["TV141"], False)
    assert result.text == f"{head}def f(x, p, a, b, n):\n    return {after}\n"


@pytest.mark.parametrize("source", [
    "y = x.type(type(out))\n",  # no evidence that out was a tensor under 0.3
    "y = type(self.data)(3)\n",
    "y = x.type(\n    type(x.data),  # keep\n)\n",
    "y = type(x.data)(3, device=d)\n",
    "y = x.type(type(x.data), non_blocking=True)\n",
])
def test_tv141_noop(source):
    text = "import torch\n" + source
    assert fix_text(text, lambda t: Analysis(t, ["TV141"]), True).text == text


TV142_FIXES = [
    ("idx = m.nonzero()\nif idx.dim() == 0:\n    pass\n",
     "idx = m.nonzero()\nif idx.numel() == 0:\n    pass\n"),
    ("s = x[x > 0]\nok = not s.dim()\n", "s = x[x > 0]\nok = not s.numel()\n"),
    ("s = torch.masked_select(x, m).view(-1, 5)\nif s.dim():\n    pass\n",
     "s = torch.masked_select(x, m).view(-1, 5)\nif s.numel():\n    pass\n"),
    ("if x.nonzero() . dim() == 0:\n    pass\n", "if x.nonzero() . numel() == 0:\n    pass\n"),
]


@pytest.mark.parametrize("before, after", TV142_FIXES)
def test_tv142_fix(before, after):
    head = "import torch\n"
    assert fixed(head + before, ["TV142"], False).text == head + after


@pytest.mark.parametrize("source", [
    "if x.dim() == 0:\n    x = x.unsqueeze(0)\n",
    "idx = m.nonzero()\nif idx.dim() == 2:\n    pass\n",
    "idx = m.nonzero()\nn = idx.dim()\n",
])
def test_tv142_noop(source):
    text = "import torch\n" + source
    assert fix_text(text, lambda t: Analysis(t, ["TV142"]), True).text == text


def test_volatile_not_flag_message_has_no_double_negation():
    source = ("from torch.autograd import Variable\n"
              "def as_tensor(x, for_training):\n"
              "    return Variable(x, volatile=not for_training)\n")
    (finding,) = check_source(source, codes=["TV002"])
    assert finding.message.endswith(
        "where `for_training` is false, run the code that uses what `as_tensor()` returns "
        "under `with torch.no_grad():`")
    assert finding.fix is None
    source = source.replace("return Variable(x, volatile=not for_training)",
                            "print(Variable(x, volatile=not for_training))")
    (finding,) = check_source(source, codes=["TV002"])
    assert "set_grad_enabled(for_training)" in finding.message


# ---------------------------------------------------------------------------
# TV143 and TV144: values that were integers / numbers in 0.3 (followed values)

HEAD_03 = "import torch\nfrom torch.autograd import Variable\n\n\n"


@pytest.mark.parametrize("code, before, after", [
    ("TV143", "def f(out):\n    _, pred = torch.max(out.data, 1)\n    return pred / 2\n",
     "def f(out):\n    _, pred = torch.max(out.data, 1)\n"
     "    return torch.div(pred, 2, rounding_mode='trunc')\n"),
    ("TV143", "def f():\n    idx = torch.LongTensor([7, -7])\n    idx /= 2\n    return idx\n",
     "def f():\n    idx = torch.LongTensor([7, -7])\n    idx.div_(2, rounding_mode='trunc')\n"
     "    return idx\n"),
    ("TV144", "def f(out, y):\n    c = 0\n    _, p = torch.max(out.data, 1)\n"
     "    c += p.eq(y).sum()\n    print('%d' % c)\n",
     "def f(out, y):\n    c = 0\n    _, p = torch.max(out.data, 1)\n"
     "    c += p.eq(y).sum().item()\n    print('%d' % c)\n"),
    # arithmetic with Python numbers: 0.3 did it on the number, in double precision
    ("TV144", "def f(out):\n    print(out.data.max() + 1)\n",
     "def f(out):\n    print(out.data.max().item() + 1)\n"),
    ("TV144", "def f(ps):\n    total = 0\n    for p in ps:\n        n = p.grad.data.norm()\n"
     "        total += n ** 2\n    return total ** 0.5\n",
     "def f(ps):\n    total = 0\n    for p in ps:\n        n = p.grad.data.norm()\n"
     "        total += n.item() ** 2\n    return total ** 0.5\n"),
    ("TV144", "def f(ps, k):\n    t = 0\n    t += 2 * ps.data.sum() / 3\n    return t\n",
     "def f(ps, k):\n    t = 0\n    t += 2 * ps.data.sum().item() / 3\n    return t\n"),
    # ... and with each other (each a number on 0.3: ``lam * a.sum() + (1 - lam) *
    # b.sum()`` in mixup), not with a value of unknown kind
    ("TV144", "def f(a, k):\n    t = 0\n    t += a.data.sum() * a.data.max()\n"
     "    t += a.data.sum() * k\n    return t\n",
     "def f(a, k):\n    t = 0\n    t += a.data.sum().item() * a.data.max().item()\n"
     "    t += a.data.sum() * k\n    return t\n"),
    # the variable of a loop over a 1-D 0.3 tensor (a row of a 2-D one): a number on 0.3
    ("TV144", "def f():\n    for r in torch.LongTensor([[4, 5]]):\n        for w in r:\n"
     "            print(w, str(w))\n",
     "def f():\n    for r in torch.LongTensor([[4, 5]]):\n        for w in r:\n"
     "            print(w.item(), str(w.item()))\n"),
    # a (N, 1) column of samples written into a 1-D slice: its N elements, in order
    ("TV148", "def f(p):\n    s = torch.zeros(4, 6).long()\n    for i in range(6):\n"
     "        s[:, i] = torch.multinomial(torch.rand(4, 3), 1) + 1\n"
     "        s[:, i].copy_(torch.rand(4, 3).multinomial(1))\n    return s\n",
     "def f(p):\n    s = torch.zeros(4, 6).long()\n    for i in range(6):\n"
     "        s[:, i] = (torch.multinomial(torch.rand(4, 3), 1) + 1).view(-1)\n"
     "        s[:, i].copy_(torch.rand(4, 3).multinomial(1).view(-1))\n    return s\n"),
])
def test_value_fixes(code, before, after):
    result = fixed(HEAD_03 + before, [code], unsafe=False)
    assert result.text == HEAD_03 + after


@pytest.mark.parametrize("code, source", [
    # a divisor whose type is unknown: only an unsafe fix
    ("TV143", "def f(n):\n    idx = torch.LongTensor([7])\n    return idx / n\n"),
    # an accumulator also used as a tensor: only an unsafe fix
    ("TV144", "def f(out, y):\n    c = 0\n    c += out.data.eq(y).sum()\n    return c.cpu()\n"),
])
def test_value_fixes_that_are_not_safe(code, source):
    assert fixed(HEAD_03 + source, [code], unsafe=False).text == HEAD_03 + source
    assert fixed(HEAD_03 + source, [code], unsafe=True).text != HEAD_03 + source


def test_a_string_key_of_a_loop_element_is_fixed_once_by_both_rules():
    """TV107 (the key, unsafe) and TV144 (``str()``, safe) make the same edit."""
    source = HEAD_03 + ("i2w = {'4': 'the'}\nfor row in torch.LongTensor([[4]]):\n"
                        "    for w in row:\n        print(i2w[str(w)])\n")
    found = sorted(f.code for f in check_source(source, codes=["TV107", "TV144"]))
    assert found == ["TV107", "TV144"]
    expected = source.replace("str(w)", "str(w.item())")
    assert fixed(source, ["TV107", "TV144"], unsafe=True).text == expected
    assert fixed(source, ["TV107"], unsafe=True).text == expected
    assert fixed(source, ["TV107"], unsafe=False).text == source


def test_a_value_of_higher_rank_that_is_no_column_gets_advice_only():
    source = HEAD_03 + ("def f():\n    d = torch.zeros(4, 3)\n"
                        "    d[:, 1].copy_(torch.randn(1, 4))\n    return d\n")
    (finding,) = check_source(source, codes=["TV148"])
    assert finding.fix is None
    assert "`torch.randn(1, 4).view_as(d[:, 1])`" in finding.message
    assert "RuntimeError" in finding.message


def test_value_rules_say_nothing_in_modern_code():
    source = ("import torch\n\n\ndef f(out, y):\n    c = 0\n    _, p = torch.max(out, 1)\n"
              "    c += p.eq(y).sum()\n    return p / 2, c\n")
    assert check_source(source, codes=["TV143", "TV144"]) == []
    source = ("import torch\n\n\ndef f():\n    for w in torch.tensor([4, 5]):\n"
              "        print(w, str(w))\n")
    assert check_source(source, codes=["TV144"]) == []
    source = ("import torch\n\n\ndef f():\n    s = torch.zeros(4, 6, dtype=torch.long)\n"
              "    s[:, 0] = torch.multinomial(torch.rand(4, 3), 1)\n    return s\n")
    assert check_source(source, codes=["TV148"]) == []


# ---------------------------------------------------------------------------
# TV152: torch.arange of integers, 0.3's FloatTensor


def test_integer_arange_gets_the_float_of_0_3():
    before = ("def f(probs, items):\n    s = torch.arange(1, len(items) + 1)\n"
              "    return torch.dot(s, probs)\n")
    result = fixed(HEAD_03 + before, ["TV152"], unsafe=False)
    assert result.text == HEAD_03 + before.replace("+ 1)", "+ 1, dtype=torch.float)")
    (finding,) = check_source(HEAD_03 + before, codes=["TV152"])
    assert finding.fix.safety == SAFE
    assert "`torch.arange(1, len(items) + 1, dtype=torch.float)`" in finding.message
    assert "gave a FloatTensor on PyTorch 0.3" in finding.message


def test_integer_arange_after_a_change_of_the_default_type_gets_the_default():
    source = HEAD_03 + ("torch.set_default_tensor_type('torch.DoubleTensor')\n"
                        "s = torch.arange(5)\nprint(torch.dot(s, torch.rand(5)))\n")
    (finding,) = check_source(source, codes=["TV152"])
    assert "`torch.arange(5, dtype=torch.get_default_dtype())`" in finding.message
    assert "`set_default_tensor_type` changes the default type" in finding.message
    assert fixed(source, ["TV152"], unsafe=False).text == source.replace(
        "arange(5)", "arange(5, dtype=torch.get_default_dtype())")


def test_integer_arange_in_a_file_only_its_project_calls_0_3_is_left_alone(tmp_path):
    """Its fix changes what code written for 0.4 computes: the file itself must
    be 0.3 code (torch's own sources mix both)."""
    (tmp_path / "model.py").write_text("from torch.autograd import Variable\n")
    path = tmp_path / "score.py"
    path.write_text("import torch\n\nprint(torch.dot(torch.arange(3), torch.rand(3)))\n")
    assert check_source(path.read_text(), str(path), ["TV152"]) == []
    path.write_text("import torch\nfrom torch.autograd import Variable\n\n"
                    "print(torch.dot(torch.arange(3), torch.rand(3)))\n")
    (finding,) = check_source(path.read_text(), str(path), ["TV152"])
    assert finding.fix.safety == SAFE


# ---------------------------------------------------------------------------
# TV149: Python 2's ``/`` of two ints given to torch as a size: ``//``

HEAD_NN = "import torch\nimport torch.nn as nn\n\n\n"


@pytest.mark.parametrize("before, after", [
    ("a = nn.Linear(8, 8/2)\n", "a = nn.Linear(8, 8//2)\n"),
    # the spelling around the operator is kept: parentheses, blanks, a line break
    ("a = nn.Linear(8, (8 + 4) / (2))\n", "a = nn.Linear(8, (8 + 4) // (2))\n"),
    ("a = nn.Linear(8,\n              8 /\n              2)\n",
     "a = nn.Linear(8,\n              8 //\n              2)\n"),
    # every ``/`` of the size, and ``//`` already there kept
    ("a = torch.zeros(16 / 2 // 2 / 2)\n", "a = torch.zeros(16 // 2 // 2 // 2)\n"),
])
def test_tv149_fixes(before, after):
    result = fixed(HEAD_NN + before, ["TV149"], unsafe=False)
    assert result.text == HEAD_NN + after


def test_tv149_a_division_next_to_a_comment_is_left_to_a_person():
    source = HEAD_NN + "a = nn.Linear(8, 8 /  # half\n              2)\n"
    (finding,) = check_source(source, codes=["TV149"])
    assert finding.fix is None and finding.message.endswith("use `//`")
    assert fixed(source, ["TV149"]).text == source


def test_tv149_message_names_the_layer_and_the_replacement():
    (finding,) = check_source(HEAD_NN + "bn = nn.BatchNorm2d(800 / 16)\n", codes=["TV149"])
    assert finding.message == (
        "`800 / 16` of ints was floor division on Python 2 and is a float on Python 3, "
        "which `BatchNorm2d` refuses as a size (TypeError); use `800 // 16`")
    assert finding.fix.safety == SAFE


def test_tv149_follows_a_name_to_its_division_and_fixes_it_there_unsafely():
    """``n = (depth - 4) / 6`` passed on to ``range``: the fix is made at the
    ``/``, unsafe (the name's other readers get an int too)."""
    source = HEAD_NN + dedent("""
        def stack(count):
            return [nn.Linear(4, 4) for _ in range(count)]


        def build(depth):
            n = (depth - 4) / 6
            return stack(n), n * 0.5


        build(16)
    """)
    (finding,) = check_source(source, codes=["TV149"])
    assert finding.message.startswith("`count` is `(depth - 4) / 6` (line 10), a float")
    assert finding.message.endswith("use `(depth - 4) // 6` there")
    assert finding.fix.safety == UNSAFE
    assert fixed(source, ["TV149"], unsafe=False).text == source
    assert "n = (depth - 4) // 6\n" in fixed(source, ["TV149"]).text


def test_tv149_an_operand_not_known_is_fixed_unsafely_and_only_where_sizes_go():
    source = HEAD_NN + (
        "def f(n, arr):\n    return nn.Linear(8, n / 2), torch.FloatTensor(arr / 2)\n")
    (finding,) = check_source(source, codes=["TV149"])
    assert finding.message == (
        "`n / 2` is a float on Python 3, which `Linear` refuses as a size (TypeError); "
        "Python 2's `/` of ints floored: use `n // 2`")
    assert finding.fix.safety == UNSAFE


def test_tv111_names_the_function_of_a_thnn_criterion_with_its_target_detached():
    source = HEAD_NN + dedent("""
        class _Loss(nn.Module):
            def forward(self, input, target):
                return getattr(self._backend, type(self).__name__)(True)(input, target)


        class L1Loss(_Loss):
            pass
    """)
    (finding,) = check_source(source, codes=["TV111"])
    assert "`L1Loss`: `F.l1_loss(input, target.detach())` (0.3's THNN criteria passed " \
        "the target no gradient" in finding.message


@pytest.mark.parametrize("line, quoted", [
    ("import torch.legacy.optim as legacy_optim", "torch.legacy.optim"),
    ("from torch.legacy import optim", "torch.legacy.optim"),
    ("from torch.legacy.optim import adam", "torch.legacy.optim"),
])
def test_tv111_sends_torch_legacy_optim_to_torch_optim(line, quoted):
    """0.3's Lua-style optimisers: their successor is torch.optim, not torch.nn."""
    (finding,) = check_source(f"import torch\n{line}\n", codes=["TV111"])
    assert finding.message.startswith(
        f"`{quoted}` was removed from PyTorch (ModuleNotFoundError on 2.13); use torch.optim: ")
    assert "torch.optim.Adam([x], lr=config['learningRate'])" in finding.message
    assert "the import alone stops the program" in finding.message
    assert "torch.nn" not in finding.message
    source = "import torch\nimport torch.legacy\ntorch.legacy.optim.sgd(f, x, config)\n"
    found = [f.message for f in check_source(source, codes=["TV111"])]
    assert found[0].startswith("`torch.legacy` was removed from PyTorch "
                               "(ModuleNotFoundError on 2.13); use the torch.nn modules "
                               "and torch.nn.functional for its nn, torch.optim for its optim")
    assert found[1].startswith("`torch.legacy.optim` was removed from PyTorch "
                               "(AttributeError on 2.13); use torch.optim: ")
    assert "import alone" not in found[1]


def test_a_module_set_back_to_training_mode_does_not_train():
    """``model.eval()`` ... ``model.train()`` around a volatile forward (a DDPG
    agent's ``select_action``) switches a module's mode: the function may run
    under ``@torch.no_grad()``."""
    source = dedent("""
        import torch
        from torch.autograd import Variable


        class Agent:
            def __init__(self):
                self.actor = torch.nn.Linear(3, 1)

            def select_action(self, state):
                self.actor.eval()
                mu = self.actor(Variable(state, volatile=True))
                self.actor.train()
                return mu.data.clamp(-1, 1)
    """)
    result = fix_text(source, lambda t: Analysis(t, ["TV002"]), True)
    assert "    @torch.no_grad()\n    def select_action(self, state):" in result.text
    assert "volatile" not in result.text


def test_a_helper_passing_its_volatile_parameter_on_sends_the_advice_to_its_callers():
    """``def to_var(x, volatile=False): return Variable(x, volatile=volatile)``: a
    region in the helper would end before the caller's forward pass; a parameter
    whose wrapped value stays in the function keeps ``set_grad_enabled``."""
    source = dedent("""
        import torch
        from torch.autograd import Variable


        def to_var(x, volatile=False):
            return Variable(torch.from_numpy(x), volatile=volatile).float()


        def run(model, x, volatile):
            if volatile:
                print(volatile)
            out = model(Variable(x, volatile=volatile))
            print(out.sum())
    """)
    messages = [f.message for f in check_source(source, codes=["TV002"])]
    assert messages[0].endswith(
        "where a caller of `to_var()` passes `volatile=True`, run the code that uses what "
        "it returns under `with torch.no_grad():`"), messages
    assert "set_grad_enabled(not volatile)" in messages[1], messages


def test_a_helper_whose_callers_pass_no_true_volatile_drops_it():
    """Every call of ``to_var`` is in the file and none passes a true ``volatile``:
    the keyword never did anything (dropped, safe; TV001 drops the wrap).  Where
    calls pass ``volatile=True``, the message names the functions that do."""
    helper = dedent("""
        import torch
        from torch.autograd import Variable


        def to_var(x, volatile=False):
            if torch.cuda.is_available():
                x = x.cuda()
            return Variable(x, volatile=volatile)


        def train(model, a):
            return model(to_var(a)), model(to_var(a, volatile=False))
    """)
    (tv002,) = check_source(helper, codes=["TV002"])
    assert tv002.message.endswith(
        "and no call of `to_var()` passes a true `volatile`; drop the argument"), tv002.message
    assert tv002.fix is not None and tv002.fix.safety == SAFE
    (tv001,) = check_source(helper, codes=["TV001"])
    assert tv001.message.endswith("use `x`") and tv001.fix.safety == SAFE
    evaluates = helper + dedent("""


        def evaluate(model, a):
            return model(to_var(a, volatile=True))
    """)
    (tv002,) = check_source(evaluates, codes=["TV002"])
    assert tv002.fix is None
    assert tv002.message.endswith(
        "`evaluate()` passes `volatile=True` to `to_var()`: run the code there that uses "
        "what it returns under `with torch.no_grad():`"), tv002.message
    (tv001,) = check_source(evaluates, codes=["TV001"])
    assert tv001.fix is None
    unknown = helper + "\n\ny = to_var(torch.ones(2), volatile=not training)\n"
    (tv002,) = check_source(unknown, codes=["TV002"])
    assert tv002.fix is None and "where a caller of `to_var()` passes" in tv002.message


@pytest.mark.parametrize("source, advice", [
    pytest.param("""
        class Batches(object):
            def __init__(self, data, test=False):
                self.data, self.test = data, test

            def __iter__(self):
                return self

            def __next__(self):
                def pad(insts):
                    batch = Variable(torch.LongTensor(insts), volatile=self.test)
                    return batch.cuda()
                return pad(self.data)
    """, ("`pad()` hands the value back, so a region here would do nothing: where "
          "`self.test` is true, run the code that uses these batches under "
          "`with torch.no_grad():`"), id="iterator-volatile-attribute"),
    pytest.param("""
        def batches(xs):
            for x in xs:
                yield Variable(x, volatile=True), x
    """, ("`batches()` hands the value back, so a region here would do nothing: run the "
          "code that uses these batches under `with torch.no_grad():`"), id="generator"),
    pytest.param("""
        def as_input(x):
            x = torch.from_numpy(x)
            return Variable(x, volatile=True)
    """, ("`as_input()` hands the value back, so a region here would do nothing: run the "
          "code that uses what `as_input()` returns under `with torch.no_grad():`"),
         id="helper-returns-it"),
    pytest.param("""
        pad = lambda x: Variable(x.unsqueeze(0), volatile=True).data.squeeze()
    """, ("the lambda's body runs where it is called, not where it is defined: run the "
          "calls of `pad` under `with torch.no_grad():`"), id="lambda-bound-to-a-name"),
    pytest.param("""
        with torch.no_grad():
            transform = Compose([Lambda(lambda x: Variable(x, volatile=True).data)])
    """, ("the lambda's body runs where it is called, not where it is defined: run the "
          "code that calls the lambda under `with torch.no_grad():`"), id="lambda-in-a-call"),
    pytest.param("""
        def build(flag):
            return lambda x: Variable(x, volatile=flag)
    """, ("the lambda's body runs where it is called, not where it is defined: where `flag` "
          "is true, run the code that calls the lambda under `with torch.no_grad():`"),
         id="lambda-volatile-expression"),
])
def test_volatile_used_elsewhere_gets_advice_for_where_it_is_used(source, advice):
    """A ``Variable`` handed back (a batch iterator's, a helper's) or made in a
    lambda is used by other code: a region (or a decorator) at the constructor
    would do nothing; the message sends the user to that code, without a fix."""
    (finding,) = check_source(HEAD_03 + dedent(source), codes=["TV002"])
    assert finding.message.endswith(advice), finding.message
    assert finding.fix is None


@pytest.mark.parametrize("source, advice", [
    pytest.param("""
        def predict(model, x):
            out = model(Variable(x, volatile=True))
            return out.data
    """, "decorate `predict()` with `@torch.no_grad()`", id="consumed-in-the-function"),
    pytest.param("""
        def step(model, xs, flag):
            for x in xs:
                print(model(Variable(x, volatile=flag)))
    """, "run the `for` loop of line 6 under `with torch.set_grad_enabled(not flag):`",
                 id="expression-consumed-in-a-loop"),
    pytest.param("""
        f = lambda x: x
        y = model(Variable(x, volatile=True))
    """, ("run this statement, which computes `y`, and the code that uses `y` under "
          "`with torch.no_grad():`"), id="not-in-the-lambda"),
    pytest.param("""
        logit, (hx, cx) = model((Variable(s, volatile=True),
                                 (hx, cx)))
        prob = logit.exp()
    """, ("run this statement, which computes `logit`, `hx` and `cx`, and the code that "
          "uses them (line 7) under `with torch.no_grad():`"), id="unpacked-into-a-nested-tuple"),
])
def test_volatile_used_where_it_is_made_keeps_its_region(source, advice):
    findings = check_source(HEAD_03 + dedent(source), codes=["TV002"])
    assert findings[0].message.endswith(advice), findings[0].message


def test_a_tuple_of_volatile_variables_names_each_target():
    """``z, y = Variable(z, volatile=True), Variable(y, volatile=True)`` at the top of a
    script: each message names the variable whose uses go under ``no_grad``."""
    source = dedent("""
        import torch
        from torch.autograd import Variable

        z, y = torch.zeros(2), torch.ones(2)
        z, y = Variable(z, volatile=True), Variable(y, volatile=True)
    """)
    messages = [f.message for f in check_source(source, codes=["TV002"])]
    assert [m.rsplit(";", 1)[1] for m in messages] == [
        " run the code that uses `z` under `with torch.no_grad():`",
        " run the code that uses `y` under `with torch.no_grad():`"], messages


# ---------------------------------------------------------------------------
# TV154: F.dropout without `training`, a no-op on 0.3


def test_dropout_without_training_keeps_the_no_op_of_0_3():
    before = "def f(x):\n    return F.dropout(x, 0.3) + F.dropout2d(x, p=0.1)\n"
    source = HEAD_03 + "import torch.nn.functional as F\n" + before
    result = fixed(source, ["TV154"], unsafe=False)
    assert result.text == source.replace("0.3)", "0.3, training=False)").replace(
        "p=0.1)", "p=0.1, training=False)")
    findings = check_source(source, codes=["TV154"])
    assert [f.fix.safety for f in findings] == [SAFE, SAFE]
    assert "`training=self.training`" in findings[0].message
    assert "returned its input on PyTorch 0.3" in findings[0].message


def test_dropout_without_training_in_modern_code_is_left_alone():
    source = "import torch\nimport torch.nn.functional as F\ny = F.dropout(torch.ones(3), 0.5)\n"
    assert check_source(source, codes=["TV154"]) == []


def test_tv002_names_the_extent_of_the_uses():
    # the uses reach into a loop: the message gives the statements from the
    # first use to the end of the loop (sweep 25: "lines 60, 62, 67, ..." left
    # the extent open); a backward pass among them keeps the list of lines
    from flake8_torch04.analysis.run import check_source

    source = textwrap.dedent("""\
        import torch
        from torch.autograd import Variable
        from lm import model, hidden, opt

        input = Variable(torch.zeros(1, 1).long(), volatile=True)
        input.data.fill_(1)
        words = []
        for _ in range(5):
            output, hidden = model(input, hidden)
            input.data.fill_(output.data.max(1)[1][0])
            words.append(input.data[0])
        print(words)
        input = Variable(torch.zeros(1, 1).long(), volatile=True)
        out = model(input, hidden)
        out.sum().backward()
        opt.step()
        print(input)
        """)
    found = [f.message for f in check_source(source, "t.py", ["TV002"])]
    assert found[0].endswith("run the code that uses `input` (lines 6 to 11) under "
                             "`with torch.no_grad():`")
    assert found[1].endswith("run the code that uses `input` (lines 14, 17) under "
                             "`with torch.no_grad():`")


def test_a_meter_s_value_shown_gets_its_item_where_the_callers_pass_the_number():
    """``print(m.val)`` of a meter whose ``update(self, val, n)`` binds ``self.val =
    val`` and whose one caller passes ``prec[0]`` (a 1-D tensor's element, 0.3's
    number): the ``.item()`` goes at the caller, where the ``+=`` finding puts it
    too; on the parameter, it was called on the number the caller's fix made."""
    source = HEAD_03 + dedent("""
        class Meter(object):
            def __init__(self):
                self.sum = 0

            def update(self, val, n=1):
                self.val = val
                self.sum += val * n


        def top(output):
            return [output.max(1)[0].sum(0, keepdim=True)]


        prec, = top(Variable(torch.randn(4, 3)).data)
        m = Meter()
        m.update(prec[0], 4)
        print(m.val, m.sum)
        """)
    result = fixed(source, ["TV144"])
    assert "m.update(prec[0].item(), 4)" in result.text
    assert "self.val = val\n" in result.text and "val.item()" not in result.text


def test_a_comparison_written_into_a_uint8_tensor_by_index_gets_byte():
    """0.3's comparisons were uint8: ``running[alive] = (out != eos)`` wrote one into a
    uint8 tensor; a boolean one raises now (index_put needs the same dtype)."""
    before = ("def f(out, eos):\n    running = torch.ones(4).byte()\n"
              "    running[torch.arange(0, 4).long()] = out.data != eos\n    return running\n")
    result = fixed(HEAD_03 + before, ["TV129"])
    assert result.text == HEAD_03 + before.replace("out.data != eos", "(out.data != eos).byte()")
    torch = pytest.importorskip("torch")
    space = {}
    exec(compile(result.text, "<fixed>", "exec"), space)
    assert space["f"](torch.LongTensor([3, 1, 3, 2]), 3).tolist() == [0, 1, 0, 1]
