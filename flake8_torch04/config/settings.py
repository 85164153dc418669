"""Configuration of the ``torch04`` command: which codes to report for a file, and which
files to skip, read from the project's configuration file.

The one entry point for other front ends (the command, a language server)::

    settings = settings.load("pkg/model.py")   # walks up from the file's directory
    if not settings.excluded("pkg/model.py"):
        codes = settings.codes_for("pkg/model.py")   # a tuple of rule codes to run
    unsafe = bool(settings.unsafe_fixes)             # ``unsafe-fixes`` (None: not set)

``load`` raises :class:`~flake8_torch04.config.select.UsageError` (with a message that
names the file and the key or code) for a configuration it cannot use.

Where the configuration comes from (the first found wins):

1. ``--config FILE`` (a ``pyproject.toml``, or a ``.cfg``/``.ini``/``.flake8`` file);
   ``--isolated`` reads none at all.
2. Walking up from the start directory (the current directory for the command,
   the file's directory for :func:`load`) to the file system's root, in each
   directory: ``pyproject.toml`` with a ``[tool.torch04]`` table, else the first
   of ``setup.cfg``, ``tox.ini``, ``.flake8`` with a ``[flake8]`` section.  The
   closest directory wins, as in Ruff and flake8.

``[tool.torch04]`` takes Ruff's keys and semantics (lists of strings):
``select`` (replaces the default), ``extend-select``, ``ignore``, ``extend-ignore``,
``exclude`` (replaces the default excludes), ``extend-exclude``, ``per-file-ignores``
(a table: glob -> codes), ``unsafe-fixes`` (a bool), ``respect-gitignore`` (a bool).
Options on the command line form a second layer over the file's: a ``--select`` there
replaces the whole selection, ``--extend-select``/``--ignore`` adjust it; where a code is
both selected and ignored, the longer prefix wins and a tie ignores.

``[flake8]`` is read with flake8's own semantics, so that flake8 with the plugin and
``torch04`` report the same findings: ``select``, ``ignore``, ``extend-select``,
``extend-ignore`` (codes of other plugins are allowed and ignored), ``per-file-ignores``
(``pattern: codes`` pairs; the codes are ignored for matching files as by
``extend-ignore``), ``exclude`` (replaces torch04's default excludes) and
``extend-exclude``, comma-separated ``fnmatch`` patterns matched against a file's name
or, when they hold a ``/``, its path made absolute from the configuration's directory.
A command-line option replaces the file's value of the same option, as in flake8.

Paths in ``[tool.torch04]`` patterns (``exclude``, ``per-file-ignores``) are relative to
the directory of ``pyproject.toml``; a pattern without ``/`` matches a name at any depth.

Nothing here is imported by the flake8 plugin; ``tomllib``/``tomli`` and ``configparser``
are imported only when a configuration file is read.
"""
from __future__ import annotations

import fnmatch
import os
import re
import sys
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .select import DEFAULT_SELECT, UsageError, check_selectors, parse_codes

FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")
#: flake8's own default ``exclude`` (its ``defaults.EXCLUDE``)
FLAKE8_EXCLUDE = (".svn", "CVS", ".bzr", ".hg", ".git", "__pycache__", ".tox", ".nox",
                  ".eggs", "*.egg")
TOOL_KEYS = ("select", "extend-select", "ignore", "extend-ignore", "exclude",
             "extend-exclude", "per-file-ignores", "unsafe-fixes", "respect-gitignore")
FLAKE8_KEYS = ("select", "extend-select", "ignore", "extend-ignore", "exclude",
               "extend-exclude", "per-file-ignores")


