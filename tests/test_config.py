"""Configuration of ``torch04 check``: ``[tool.torch04]``, ``[flake8]``, ``--config``,
``--isolated``, excludes, ``.gitignore``, ``--force-exclude``, checked selectors; and
that flake8 with the plugin reports what ``torch04`` reports on the same tree."""
import json
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings, strategies as st
from test_cli import LEGACY, torch04

from flake8_torch04.config import settings as config_settings
from flake8_torch04.config.select import UsageError

# TV001 at 4:5 (safe fix), 5:5; TV002 at 5:17, 6:4


def found(out):
    """(path, line, col, code) of each finding in json output."""
    return sorted((os.path.normpath(r["filename"]), r["line"], r["column"], r["code"])
                  for r in json.loads(out))


def codes_in(out):
    return sorted({r["code"] for r in json.loads(out)})


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def check_json(root, *args):
    status, out, err = torch04("check", "--output-format", "json", *args, cwd=root)
    assert status in (0, 1), err
    return found(out)


# ---------------------------------------------------------------------------
# [tool.torch04]


def test_tool_table_select_ignore_and_per_file_ignores(tmp_path):
    write(tmp_path, {
        "pkg/a.py": LEGACY, "pkg/tests/test_a.py": LEGACY, "scripts/b.py": LEGACY,
        "pyproject.toml": """\
            [tool.torch04]
            select = ["TV0"]
            extend-ignore = ["TV002"]
            per-file-ignores = {"pkg/tests/*.py" = ["TV001"], "b.py" = ["TV"]}
            """,
    })
    assert check_json(tmp_path, ".") == [
        ("pkg/a.py", 4, 5, "TV001"), ("pkg/a.py", 5, 5, "TV001")]
    # the command line is a layer over the file: --extend-select brings TV002 back
    assert ("pkg/a.py", 5, 17, "TV002") in check_json(tmp_path, "--extend-select", "TV002", ".")
    # a --select on the command line replaces the file's selection and its ignores
    assert check_json(tmp_path, "--select", "TV002", "pkg/a.py") == [
        ("pkg/a.py", 5, 17, "TV002"), ("pkg/a.py", 6, 4, "TV002")]


def test_tool_table_from_a_subdirectory_and_unsafe_fixes(tmp_path):
    write(tmp_path, {
        "pkg/a.py": LEGACY,
        "pyproject.toml": '[project]\nname = "x"\n\n[tool.torch04]\nunsafe-fixes = true\n',
    })
    status, out, _ = torch04("check", "a.py", cwd=tmp_path / "pkg")
    assert "fixable with --fix --unsafe-fixes" in out
    status, out, _ = torch04("check", "--no-unsafe-fixes", "a.py", cwd=tmp_path / "pkg")
    assert "more with --unsafe-fixes" in out


def test_tool_table_exclude_and_extend_exclude(tmp_path):
    write(tmp_path, {
        "a.py": LEGACY, "vendor/v.py": LEGACY, "src/gen/g.py": LEGACY, "build/x.py": LEGACY,
        "pyproject.toml": '[tool.torch04]\nextend-exclude = ["vendor", "src/gen/*.py"]\n',
    })
    assert {f[0] for f in check_json(tmp_path, ".")} == {"a.py"}
    # exclude replaces the default list (build/ is checked again)
    (tmp_path / "pyproject.toml").write_text('[tool.torch04]\nexclude = ["vendor"]\n')
    assert {f[0] for f in check_json(tmp_path, ".")} == {"a.py", "build/x.py",
                                                         "src/gen/g.py"}


@pytest.mark.parametrize("table, message", [
    ('select = ["TV010"]', "select: TV010 matches no rule"),
    ('extend-ignore = ["TV9"]', "extend-ignore: TV9 matches no rule"),
    ('per-file-ignores = {"a.py" = ["TV077"]}', "per-file-ignores: TV077 matches no rule"),
    ('selct = ["TV001"]', "unknown key 'selct'"),
    ('select = "TV001, TV0x"', "'TV0X' is not a code"),
    ("unsafe-fixes = 1", "unsafe-fixes: expected true or false"),
    ("select = [", "cannot read"),
])
def test_bad_tool_table_is_a_usage_error(tmp_path, table, message):
    write(tmp_path, {"a.py": LEGACY, "pyproject.toml": f"[tool.torch04]\n{table}\n"})
    status, out, err = torch04("check", ".", cwd=tmp_path)
    assert status == 2
    assert message in err
    assert "pyproject.toml" in err
    assert out == ""


