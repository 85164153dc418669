"""What a reliability sweep found: each case pinned (never lose code, never hide a finding)."""
import subprocess
import sys

import pytest
from cli_runner import in_process

from flake8_torch04.analysis.run import check_source


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
    from flake8_torch04 import pipeline
    from flake8_torch04.cli import command as cli_command

    path = tmp_path / "legacy.py"
    path.write_text(LEGACY)
    real = pipeline.check_file

    def editor_saves_meanwhile(name, options, *args, **kwargs):
        result = real(name, options, *args, **kwargs)
        if options.fix:
            path.write_text(LEGACY + "y = 1\n")
        return result

    monkeypatch.setattr(cli_command, "check_file", editor_saves_meanwhile)
    status, out, err = in_process("check", "--fix", "legacy.py", cwd=tmp_path)
    assert status == 1
    assert path.read_text() == LEGACY + "y = 1\n"
    assert "legacy.py: not written: the file changed while it was being fixed" in err
    # (issue 32: it was checked; it was not written)
    assert "1 file checked but not written (left untouched)." in out
    assert "could not be checked" not in out


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


@pytest.mark.parametrize("newline", [b"\r", b"\n", b"\r\n"])
def test_an_encoding_cookie_on_line_2_is_read_whatever_the_line_ends(tmp_path, newline):
    data = newline.join([b"# legacy", b"# -*- coding: latin-1 -*-", b"import torch",
                         b"from torch.autograd import Variable", b"s = '\xe9'",
                         b"x = Variable(torch.ones(1))", b""])
    compile(data, "cookie.py", "exec")  # Python reads it
    path = tmp_path / "cookie.py"
    path.write_bytes(data)
    status, out, err = in_process("check", "--fix", "cookie.py", cwd=tmp_path)
    assert status == 0, err
    assert path.read_bytes() == newline.join([
        b"# legacy", b"# -*- coding: latin-1 -*-", b"import torch", b"s = '\xe9'",
        b"x = torch.ones(1)", b""])


def legacy_tree(tmp_path, copies):
    from pathlib import Path

    example = (Path(__file__).parent.parent / "examples" / "legacy_train.py").read_text()
    for i in range(copies):
        (tmp_path / f"legacy_{i}.py").write_text(example)


def test_a_reader_that_goes_away_keeps_the_exit_status_and_prints_no_traceback(tmp_path):
    legacy_tree(tmp_path, 30)
    proc = subprocess.Popen([sys.executable, "-m", "flake8_torch04", "check", "."],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert err == ""


def test_a_full_disk_is_one_line_and_exit_2(tmp_path):
    legacy_tree(tmp_path, 1)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "flake8_torch04", "check", "."],
                              cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2
    assert proc.stderr == "torch04: error: cannot write the output: No space left on device\n"


def test_a_fixed_standard_input_that_cannot_be_written_is_an_error(tmp_path):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "flake8_torch04", "check", "--fix", "-"],
                              input=LEGACY, stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2
    assert "torch04: error: cannot write the fixed source: No space left on device" in \
        proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_closed_standard_output_is_an_error(tmp_path):
    legacy_tree(tmp_path, 1)
    proc = subprocess.run(["sh", "-c", f"exec 1>&-; exec '{sys.executable}' -m flake8_torch04 "
                                       "check ."], cwd=tmp_path, capture_output=True,
                          text=True)
    assert proc.returncode == 2
    assert proc.stderr == "torch04: error: standard output is closed\n"


def test_ctrl_c_is_one_line_and_exit_130(tmp_path, monkeypatch):
    from flake8_torch04.cli import command as cli_command

    legacy_tree(tmp_path, 1)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_command, "check_file", interrupted)
    status, out, err = in_process("check", ".", cwd=tmp_path)
    assert (status, out, err) == (130, "", "torch04: interrupted\n")


