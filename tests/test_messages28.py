"""Messages that must say what is true (issue 28): the advice of a finding
must not break the callers of the code it is about, and a summary must not be
cut before the words that say what a rule is about."""
from pathlib import Path

from flake8_torch04.analysis.run import check_source

FIXTURES = Path(__file__).parent / "fixtures"


def messages(source, code):
    return {f.line: f.message for f in check_source(source, "t.py", [code])}


def test_tv140_when_an_earlier_test_takes_tensors_it_does_not_advise_the_variable_branch():
    source = (FIXTURES / "TV140.py").read_text(encoding="utf-8")
    found = messages(source, "TV140")
    lines = source.splitlines()
    caught = [n for n, line in enumerate(lines, 1)
              if "def caught_first" in line or "def caught_before" in line]
    assert len(caught) == 2
    for start in caught:
        line = next(n for n in range(start, start + 6) if n in found)
        assert "takes every tensor first" in found[line]
        assert "keep the Variable branch only" not in found[line]
    for name in ("def to_var", "def to_tensor", "def as_array"):
        start = next(n for n, line in enumerate(lines, 1) if name in line)
        assert not any(start <= n < start + 8 for n in found), name


def test_every_summary_is_a_whole_sentence_and_tv128s_names_the_labels():
    from flake8_torch04 import ruledocs
    from flake8_torch04.analysis.registry import all_rules

    rules = all_rules()
    for code, rule in rules.items():
        assert ruledocs.summary(rule).endswith("."), code
    tv128 = ruledocs.summary(rules["TV128"])
    assert "``train_labels``, ``test_labels`` of torchvision datasets" in tv128
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert tv128 in readme


def test_tv112_quotes_the_users_alias():
    source = ("import torchvision\nfrom torchvision import transforms as T\n"
              "a = T.RandomSizedCrop(32)\nb = torchvision.transforms.Scale(8)\n")
    found = messages(source, "TV112")
    assert found[3].startswith("`T.RandomSizedCrop` was removed")
    assert found[3].endswith("use `T.RandomResizedCrop`")
    assert found[4].startswith("`torchvision.transforms.Scale` was removed")


def test_tv003_accumulation_says_the_sum_becomes_float64():
    from flake8_torch04 import ruledocs
    from flake8_torch04.analysis.registry import all_rules

    source = ("import torch\n\n\ndef train(loader, criterion, model):\n    total = 0\n"
              "    for x, y in loader:\n        loss = criterion(model(x), y)\n"
              "        total += loss\n    print(total)\n")
    [message] = messages(source, "TV003").values()
    assert "float64, not float32" in message
    assert "float64, not float32" in ruledocs.section(all_rules()["TV003"], "## Fix safety")


def test_tv004_says_a_reshaping_method_through_data_leaves_the_tensor_as_it_was():
    found = messages("import torch\nx = torch.zeros(3, 5)\nx.data.t_()\n"
                     "x.data[0].unsqueeze_(0)\nx.data.add_(1)\n", "TV004")
    assert found[3] == ("`x.data.t_()` changes the shape of `.data` alone, not of `x` (since "
                        "PyTorch 0.4 `.data` is another tensor); use "
                        "`with torch.no_grad(): x.t_()`")
    assert "bypasses autograd (`.data` is a pre-0.4 idiom)" in found[4]  # (a view of it)
    assert "bypasses autograd (`.data` is a pre-0.4 idiom)" in found[5]


