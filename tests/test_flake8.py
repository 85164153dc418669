"""flake8 end to end, in a subprocess, as users and editors run it."""
import subprocess
import sys
import textwrap

import pytest

LEGACY = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable

    x = Variable(torch.ones(2))
    y = Variable(x, volatile=True)
    """
)


def flake8(*args, cwd, stdin=None):
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout.splitlines()


@pytest.fixture
def legacy(tmp_path):
    path = tmp_path / "legacy.py"
    path.write_text(LEGACY, encoding="utf-8")
    return path


def test_version_lists_plugin(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "flake8", "--version"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert "flake8-torch04" in proc.stdout


def test_select_reports_codes_with_one_based_columns(legacy, tmp_path):
    out = flake8("--select=TV", "legacy.py", cwd=tmp_path)
    assert out == [
        "legacy.py:4:5: TV001 `Variable(torch.ones(2))` is a no-op wrapper since PyTorch 0.4; "
        "use `torch.ones(2)`",
        "legacy.py:5:5: TV001 `Variable(x, volatile=True)` is a no-op wrapper since PyTorch 0.4;"
        " use `x` (see TV002 for `volatile`)",
        "legacy.py:5:17: TV002 `volatile=True` has no effect since PyTorch 0.4 "
        "(autograd records the graph); run the code that uses `y` under `with torch.no_grad():`",
    ]


def test_character_columns_on_non_ascii_lines(tmp_path):
    (tmp_path / "u.py").write_text(
        'from torch.autograd import Variable\ns = "ééé"; v = Variable(s)\n', encoding="utf-8"
    )
    out = flake8("--select=TV001", "u.py", cwd=tmp_path)
    assert [line.split(": ")[0] for line in out] == ["u.py:2:16"]


@pytest.mark.parametrize(
    "args, codes",
    [
        (["--select=TV001"], {"TV001"}),
        (["--select=TV", "--ignore=TV001"], {"TV002"}),
        (["--select=TV", "--extend-ignore=TV002"], {"TV001"}),
        (["--select=E,W,F"], set()),
    ],
)
def test_select_and_ignore(legacy, tmp_path, args, codes):
    out = flake8(*args, "legacy.py", cwd=tmp_path)
    assert {line.split()[1] for line in out} == codes


def test_codes_off_by_default_are_on_flake8s_default_ignore_list(tmp_path):
    (tmp_path / "bn.py").write_text(
        "import torch.nn as nn\nfrom torch.autograd import Variable\n"
        "bn = nn.BatchNorm2d(4)\nx = Variable(bn)\n", encoding="utf-8")
    codes = {line.split()[1] for line in flake8("bn.py", cwd=tmp_path) if ": TV" in line}
    assert codes == {"TV001"}
    out = flake8("--extend-select=TV157", "bn.py", cwd=tmp_path)
    assert {line.split()[1] for line in out if ": TV" in line} == {"TV001", "TV157"}


def test_noqa(tmp_path):
    (tmp_path / "n.py").write_text(
        textwrap.dedent(
            """\
            from torch.autograd import Variable
            a = Variable(1)  # noqa
            b = Variable(2)  # noqa: TV001
            c = Variable(3, volatile=True)  # noqa: TV002
            d = Variable(
                4,
                volatile=True,  # noqa: TV002
            )
            """
        )
    )
    out = flake8("--select=TV", "n.py", cwd=tmp_path)
    assert [line.split(": ")[0] + " " + line.split()[1] for line in out] == [
        "n.py:4:5 TV001",
        "n.py:5:5 TV001",
    ]


def test_stdin_as_editors_call_it(tmp_path):
    out = flake8("--select=TV", "--stdin-display-name=editor.py", "-", cwd=tmp_path,
                 stdin=LEGACY)
    assert [line.split(": ")[0] for line in out] == [
        "editor.py:4:5", "editor.py:5:5", "editor.py:5:17",
    ]


def test_parallel_jobs(tmp_path):
    for i in range(6):
        (tmp_path / f"m{i}.py").write_text(LEGACY)
    out = flake8("-j2", "--select=TV", ".", cwd=tmp_path)
    assert len(out) == 18


@pytest.mark.parametrize("name", ["setup.cfg", "tox.ini", ".flake8"])
def test_config_files(legacy, tmp_path, name):
    (tmp_path / name).write_text("[flake8]\nselect = TV002\n")
    out = flake8("legacy.py", cwd=tmp_path)
    assert {line.split()[1] for line in out} == {"TV002"}


def test_plugin_never_imports_torch(legacy, tmp_path):
    code = (
        "import sys, runpy; sys.argv = ['flake8', '--select=TV', 'legacy.py'];\n"
        "from flake8.main.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert "TV001" in proc.stdout