@pytest.mark.skipif(sys.platform == "win32", reason="a process group's SIGINT is POSIX's")
def test_ctrl_c_during_a_parallel_fix_is_one_line_and_the_workers_are_quiet(tmp_path):
    """Ctrl-C reaches every process of the terminal's group, the workers too:
    they printed their tracebacks before the main process's one line, and one
    stopped while it sent a result could leave the run waiting forever.  (The
    files are written once every file is checked: a Ctrl-C while the workers
    check leaves every file as it was, one during the writing some fixed.)"""
    import os
    import signal
    import time

    source = ("import torch\n\n\ndef step(model, x):\n    loss = model(x).sum()\n"
              "    loss.backward()\n    return loss.data[0]\n") * 20
    fixed = source.replace("loss.data[0]", "loss.item()")
    files = [tmp_path / f"m{i:04}.py" for i in range(1500)]
    for path in files:
        path.write_text(source)
    # (a terminal's processes take Ctrl-C; a test run started in the background of a
    # shell without job control inherits SIGINT ignored, which Python keeps)
    proc = subprocess.Popen([sys.executable, "-m", "flake8_torch04", "check", "--fix", "-j",
                             "2", "."], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(1.5)  # (the workers are checking: 1,500 files take longer)
        assert proc.poll() is None, proc.poll()
        os.killpg(proc.pid, signal.SIGINT)  # (as a terminal's Ctrl-C)
        out, err = proc.communicate(timeout=8)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert (proc.returncode, out, err.decode()) == (130, b"", "torch04: interrupted\n")
    texts = [path.read_text() for path in files]
    assert source in texts and set(texts) <= {source, fixed}  # (none half-written)


def test_counts_are_plural_in_english():
    from flake8_torch04.cli.output import _plural

    assert [_plural(n, w) for n, w in [(1, "fix"), (5, "fix"), (2, "file"), (0, "finding")]] \
        == ["1 fix", "5 fixes", "2 files", "0 findings"]


def test_a_fix_the_fixer_had_to_drop_is_not_counted_fixable(tmp_path, monkeypatch):
    from flake8_torch04.analysis.findings import SAFE, Finding, Fix
    from flake8_torch04.source.text import Edit

    def breaking(tree, lines, filename, codes, **kwargs):
        if not lines or not lines[0].startswith("x"):
            return []
        return [Finding("TV001", 1, 0, "made up", Fix((Edit((1, 0), (1, 1), "(x"),), SAFE))]

    from flake8_torch04.fix import analysis as fix_analysis

    monkeypatch.setattr(fix_analysis, "check", breaking)
    (tmp_path / "a.py").write_text("x = 1\n")
    status, out, err = in_process("check", "--fix", "a.py", cwd=tmp_path)
    assert status == 1
    assert "TV001 fix not applied: the fix would make invalid code" in err
    assert "a.py:1:1: TV001 made up" in out  # no [*]
    assert "0 fixable with --fix" in out


def test_a_symlink_out_of_the_tree_is_not_followed_when_walking(tmp_path):
    import os

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.py").write_text(LEGACY)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "ours.py").write_text(LEGACY)
    os.symlink(outside / "theirs.py", tree / "link.py")
    os.symlink(tree / "ours.py", tree / "inner.py")  # inside the tree: the same file
    status, out, err = in_process("check", "--fix", "tree", cwd=tmp_path)
    assert status == 0, err
    assert (outside / "theirs.py").read_text() == LEGACY
    assert (tree / "ours.py").read_text() == FIXED
    assert "link.py: skipped: a symbolic link to a file outside tree" in err
    # named on the command line, the link's target is what the user asked for
    status, _, err = in_process("check", "--fix", "tree/link.py", cwd=tmp_path)
    assert status == 0, err
    assert (outside / "theirs.py").read_text() == FIXED


def test_an_unreadable_directory_is_reported(tmp_path, monkeypatch):
    import errno
    import os

    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "legacy.py").write_text(LEGACY)
    (tmp_path / "locked").mkdir()
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    status, out, err = in_process("check", ".", cwd=tmp_path)
    assert status == 1
    assert "locked: cannot read the directory: Permission denied" in err
    assert "ok/legacy.py:3:5: TV001" in out


def test_add_noqa_writes_as_fix_writes(tmp_path):
    path = tmp_path / "legacy.py"
    path.write_text(LEGACY)
    path.chmod(0o444)
    status, _, err = in_process("check", "--add-noqa", "legacy.py", cwd=tmp_path)
    assert status == 1
    assert "legacy.py: not written: the file is read-only" in err
    assert path.read_text() == LEGACY


class _FullDisk:
    """Files opened for writing by ``write_atomically`` hold at most ``room`` more
    bytes in all (a disk that fills up), then raise ENOSPC."""

    def __init__(self, monkeypatch, room):
        import builtins
        import errno
        import os

        from flake8_torch04.source import document

        self.room = room
        real_open, real_fdopen = builtins.open, os.fdopen
        disk = self

        class Handle:
            def __init__(self, inner):
                self.inner = inner

            def write(self, data):
                if len(data) > disk.room:
                    self.inner.write(data[:disk.room])
                    self.inner.flush()
                    disk.room = 0
                    raise OSError(errno.ENOSPC, "No space left on device")
                disk.room -= len(data)
                return self.inner.write(data)

            def __getattr__(self, name):
                return getattr(self.inner, name)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.inner.close()

        def fake_open(path, mode="r", *args, **kwargs):
            handle = real_open(path, mode, *args, **kwargs)
            return Handle(handle) if any(c in mode for c in "wa+") else handle

        monkeypatch.setattr(document, "open", fake_open, raising=False)
        monkeypatch.setattr(os, "fdopen", lambda *a, **k: Handle(real_fdopen(*a, **k)))


def test_a_hard_linked_file_on_a_full_disk_is_left_as_it_was(tmp_path, monkeypatch):
    """Issue 32: the new content is written in full elsewhere before the file is
    touched; a file the report calls untouched is untouched."""
    import os

    from flake8_torch04.source.document import write_atomically

    path = tmp_path / "legacy.py"
    old = ("# padding\n" * 1000 + LEGACY).encode()
    path.write_bytes(old)
    os.link(path, tmp_path / "other.py")
    _FullDisk(monkeypatch, 4096)
    with pytest.raises(OSError):
        write_atomically(str(path), old.replace(b"Variable(", b"("), original=old)
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["legacy.py", "other.py"]


def test_an_edit_saved_while_the_fix_is_written_is_kept(tmp_path, monkeypatch):
    """Issue 32: the file is compared with the bytes the fix was made from as late
    as possible, just before the rename."""
    import os

    from flake8_torch04.source.document import NotWritten, write_atomically

    path = tmp_path / "legacy.py"
    path.write_text(LEGACY)
    real_fsync = os.fsync

    def editor_saves(fd):
        real_fsync(fd)
        path.write_text(LEGACY + "y = 1\n")

    monkeypatch.setattr(os, "fsync", editor_saves)
    with pytest.raises(NotWritten):
        write_atomically(str(path), FIXED.encode(), original=LEGACY.encode())
    assert path.read_text() == LEGACY + "y = 1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["legacy.py"]