class Layer:
    """One source of ``select``/``ignore`` options (a file, or the command line)."""

    def __init__(self, select=None, extend_select=None, ignore=None, extend_ignore=None):
        self.select: Optional[List[str]] = select
        self.extend_select: Optional[List[str]] = extend_select
        self.ignore: Optional[List[str]] = ignore
        self.extend_ignore: Optional[List[str]] = extend_ignore

    def selectors(self) -> List[Tuple[str, str]]:
        return [(option.replace("_", "-"), code) for option in
                ("select", "extend_select", "ignore", "extend_ignore")
                for code in getattr(self, option) or ()]


class Settings:
    """The configuration that applies under one directory (see the module's docstring).

    ``path`` is the configuration file (``None``: defaults only), ``root`` the
    directory its patterns are relative to, ``style`` ``"torch04"``, ``"flake8"`` or
    ``None``.  :meth:`codes_for` and :meth:`excluded` answer for one file.
    """

    def __init__(self, root: str, path: Optional[str] = None, style: Optional[str] = None):
        self.root = os.path.abspath(root)
        self.path = path
        self.style = style
        self.layers: List[Layer] = []
        #: (pattern, codes, negated)
        self.per_file_ignores: List[Tuple[str, Tuple[str, ...], bool]] = []
        self.exclude: Optional[List[str]] = None  # None: the default list
        self.extend_exclude: List[str] = []
        self.unsafe_fixes: Optional[bool] = None
        self.respect_gitignore = True
        self._codes: Optional[Tuple[str, ...]] = None
        self._by_ignores: Dict[Tuple[str, ...], Tuple[str, ...]] = {}

    # -- selection ---------------------------------------------------------

    def add_layer(self, layer: Layer) -> None:
        """Command-line options over the file's (``[flake8]``: option by option)."""
        if self.style == "flake8" and self.layers:
            base = self.layers[0]
            for name in ("select", "extend_select", "ignore", "extend_ignore"):
                value = getattr(layer, name)
                if value is not None:
                    setattr(base, name, value)
        else:
            self.layers.append(layer)
        self._codes = None
        self._by_ignores.clear()

    def codes(self, extra_ignore: Sequence[str] = ()) -> Tuple[str, ...]:
        """The codes selected for every file (without per-file ignores)."""
        key = tuple(extra_ignore)
        if not key and self._codes is not None:
            return self._codes
        if key in self._by_ignores:
            return self._by_ignores[key]
        from ..analysis.registry import gates

        known = list(gates())
        if self.style == "torch04":
            chosen = tuple(_ruff_selection(known, self.layers, extra_ignore))
        else:
            layer = self.layers[0] if self.layers else Layer()
            chosen = tuple(_flake8_selection(known, layer, extra_ignore))
        if key:
            self._by_ignores[key] = chosen
        else:
            self._codes = chosen
        return chosen

    def codes_for(self, path: str) -> Tuple[str, ...]:
        """The codes to report in the file at ``path`` (``per-file-ignores`` applied)."""
        ignored: List[str] = []
        for pattern, codes, negated in self.per_file_ignores:
            if self._matches(pattern, path) != negated:
                ignored.extend(codes)
        if not ignored:
            return self.codes()
        if self.style == "flake8":  # flake8 adds them to extend-ignore
            return self.codes(tuple(ignored))
        return tuple(c for c in self.codes() if not c.startswith(tuple(ignored)))

    # -- files -------------------------------------------------------------

    def exclude_patterns(self) -> List[str]:
        from .excludes import DEFAULT_EXCLUDES

        base = self.exclude if self.exclude is not None else list(DEFAULT_EXCLUDES)
        return base + self.extend_exclude

    def excluded(self, path: str, is_dir: bool = False) -> bool:
        """Whether ``path`` (a file, or a directory with ``is_dir``) matches an exclude."""
        return self.matcher(self.exclude_patterns())(path, is_dir)

    def matcher(self, patterns: Sequence[str]):
        """``(path, is_dir) -> bool``: whether a path matches one of ``patterns``,
        read with this configuration's semantics (Ruff's globs or flake8's fnmatch),
        as :meth:`_matches` reads each (what does not depend on the path is worked
        out once: a directory walk asks for every file and directory)."""
        if self.style == "flake8":
            # (``fnmatch.fnmatch(name, pattern)`` is ``_fnmatch(pattern)(normcase(name))``)
            flake8 = [(_fnmatch(p), _fnmatch(os.path.abspath(os.path.join(self.root, p)))
                       if "/" in p or os.sep in p else None) for p in patterns]

            def matches(path: str, is_dir: bool = False) -> bool:
                absolute = os.path.abspath(path)
                name = os.path.normcase(os.path.basename(absolute))
                absolute = os.path.normcase(absolute)
                return any(match(name) or (full is not None and full(absolute))
                           for match, full in flake8)
            return matches
        from .excludes import Excludes

        globs = [(p, Excludes([p])) for p in patterns]

        def matches(path: str, is_dir: bool = False) -> bool:
            absolute = os.path.abspath(path)
            return any(_glob_matches(p, absolute, self.root, is_dir, excludes)
                       for p, excludes in globs)
        return matches

    def _matches(self, pattern: str, path: str, is_dir: bool = False) -> bool:
        absolute = os.path.abspath(path)
        if self.style == "flake8":
            # flake8's utils.matches_filename: the base name, then the absolute path
            if fnmatch.fnmatch(os.path.basename(absolute), pattern):
                return True
            if "/" in pattern or os.sep in pattern:
                full = os.path.abspath(os.path.join(self.root, pattern))
                return fnmatch.fnmatch(absolute, full)
            return False
        return _glob_matches(pattern, absolute, self.root, is_dir)


