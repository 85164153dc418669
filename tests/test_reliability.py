"""What a reliability sweep found: each case pinned (never lose code, never hide a finding)."""
import subprocess
import sys

import pytest

from flake8_torch04._core import check_source


def torch04(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "flake8_torch04", *args],
                          capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("deep", [
    "x = a" + "[0]" * 1000,
    "x = a" + ".data" * 1000 + "[0]",
    "self.add_module(" + " + ".join(["'a.'"] * 1000) + ", m)",
])
def test_a_statement_too_deep_to_walk_hides_no_other_finding(tmp_path, deep):
    source = ("import torch\nfrom torch.autograd import Variable\nz = Variable(q)\n"
              + deep + "\ny = Variable(x)\n")
    assert [(f.code, f.line) for f in check_source(source)] == [("TV001", 3), ("TV001", 5)]
    path = tmp_path / "deep.py"
    path.write_text(source)
    proc = torch04("check", str(path))
    assert proc.returncode == 1
    assert f"{path}:3:5: TV001" in proc.stdout and f"{path}:5:5: TV001" in proc.stdout
    assert "line 4: not checked to the end" in proc.stderr