def test_pyproject_without_the_table_is_skipped_for_setup_cfg(tmp_path):
    write(tmp_path, {
        "a.py": LEGACY,
        "pyproject.toml": '[tool.black]\nline-length = 100\n',
        "setup.cfg": "[flake8]\nextend-ignore = TV001\n",
    })
    assert codes_in(torch04("check", "--output-format", "json", ".", cwd=tmp_path)[1]) == [
        "TV002"]


# ---------------------------------------------------------------------------
# [flake8]


@pytest.mark.parametrize("name", ["setup.cfg", "tox.ini", ".flake8"])
def test_flake8_section(tmp_path, name):
    write(tmp_path, {"a.py": LEGACY, name: "[flake8]\nmax-line-length = 100\n"
                                           "extend-ignore = E203, TV002\n"})
    assert codes_in(torch04("check", "--output-format", "json", ".", cwd=tmp_path)[1]) == [
        "TV001"]


def test_flake8_select_without_tv_selects_nothing_as_in_flake8(tmp_path):
    write(tmp_path, {"a.py": LEGACY, "setup.cfg": "[flake8]\nselect = E,W,F\n"})
    assert check_json(tmp_path, ".") == []
    # the command line's --select replaces the file's
    assert codes_in(torch04("check", "--output-format", "json", "--select", "TV001", ".",
                            cwd=tmp_path)[1]) == ["TV001"]


def test_flake8_codes_of_other_plugins_are_allowed_but_a_bad_tv_code_is_not(tmp_path):
    write(tmp_path, {"a.py": LEGACY, "setup.cfg": "[flake8]\nextend-ignore = B008,TV010\n"})
    status, _, err = torch04("check", ".", cwd=tmp_path)
    assert status == 2
    assert "setup.cfg: extend-ignore: TV010 matches no rule" in err


def test_config_and_isolated(tmp_path):
    write(tmp_path, {
        "a.py": LEGACY,
        "setup.cfg": "[flake8]\nextend-ignore = TV002\n",
        "other.toml": '[tool.torch04]\nselect = ["TV002"]\n',
        "other.cfg": "[flake8]\nextend-ignore = TV001\n",
    })
    run = lambda *a: codes_in(torch04("check", "--output-format", "json", *a,  # noqa: E731
                                      cwd=tmp_path)[1])
    assert run(".") == ["TV001"]
    assert run("--config", "other.toml", ".") == ["TV002"]
    assert run("--config", "other.cfg", ".") == ["TV002"]
    assert run("--isolated", ".") == ["TV001", "TV002"]
    status, _, err = torch04("check", "--config", "missing.toml", ".", cwd=tmp_path)
    assert status == 2 and "missing.toml" in err


def test_flake8_per_file_ignores_parsing():
    assert config_settings.parse_files_to_codes(
        "\n  tests/*.py: TV001,TV002\n  a.py b.py:TV003 scripts/*:E501, TV\n"
    ) == [("tests/*.py", ["TV001", "TV002"]), ("a.py", ["TV003"]), ("b.py", ["TV003"]),
          ("scripts/*", ["E501", "TV"])]
    with pytest.raises(UsageError):
        config_settings.parse_files_to_codes("a.py TV001")


def test_load_for_a_file_path_as_a_language_server_would(tmp_path, monkeypatch):
    write(tmp_path, {
        "proj/pkg/tests/t.py": LEGACY,
        "proj/pyproject.toml": '[tool.torch04]\nextend-exclude = ["gen"]\n'
                               'per-file-ignores = {"pkg/tests/*" = ["TV002"]}\n',
    })
    monkeypatch.chdir(tmp_path)  # far from the project
    path = str(tmp_path / "proj" / "pkg" / "tests" / "t.py")
    settings = config_settings.load(path)
    assert settings.path == str(tmp_path / "proj" / "pyproject.toml")
    assert "TV002" not in settings.codes_for(path)
    assert "TV001" in settings.codes_for(path)
    assert "TV002" in settings.codes_for(str(tmp_path / "proj" / "pkg" / "x.py"))
    assert settings.excluded(str(tmp_path / "proj" / "gen" / "g.py"))
    assert not settings.excluded(path)
    assert config_settings.load(path, isolated=True).path is None


# ---------------------------------------------------------------------------
# .gitignore and --force-exclude