def _fnmatch(pattern: str):
    """``fnmatch.fnmatch(name, pattern)`` as a function of a name that ``os.path.normcase``
    has made (``pattern`` is translated once)."""
    match = re.compile(fnmatch.translate(os.path.normcase(pattern))).match
    return lambda name: match(name) is not None


def _glob_matches(pattern: str, absolute: str, root: str, is_dir: bool,
                  excludes=None) -> bool:
    """A Ruff-style glob: ``/``-less patterns match any path segment's name, others
    the path relative to ``root`` (or a prefix of it, that is, a directory above);
    ``excludes``: ``Excludes([pattern])``, when the caller has it."""
    if excludes is None:
        from .excludes import Excludes

        excludes = Excludes([pattern])
    rel = os.path.relpath(absolute, root).replace(os.sep, "/")
    if rel.startswith("../"):
        # outside the project: only name patterns apply
        if "/" in pattern.strip("/"):
            return False
        rel = os.path.basename(absolute)
    parts = rel.split("/")
    for i in range(1, len(parts) + 1):
        if excludes.excluded("/".join(parts[:i]), is_dir=is_dir or i < len(parts)):
            return True
    return False


def _longest(code: str, prefixes: Iterable[str]) -> int:
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)


def _ruff_selection(known: Sequence[str], layers: Sequence[Layer],
                    extra_ignore: Sequence[str]) -> List[str]:
    """Ruff's resolution: each layer's ``select`` resets the set; within a layer the
    longer prefix of its selectors and ignores decides, a tie ignores."""
    chosen = {c: c.startswith(DEFAULT_SELECT) for c in known}
    layers = list(layers) + [Layer(extend_ignore=list(extra_ignore))]
    for layer in layers:
        selectors = [*(layer.select or ()), *(layer.extend_select or ())]
        ignores = [*(layer.ignore or ()), *(layer.extend_ignore or ())]
        for code in known:
            if layer.select is not None:
                chosen[code] = False
            sel, ign = _longest(code, selectors), _longest(code, ignores)
            if sel > ign:
                chosen[code] = True
            elif ign >= 0:
                chosen[code] = False
    return [c for c in known if chosen[c]]


def _flake8_selection(known: Sequence[str], layer: Layer,
                      extra_ignore: Sequence[str]) -> List[str]:
    from .select import selected_codes

    return selected_codes(known, layer.select, layer.ignore, layer.extend_select or (),
                          [*(layer.extend_ignore or ()), *extra_ignore])