def test_tv114_names_the_module_of_a_forward_call():
    # ``list(D.forward.parameters())`` would raise AttributeError if followed
    source = ("import torch\nimport torch.nn as nn\n"
              "G, D = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4)), "
              "nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))\n"
              "opt_G = torch.optim.Adam(G.parameters())\n"
              "fake = G.forward(torch.randn(3, 4))\nd_fake = D.forward(fake)\n"
              "d_fake.mean().backward(retain_graph=True)\nopt_G.step()\n"
              "d_loss = (1 - d_fake).mean()\nd_loss.backward()\n")
    [message] = messages(source, "TV114").values()
    assert "updated `G`'s parameters" in message
    assert "write `D.forward(fake.detach())` where this loss should not reach `G`," in message
    assert "or `d_loss.backward(inputs=list(D.parameters()))`; 0.3's numbers" in message
    assert message.endswith("`with torch.autograd.graph.saved_tensors_hooks(lambda t: t, "
                            "lambda t: t):`")


def test_tv114_offers_no_detach_where_the_next_step_trains_the_stale_module():
    """BicycleGAN's shape: the loss through ``E(fake)`` exists to train ``G`` (the next
    step is ``opt_G``'s): cutting it from ``G`` would silently stop that."""
    source = ("import torch\nimport torch.nn as nn\n"
              "G = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))\n"
              "E = nn.Linear(4, 2)\n"
              "opt_G = torch.optim.Adam(G.parameters())\n"
              "fake = G(torch.randn(3, 4))\nfake.pow(2).mean().backward(retain_graph=True)\n"
              "opt_G.step()\nloss_z = E(fake).mean()\nopt_G.zero_grad()\nloss_z.backward()\n"
              "opt_G.step()\n")
    [message] = messages(source, "TV114").values()
    assert "detach" not in message and "inputs=" not in message
    assert "recompute `G(torch.randn(3, 4))` after the step for this loss; 0.3's numbers" \
        in message


def test_tv004_keeps_storage_shared_through_a_dict_of_data():
    # ``shared[name] = p.data``, then ``q.data = shared[name]``: q shares p's storage,
    # which ``copy_`` would not keep (sweep 23's SeqGAN rollout)
    source = (
        "import torch.nn as nn\n"
        "src, dst = nn.Linear(2, 2), nn.Linear(2, 2)\n"
        "shared = {}\n"
        "for name, p in src.named_parameters():\n"
        "    shared[name] = p.data\n"
        "for name, p in dst.named_parameters():\n"
        "    p.data = shared[name]\n"
    )
    assert "p.set_(shared[name])" in messages(source, "TV004")[7]
    copied = source.replace("shared[name] = p.data", "shared[name] = p.data.clone()")
    assert "p.copy_(shared[name])" in messages(copied, "TV004")[7]


def test_tv003_append_says_the_value_becomes_a_float():
    source = (
        "import torch\n"
        "def train(model, loader, criterion, history):\n"
        "    for x, y in loader:\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        history.append(loss)\n"
    )
    message = messages(source, "TV003")[6]
    assert message.endswith("(a Python float)") and "float64" not in message


def test_tv003_bare_element_of_a_variable_keeps_the_tensor():
    from flake8_torch04.fix.analysis import Analysis
    from flake8_torch04.fix.fixer import fix_text

    source = ("import torch\nfrom torch.autograd import Variable\n"
              "a = Variable(torch.randn(5))\ni = torch.max(a, 0)[1][0]\n"
              "b = torch.max(torch.randn(5), 0)[1][0]\n")
    fixed = fix_text(source, lambda t: Analysis(t, ["TV003"]), False).text
    assert "i = torch.max(a, 0)[1]\n" in fixed  # (0.3: a one-element Variable)
    assert "b = torch.max(torch.randn(5), 0)[1].item()\n" in fixed  # (0.3: a number)


def test_tv004_swap_advice_names_the_shape_it_needs():
    # ``copy_`` raises where the new value has another shape, where
    # ``E.data = v`` takes it (sweep 25: glo's latent codes)
    source = "import torch\n\n\ndef init_from(m, pretrained):\n    m.weight.data = pretrained\n"
    (finding,) = check_source(source, "t.py", ["TV004"])
    assert finding.message.endswith(
        "use `with torch.no_grad(): m.weight.copy_(pretrained)` if the new value has "
        "`m.weight`'s shape, else keep it")
    assert finding.fix is None


