"""Renames (TV121, TV122, TV124) and the tests that patch the old name by string:
the patch target is renamed by an unsafe fix, and a call's rename becomes unsafe
where a string of the file, or of another module of the project, names the old
name; ``--fix --unsafe-fixes`` renames both, ``--fix`` neither."""
import textwrap

from flake8_torch04.analysis.findings import UNSAFE
from flake8_torch04.analysis.run import check_source
from flake8_torch04.fix.analysis import Analysis
from flake8_torch04.fix.fixer import fix_text


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


def fixed(source, codes, unsafe):
    return fix_text(source, lambda text: Analysis(text, codes), unsafe).text


SOURCE = dedent("""
    from unittest import mock
    import torch.nn as nn
    import torch.nn.functional as F


    @mock.patch("torch.nn.utils.clip_grad_norm")
    @mock.patch.object(nn.init, 'xavier_uniform')
    @mock.patch("torch.nn.functional.upsample")
    def test(up, xavier, clip):
        nn.utils.clip_grad_norm(params, 1.0)
        nn.init.xavier_uniform(w)
        F.upsample(x, scale_factor=2)
""")


def test_unsafe_fixes_rename_the_calls_and_their_patch_targets_together():
    assert fixed(SOURCE, ["TV121", "TV122", "TV124"], True) == dedent("""
        from unittest import mock
        import torch.nn as nn
        import torch.nn.functional as F


        @mock.patch("torch.nn.utils.clip_grad_norm_")
        @mock.patch.object(nn.init, 'xavier_uniform_')
        @mock.patch("torch.nn.functional.interpolate")
        def test(up, xavier, clip):
            nn.utils.clip_grad_norm_(params, 1.0)
            nn.init.xavier_uniform_(w)
            F.interpolate(x, scale_factor=2)
    """)


def test_safe_fixes_rename_neither():
    assert fixed(SOURCE, ["TV121", "TV122", "TV124"], False) == SOURCE


def test_messages_say_why_the_call_fix_is_unsafe():
    findings = check_source(SOURCE, codes=["TV122"])
    target, call = findings
    assert target.message.startswith("patches `torch.nn.utils.clip_grad_norm`")
    assert call.message.endswith("unsafe fix: this file names `torch.nn.utils.clip_grad_norm` "
                                 "in a string (a mock.patch target?): rename it there too")


def test_a_string_that_is_not_the_old_name_leaves_the_fix_safe():
    source = "import torch.nn as nn\nnn.utils.clip_grad_norm(p, 1)\nname = 'clip_grad_norm_'\n"
    assert fixed(source, ["TV122"], False) == source.replace("norm(", "norm_(")


def test_a_test_module_of_the_project_makes_the_call_fix_unsafe(tmp_path, monkeypatch):
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    code = tmp_path / "pkg" / "train.py"
    code.write_text("import torch.nn as nn\n\n\ndef step(p):\n    nn.utils.clip_grad_norm(p, 1)\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_train.py").write_text(
        "from unittest import mock\n\n\n@mock.patch('torch.nn.utils.clip_grad_norm')\n"
        "def test_step(clip):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    (finding,) = check_source(code.read_text(), str(code), codes=["TV122"])
    assert finding.fix.safety == "unsafe"
    assert "tests/test_train.py names `torch.nn.utils.clip_grad_norm` in a string" in (
        finding.message)
    (tmp_path / "tests" / "test_train.py").write_text("def test_step():\n    pass\n")
    (finding,) = check_source(code.read_text(), str(code), codes=["TV122"])
    assert finding.fix.safety == "safe"


def test_a_moved_function_patched_by_string_keeps_its_call_fix_unsafe():
    """TV135 does not rename the patch target: its call fix becomes unsafe, and says why."""
    source = dedent("""
        from unittest import mock
        import torch


        @mock.patch("torch.qr")
        def test(qr):
            q, r = torch.qr(torch.eye(3))
    """)
    (finding,) = check_source(source, codes=["TV135"])
    assert finding.fix is not None and finding.fix.safety == UNSAFE
    assert finding.message.endswith("unsafe fix: this file names `torch.qr` in a string "
                                    "(a mock.patch target?): rename it there too")
    assert fixed(source, ["TV135"], False) == source