# ---------------------------------------------------------------------------
# finding and reading the file


def find(start: str) -> Tuple[Optional[str], Optional[str]]:
    """The configuration file that applies in ``start`` and its style, walking up."""
    directory = os.path.abspath(start)
    while True:
        pyproject = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(pyproject) and _has_tool_table(pyproject):
            return pyproject, "torch04"
        for name in FLAKE8_FILES:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate) and _has_flake8_section(candidate):
                return candidate, "flake8"
        parent = os.path.dirname(directory)
        if parent == directory:
            return None, None
        directory = parent


def _has_tool_table(path: str) -> bool:
    with open(path, "rb") as handle:
        data = handle.read()
    if b"torch04" not in data:  # (most pyproject.toml files: no TOML parser needed)
        return False
    return _read_toml(path) is not None


def _has_flake8_section(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return any(re.match(r"\s*\[flake8\]", line) for line in handle)
    except OSError:
        return False


def _toml_module():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - the conditional dependency
        import tomli as tomllib
    return tomllib


def _read_toml(path: str) -> Optional[dict]:
    tomllib = _toml_module()
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None
    table = data.get("tool", {}).get("torch04")
    return table if isinstance(table, dict) else None


def load(path: Optional[str] = None, config: Optional[str] = None,
         isolated: bool = False) -> Settings:
    """The settings for the file or directory ``path`` (default: the current directory).

    The configuration is looked up from ``path``'s directory upwards (see the module's
    docstring), or read from ``config``; ``isolated`` ignores every file.  Raises
    :class:`~flake8_torch04.config.select.UsageError` for an unreadable file, an unknown key
    in ``[tool.torch04]`` or a code that matches no rule.  Then
    ``settings.codes_for(file)`` gives the codes to run on ``file`` and
    ``settings.excluded(file)`` whether the configuration excludes it.
    """
    start = os.getcwd() if path is None else path
    if path is not None and not os.path.isdir(path):
        start = os.path.dirname(os.path.abspath(path))
    if isolated:
        return Settings(os.getcwd() if path is None else start)
    if config is not None:
        if not os.path.isfile(config):
            raise UsageError(f"--config: {config}: no such file")
        style = "torch04" if config.endswith(".toml") else "flake8"
        found: Tuple[Optional[str], Optional[str]] = (config, style)
    else:
        found = find(start)
    file, style = found
    if file is None:
        return Settings(os.getcwd() if path is None else start)
    settings = Settings(os.path.dirname(os.path.abspath(file)), file, style)
    if style == "torch04":
        _apply_tool(settings, file)
    else:
        _apply_flake8(settings, file)
    return settings


def _strings(value, key: str, file: str) -> List[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{file}: [tool.torch04] {key}: expected a list of strings")
    return list(value)


def _apply_tool(settings: Settings, file: str) -> None:
    table = _read_toml(file) or {}
    unknown = [k for k in table if k.replace("_", "-") not in TOOL_KEYS]
    if unknown:
        raise UsageError(f"{file}: [tool.torch04]: unknown key {unknown[0]!r} "
                         f"(known: {', '.join(TOOL_KEYS)})")
    get = {k.replace("_", "-"): v for k, v in table.items()}
    codes = {}
    for key in ("select", "extend-select", "ignore", "extend-ignore"):
        if key in get:
            codes[key] = parse_codes(_strings(get[key], key, file), f"{file}: {key}")
    layer = Layer(codes.get("select"), codes.get("extend-select"), codes.get("ignore"),
                  codes.get("extend-ignore"))
    check_selectors(layer.selectors(), where=file)
    settings.layers.append(layer)
    if "exclude" in get:
        settings.exclude = _strings(get["exclude"], "exclude", file)
    if "extend-exclude" in get:
        settings.extend_exclude = _strings(get["extend-exclude"], "extend-exclude", file)
    pfi = get.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise UsageError(f"{file}: [tool.torch04] per-file-ignores: expected a table")
    for pattern, value in pfi.items():
        codes_ = parse_codes(_strings(value, "per-file-ignores", file),
                             f"{file}: per-file-ignores")
        check_selectors([("per-file-ignores", c) for c in codes_], where=file)
        negated = pattern.startswith("!")
        settings.per_file_ignores.append((pattern[1:] if negated else pattern,
                                          tuple(codes_), negated))
    for key in ("unsafe-fixes", "respect-gitignore"):
        if key in get:
            if not isinstance(get[key], bool):
                raise UsageError(f"{file}: [tool.torch04] {key}: expected true or false")
            setattr(settings, key.replace("-", "_"), get[key])


def _comma_list(value: str) -> List[str]:
    return [v.strip() for v in re.split(r"[,\s]", value) if v.strip()]


def _apply_flake8(settings: Settings, file: str) -> None:
    import configparser

    parser = configparser.RawConfigParser()
    try:
        parser.read(file, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as exc:
        raise UsageError(f"{file}: cannot read: {exc}") from None
    if not parser.has_section("flake8"):
        settings.layers.append(Layer())
        return
    options = {k.replace("_", "-"): v for k, v in parser.items("flake8")}
    layer = Layer()
    for key in ("select", "extend-select", "ignore", "extend-ignore"):
        if key in options:
            codes = [c.upper() for c in _comma_list(options[key])]
            check_selectors([(key, c) for c in codes], where=file, others_allowed=True)
            setattr(layer, key.replace("-", "_"), codes)
    settings.layers.append(layer)
    if "exclude" in options:
        settings.exclude = _flake8_patterns(options["exclude"])
    else:
        # flake8 skips its defaults; torch04's (which include them) stay
        settings.exclude = None
    if "extend-exclude" in options:
        settings.extend_exclude = _flake8_patterns(options["extend-exclude"])
    if "per-file-ignores" in options:
        for pattern, codes in parse_files_to_codes(options["per-file-ignores"], file):
            check_selectors([("per-file-ignores", c) for c in codes], where=file,
                            others_allowed=True)
            settings.per_file_ignores.append((pattern, tuple(codes), False))


def _flake8_patterns(value: str) -> List[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


_TOKEN = re.compile(r"(?P<code>[A-Z]+[0-9]*(?=$|\s|,))|(?P<file>[^\s:,]+)|(?P<colon>:)"
                    r"|(?P<sep>[\s,]+)")


def parse_files_to_codes(value: str, file: str = "") -> List[Tuple[str, List[str]]]:
    """flake8's ``utils.parse_files_to_codes_mapping``: ``pattern: codes`` pairs,
    separated by whitespace or commas, several patterns before one colon allowed."""
    pairs: List[Tuple[str, List[str]]] = []
    filenames: List[str] = []
    codes: List[str] = []
    seen_colon = False

    def flush() -> None:
        if codes:
            for name in filenames:
                pairs.append((name, list(codes)))

    for match in _TOKEN.finditer(value.strip()):
        kind = match.lastgroup
        if kind == "sep":
            continue
        if kind == "colon":
            if not filenames or seen_colon:
                raise UsageError(f"{file}: per-file-ignores: cannot read {value.strip()!r}")
            seen_colon = True
        elif kind == "code" and seen_colon:
            codes.append(match.group())
        else:
            if seen_colon and codes:
                flush()
                filenames, codes, seen_colon = [], [], False
            elif seen_colon:
                raise UsageError(f"{file}: per-file-ignores: cannot read {value.strip()!r}")
            filenames.append(match.group())
    if filenames and not seen_colon:
        raise UsageError(f"{file}: per-file-ignores: cannot read {value.strip()!r}")
    flush()
    return pairs