def test_gitignore_is_honoured_in_a_work_tree(tmp_path):
    write(tmp_path, {
        "a.py": LEGACY, "generated/g.py": LEGACY, "pkg/out_1.py": LEGACY,
        "pkg/keep.py": LEGACY, ".gitignore": "generated/\n", "pkg/.gitignore": "out_*.py\n",
    })
    (tmp_path / ".git").mkdir()
    assert {f[0] for f in check_json(tmp_path, ".")} == {"a.py", "pkg/keep.py"}
    assert {f[0] for f in check_json(tmp_path, "--no-respect-gitignore", ".")} == {
        "a.py", "generated/g.py", "pkg/keep.py", "pkg/out_1.py"}
    # a file named on the command line is checked unless --force-exclude
    assert check_json(tmp_path, "generated/g.py")
    assert check_json(tmp_path, "--force-exclude", "generated/g.py") == []
    (tmp_path / "pyproject.toml").write_text("[tool.torch04]\nrespect-gitignore = false\n")
    assert len({f[0] for f in check_json(tmp_path, ".")}) == 4
    assert {f[0] for f in check_json(tmp_path, "--respect-gitignore", ".")} == {
        "a.py", "pkg/keep.py"}


def test_a_gitignore_line_git_cannot_match_is_skipped(tmp_path):
    """``[z-a]`` matches nothing in git; pathspec raised ``re.error`` on it (a
    traceback for the whole run).  The other lines still apply, and a POSIX class
    (which pathspec reads as a set of its letters) warns nothing."""
    write(tmp_path, {"a.py": LEGACY, "out_1.py": LEGACY,
                     ".gitignore": "[z-a]\n[[:alpha:]]x\nout_[0-9].py\n"})
    (tmp_path / ".git").mkdir()
    status, out, err = torch04("check", "--output-format", "json", ".", cwd=tmp_path)
    assert status == 1, err
    assert {r["filename"] for r in json.loads(out)} == {"./a.py"}
    assert "Warning" not in err


def test_without_pathspec_gitignore_files_are_not_read_and_that_is_said(tmp_path, monkeypatch):
    """pathspec is a dependency, but a broken install (a bare interpreter with the
    package on its path) still checks every file, and says why ignored ones are in."""
    import sys

    from flake8_torch04.cli import discover as cli_discover
    from flake8_torch04.config import excludes as config_excludes

    write(tmp_path, {"a.py": LEGACY, "gen.py": LEGACY, ".gitignore": "gen.py\n"})
    (tmp_path / ".git").mkdir()
    monkeypatch.setitem(sys.modules, "pathspec", None)  # (importing it raises ImportError)
    problems = []
    found = list(cli_discover.discover([str(tmp_path)], config_excludes.Excludes([]),
                                       gitignore=True, problems=problems))
    assert sorted(os.path.basename(p) for p in found) == ["a.py", "gen.py"]
    assert problems == [(str(tmp_path / ".gitignore"), "not read: pathspec is not installed "
                         "(pip install pathspec); what git ignores is checked too", False)]


def test_stdin_filename_is_matched_by_per_file_ignores(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torch04]\nper-file-ignores = {"tests/*" = ["TV001"]}\n')
    _, out, _ = torch04("check", "--output-format", "json", "--stdin-filename",
                        "tests/t.py", "-", cwd=tmp_path, stdin=LEGACY)
    assert codes_in(out) == ["TV002"]
    _, out, _ = torch04("check", "--output-format", "json", "--stdin-filename",
                        "src/t.py", "-", cwd=tmp_path, stdin=LEGACY)
    assert codes_in(out) == ["TV001", "TV002"]


def test_force_exclude_applies_every_kind_of_exclude(tmp_path):
    write(tmp_path, {"a.py": LEGACY, "build/b.py": LEGACY, "tests/t.py": LEGACY,
                     "pyproject.toml": '[tool.torch04]\nextend-exclude = ["tests"]\n'})
    named = ("a.py", "build/b.py", "tests/t.py")
    assert {f[0] for f in check_json(tmp_path, *named)} == set(named)
    assert {f[0] for f in check_json(tmp_path, "--force-exclude", *named)} == {"a.py"}
    assert {f[0] for f in check_json(tmp_path, "--force-exclude", "--extend-exclude",
                                     "a.py", *named)} == set()


# ---------------------------------------------------------------------------
# selectors


