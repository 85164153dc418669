"""The flags a Ruff user expects, with Ruff's semantics: ``--fix-only``,
``--output-file``, ``--fixable``/``--unfixable``/``--extend-fixable`` (and the
configuration keys), ``--target-version``, ``--show-settings``."""
import json

import pytest
from cli_runner import in_process
from test_cli import LEGACY

from flake8_torch04.config import settings as config_settings

# LEGACY: TV001 at 4:5 (safe fix) and 5:5 (safe: drops the wrap), TV002 at 5:17 and 6:4


def tree(tmp_path, config=None):
    (tmp_path / "a.py").write_text(LEGACY)
    if config:
        (tmp_path / "pyproject.toml").write_text(config)
    return tmp_path


def test_fix_only_fixes_and_reports_nothing_of_what_is_left(tmp_path):
    tree(tmp_path)
    status, out, err = in_process("check", "--fix-only", "a.py", cwd=tmp_path)
    assert status == 0, err  # findings remain (TV002), but --fix-only exits 0
    assert "Fixed " in out and "a.py:" not in out
    assert (tmp_path / "a.py").read_text() != LEGACY
    # and the same as --fix wrote
    (tmp_path / "b.py").write_text(LEGACY)
    in_process("check", "--fix", "b.py", cwd=tmp_path)
    assert (tmp_path / "b.py").read_text() == (tmp_path / "a.py").read_text()


def test_output_file_takes_the_report(tmp_path):
    tree(tmp_path)
    status, out, err = in_process("check", "--output-format", "json", "-o", "report.json",
                                  "a.py", cwd=tmp_path)
    assert status == 1 and out == ""
    records = json.loads((tmp_path / "report.json").read_text())
    assert {r["code"] for r in records} == {"TV001", "TV002"}
    status, _, err = in_process("check", "--output-file", "missing/dir/r.txt", "a.py",
                                cwd=tmp_path)
    assert status == 2 and "--output-file" in err


@pytest.mark.parametrize("args, config, fixed", [
    ((), None, True),
    (("--unfixable", "TV001"), None, False),
    (("--fixable", "TV002"), None, False),
    (("--fixable", "TV002", "--extend-fixable", "TV001"), None, True),
    ((), '[tool.torch04]\nunfixable = ["TV001"]\n', False),
    (("--fixable", "TV"), '[tool.torch04]\nfixable = ["TV002"]\n', True),
    (("--fixable", "TV001"), '[tool.torch04]\nunfixable = ["TV00"]\n', False),  # wins
])
def test_fixable_and_unfixable(tmp_path, args, config, fixed):
    tree(tmp_path, config)
    status, out, err = in_process("check", "--fix", *args, "a.py", cwd=tmp_path)
    assert status == 1, err
    changed = (tmp_path / "a.py").read_text() != LEGACY
    assert changed == fixed
    # a finding whose code is not fixable has no [*] either
    (tmp_path / "a.py").write_text(LEGACY)
    _, out, _ = in_process("check", *args, "a.py", cwd=tmp_path)
    assert ("TV001 [*]" in out) == fixed


def test_fixable_codes_are_checked(tmp_path):
    tree(tmp_path)
    status, _, err = in_process("check", "--unfixable", "TV010", "a.py", cwd=tmp_path)
    assert status == 2 and "--unfixable: TV010 matches no rule" in err


def test_target_version_from_the_command_line_and_the_configuration(tmp_path):
    tree(tmp_path, '[tool.torch04]\ntarget-version = "0.3"\n')
    assert config_settings.load(str(tmp_path / "a.py")).target_version == "0.3"
    cli = config_settings.CommandLine(target_version="0.4")
    assert config_settings.load(str(tmp_path / "a.py"), cli=cli).target_version == "0.4"
    (tmp_path / "pyproject.toml").write_text('[tool.torch04]\ntarget-version = "old"\n')
    status, _, err = in_process("check", "a.py", cwd=tmp_path)
    assert status == 2 and "target-version" in err
    status, _, err = in_process("check", "--isolated", "--target-version", "x", "a.py",
                                cwd=tmp_path)
    assert status == 2 and "--target-version" in err
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "setup.cfg").write_text("[flake8]\ntarget-version = 0.2\nunfixable = TV001\n")
    settings = config_settings.load(str(tmp_path / "a.py"))
    assert settings.target_version == "0.2" and "TV001" not in settings.fixable_codes()


def test_show_settings_prints_and_checks_nothing(tmp_path):
    tree(tmp_path, '[tool.torch04]\nextend-ignore = ["TV002"]\n')
    status, out, err = in_process("check", "--show-settings", "--unsafe-fixes", "a.py",
                                  cwd=tmp_path)
    assert status == 0, err
    assert out.startswith("Settings for a.py:\n")
    assert "extend-ignore += 'TV002'  # pyproject.toml" in out
    assert "unsafe-fixes = True  # --unsafe-fixes" in out
    assert "TV002" not in out.split("codes = ", 1)[1].split("\n", 1)[0]
    assert "a.py:4:5" not in out


UPSAMPLE = ("import torch.nn.functional as F\n\n\n"
            "def head(x, size):\n    return F.upsample(x, size, mode='bilinear')\n")


@pytest.mark.parametrize("where", ["command line", "pyproject.toml", "setup.cfg"])
def test_target_version_reaches_the_rules(tmp_path, where):
    """``target-version = "0.3"`` makes a file with no 0.3 idiom 0.3 code for the rules
    (analysis/era.py): TV124 then keeps 0.3's align_corners=True."""
    from flake8_torch04.analysis import era

    (tmp_path / "m.py").write_text(UPSAMPLE)
    args = ["--target-version", "0.3"] if where == "command line" else []
    if where == "pyproject.toml":
        (tmp_path / where).write_text('[tool.torch04]\ntarget-version = "0.3"\n')
    elif where == "setup.cfg":
        (tmp_path / where).write_text("[flake8]\ntarget-version = 0.3\n")
    try:
        _, modern, _ = in_process("check", "--select", "TV124", "--isolated", "m.py",
                                  cwd=tmp_path)
        _, legacy, err = in_process("check", "--select", "TV124", *args, "m.py", cwd=tmp_path)
    finally:
        era.configured_target = None
    assert "align_corners=True" in legacy and legacy != modern, (legacy, err)