def test_tv111_backend_embedding_names_the_padding_sentinel():
    # 0.3's THNN Embedding took padding_idx=-1 for "no padding"; F.embedding
    # reads -1 as the last row (sweep 26 mos: that word never trained)
    found = messages((FIXTURES / "TV111.py").read_text(encoding="utf-8"), "TV111")
    line = next(n for n, m in found.items() if "Embedding.apply" in m)
    assert "pass `None` for it" in found[line] and "F.embedding" in found[line]
    others = [m for m in found.values() if "_backend" in m and "Embedding.apply" not in m]
    assert others and not any("F.embedding" in m for m in others)


def test_tv002_stops_at_a_statement_whose_value_is_read_through_data():
    """``fixed = policy(Variable(s, volatile=True)).data``: on 0.3 the ``.data`` made
    nothing after it volatile, so the uses of ``fixed`` (a differentiated loss) are
    not to go under ``no_grad``; without ``.data`` they are."""
    head = ("import torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\n"
            "policy = nn.Linear(3, 1)\n\n\ndef step(states):\n")
    cut = messages(head + "    fixed = policy(Variable(states, volatile=True)).data\n"
                          "    (policy(states) - Variable(fixed)).mean().backward()\n", "TV002")
    kept = messages(head + "    fixed = policy(Variable(states, volatile=True))\n"
                           "    (policy(states) - fixed).mean().backward()\n", "TV002")
    [message] = cut.values()
    assert message.endswith("run this statement, which computes `fixed`, under "
                            "`with torch.no_grad():`")
    [message] = kept.values()
    assert "and the code that uses `fixed`" in message


def test_tv002_names_only_the_callers_not_yet_without_grad():
    """A caller that passes ``volatile=True`` and is already decorated
    ``@torch.no_grad()`` (by the same fix run, or its author) is not named again;
    when they all are, the argument is dropped."""
    head = ("import torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\n"
            "net = nn.Linear(3, 1)\n\n\ndef to_var(x, volatile=False):\n"
            "    return Variable(x, volatile=volatile)\n\n\n"
            "@torch.no_grad()\ndef evaluate(x):\n    return net(to_var(x, volatile=True))\n\n\n")
    [some] = messages(head + "def sample(x):\n    return net(to_var(x, volatile=True))\n",
                      "TV002").values()
    assert "`sample()` passes `volatile=True` to `to_var()`" in some
    assert "evaluate" not in some
    [every] = messages(head + "@torch.no_grad()\ndef sample(x):\n"
                              "    return net(to_var(x, volatile=True))\n", "TV002").values()
    assert every.endswith("already run without grad (`@torch.no_grad()`): drop the argument")


def test_a_suggestion_folds_a_line_continuation_of_the_source():
    """DrQA's ``self.embedding.weight.data[offset:] \\`` then ``= fixed``: the
    message's code must be code (a backslash inside one line is not)."""
    source = ("import torch\n"
              "w = torch.nn.Parameter(torch.zeros(4, 2))\n"
              "fixed = torch.ones(2, 2)\n"
              "w.data[2:] \\\n"
              "    = fixed\n")
    found = messages(source, "TV004")
    assert found and all("\\" not in m for m in found.values()), found
    assert any("w[2:] = fixed" in m for m in found.values()), found


def test_tv129_names_the_method_of_a_long_receiver():
    """LM-LSTM-CRF (sweep 30): ``Variable(torch.randn(1, 3)).masked_select(mask)``
    read "used as the mask of ," (a quote cut short, split at its last dot)."""
    source = ("import torch\nfrom torch.autograd import Variable\n"
              "m = torch.ByteTensor([1, 0, 1])\n"
              "s = Variable(torch.randn(1, 3)).masked_select(Variable(m)).sum()\n")
    found = messages(source, "TV129")
    assert any("the mask of masked_select," in m for m in found.values()), found