@pytest.mark.parametrize("args, name", [
    (["--select", "TV010"], "--select: TV010"),
    (["--extend-select", "TV2"], "--extend-select: TV2"),
    (["--ignore", "TV0,E501"], "--ignore: E501"),
    (["--extend-ignore", "TW"], "--extend-ignore: TW"),
])
def test_unknown_selector_is_a_usage_error_naming_it(tmp_path, args, name):
    (tmp_path / "a.py").write_text(LEGACY)
    status, out, err = torch04("check", *args, ".", cwd=tmp_path)
    assert status == 2
    assert f"{name} matches no rule" in err
    assert out == ""


def test_selectors_are_checked_against_the_rule_table(monkeypatch):
    from flake8_torch04.analysis import registry
    from flake8_torch04.config import select as config_select

    config_select.check_selectors([("--select", "TV006"), ("--select", "T")])
    table = dict(registry.gates())
    with pytest.raises(config_select.UsageError):
        config_select.check_selectors([("--select", "TV19")])
    monkeypatch.setattr(registry, "_GATES", {**table, "TV199": table["TV001"]})
    config_select.check_selectors([("--select", "TV199"), ("--select", "TV19")])


# ---------------------------------------------------------------------------
# the same findings from flake8 and torch04


FLAKE8_TREE = {
    "setup.cfg": """\
        [flake8]
        max-line-length = 100
        extend-ignore = E203,W503,TV002
        exclude = .git,__pycache__,vendor
        per-file-ignores =
            pkg/tests/*.py: TV001
            conftest.py:TV005
        """,
    "pkg/a.py": LEGACY + "if type(x) == torch.FloatTensor:\n    pass\n",
    "pkg/tests/test_a.py": LEGACY + "if type(x) == torch.FloatTensor:\n    pass\n",
    "conftest.py": LEGACY + "if type(x) == torch.FloatTensor:\n    pass\n",
    "vendor/v.py": LEGACY,
}


def test_flake8_and_torch04_agree_on_a_tree_with_setup_cfg(tmp_path):
    write(tmp_path, FLAKE8_TREE)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--format",
                           "%(path)s:%(row)d:%(col)d:%(code)s", "."],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    theirs = sorted(line.split(":") for line in proc.stdout.splitlines()
                    if ":TV" in line)
    theirs = [(os.path.normpath(p), int(r), int(c), code) for p, r, c, code in theirs]
    ours = check_json(tmp_path, ".")
    assert ours == sorted(theirs)
    assert {f[3] for f in ours} == {"TV001", "TV005"}
    assert not any(f[0].startswith("vendor") for f in ours)
    # the files pre-commit names, with --force-exclude as the hook passes it
    named = ["conftest.py", "pkg/a.py", "pkg/tests/test_a.py", "vendor/v.py"]
    proc = subprocess.run([sys.executable, "-m", "flake8", "--format",
                           "%(path)s:%(row)d:%(col)d:%(code)s", *named],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    theirs = sorted((os.path.normpath(p), int(r), int(c), code) for p, r, c, code in
                    (line.split(":") for line in proc.stdout.splitlines() if ":TV" in line))
    assert check_json(tmp_path, "--force-exclude", *named) == theirs
    # flake8 matches a named file by its own name: vendor/v.py is checked, as flake8
    # does when pre-commit names it; a pattern naming the file excludes it in both
    assert {f[0] for f in theirs} - {f[0] for f in ours} == {"vendor/v.py"}
    cfg = tmp_path / "setup.cfg"
    cfg.write_text(cfg.read_text().replace("vendor\n", "vendor,v.py\n"))
    assert check_json(tmp_path, "--force-exclude", *named) == ours


@given(st.sampled_from(["flake8", "torch04"]),
       st.lists(st.lists(st.sampled_from(["a", "*", "?", "/", "[ab]", "x.py", "tests/fixtures",
                                          ".venv*", "**", "../"]), min_size=1, max_size=3)
                .map("".join), max_size=4),
       st.sampled_from(["a", "x.py", "a/b", "/tmp/a/x.py", "tests/fixtures/x.py", ".venv1/x",
                        "../q"]),
       st.booleans())
@settings(max_examples=300, deadline=None)
def test_a_matcher_matches_as_its_patterns_one_by_one(style, patterns, path, is_dir):
    """``Settings.matcher`` (patterns read once for a directory walk) answers as
    ``Settings._matches`` does for each pattern."""
    config = config_settings.Settings("/work/project", None, style)
    expected = any(config._matches(p, path, is_dir) for p in patterns)
    assert config.matcher(patterns)(path, is_dir) == expected
