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


LEGACY = "import torch\nfrom torch.autograd import Variable\nx = Variable(torch.ones(1))\n"
FIXED = "import torch\nx = torch.ones(1)\n"


def in_process(*args, cwd):
    import io
    import os

    from flake8_torch04 import cli

    out, err = io.StringIO(), io.StringIO()
    saved, old = (sys.stdout, sys.stderr), os.getcwd()
    sys.stdout, sys.stderr = out, err
    os.chdir(cwd)
    try:
        status = cli.main(list(args))
    finally:
        sys.stdout, sys.stderr = saved
        os.chdir(old)
    return status, out.getvalue(), err.getvalue()


def test_a_fifo_named_on_the_command_line_is_skipped_not_read(tmp_path):
    import os

    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "legacy.py").write_text(LEGACY)
    proc = subprocess.run([sys.executable, "-m", "flake8_torch04", "check", "pipe.py",
                           "legacy.py"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert proc.returncode == 1
    assert "pipe.py: not checked: a named pipe (FIFO), not a regular file" in proc.stderr
    assert "legacy.py:3:5: TV001" in proc.stdout


def test_paths_that_cannot_be_reached_say_why(tmp_path):
    import os

    os.symlink("loop.py", tmp_path / "loop.py")
    proc = torch04("check", "loop.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "loop.py: too many levels of symbolic links" in proc.stderr
    proc = torch04("check", "missing.py", cwd=tmp_path)
    assert "missing.py: no such file or directory" in proc.stderr


def test_a_read_only_file_is_not_rewritten(tmp_path):
    path = tmp_path / "legacy.py"
    path.write_text(LEGACY)
    path.chmod(0o444)
    status, out, err = in_process("check", "--fix", "legacy.py", cwd=tmp_path)
    assert status == 1
    assert path.read_text() == LEGACY
    assert "legacy.py: not written: the file is read-only" in err
    # its findings are those of the file as it stays
    assert "legacy.py:3:5: TV001" in out


def test_a_file_edited_while_it_is_fixed_is_not_overwritten(tmp_path, monkeypatch):
    from flake8_torch04 import _check, cli

    path = tmp_path / "legacy.py"
    path.write_text(LEGACY)
    real = _check.check_file

    def editor_saves_meanwhile(name, options, *args, **kwargs):
        result = real(name, options, *args, **kwargs)
        if options.fix:
            path.write_text(LEGACY + "y = 1\n")
        return result

    monkeypatch.setattr(cli, "check_file", editor_saves_meanwhile)
    status, _, err = in_process("check", "--fix", "legacy.py", cwd=tmp_path)
    assert status == 1
    assert path.read_text() == LEGACY + "y = 1\n"
    assert "legacy.py: not written: the file changed while it was being fixed" in err


def test_hard_links_are_kept(tmp_path):
    import os

    path = tmp_path / "legacy.py"
    path.write_text(LEGACY)
    os.link(path, tmp_path / "other.py")
    status, _, err = in_process("check", "--fix", "legacy.py", cwd=tmp_path)
    assert status == 0, err
    assert path.read_text() == FIXED
    assert (tmp_path / "other.py").read_text() == FIXED
    assert os.stat(path).st_ino == os.stat(tmp_path / "other.py").st_ino


def test_temporaries_of_a_killed_run_are_removed_and_live_ones_kept(tmp_path):
    import os

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = tmp_path / f".torch04-{dead}-abc.tmp"
    stale.write_text("half")
    live = tmp_path / f".torch04-{os.getpid()}-def.tmp"
    live.write_text("in use")
    (tmp_path / "legacy.py").write_text(LEGACY)
    status, _, err = in_process("check", "--fix", "legacy.py", cwd=tmp_path)
    assert status == 0, err
    assert not stale.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["legacy.py", live.name])


def test_an_unwritable_directory_is_named_and_the_findings_stay(tmp_path, monkeypatch):
    import errno
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    (tmp_path / "legacy.py").write_text(LEGACY)
    status, out, err = in_process("check", "--fix", "legacy.py", cwd=tmp_path)
    assert status == 1
    assert (tmp_path / "legacy.py").read_text() == LEGACY
    assert "legacy.py: cannot write: cannot create a file in" in err
    assert "Permission denied" in err
    assert "legacy.py:3:5: TV001" in out
