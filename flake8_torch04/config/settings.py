"""The one configuration model of flake8-torch04: which codes to report for a file,
which files to skip, which fixes to apply, and where each of those came from.

Every front end reads it here: the ``torch04`` command (``cli/command.py``), the
pre-commit hooks (which run that command), the language server
(``server.settings_for``) and the pylint plugin (``pylint.py``).  The flake8 plugin
is configured by flake8 itself, from the same ``[flake8]`` sections, with the same
machinery this module borrows from flake8 (below)::

    resolver = settings.Resolver(config=None, isolated=False, cli=None)
    one = resolver.for_path("pkg/model.py")      # the Settings that govern that file
    if not one.excluded("pkg/model.py"):
        codes = one.codes_for("pkg/model.py")     # a tuple of rule codes to run
    one.unsafe_fixes, one.target_version, one.fixable_codes()
    one.describe()                                # what --show-settings prints

``load(path)`` is ``Resolver().for_path(path)``.  A configuration that cannot be used
raises :class:`~flake8_torch04.config.select.UsageError` naming the file and key.

Which configuration governs a file
----------------------------------

1. ``--isolated``: none.  ``--config FILE``: that file, for every file (a
   ``pyproject.toml`` read for ``[tool.torch04]``, any other for ``[flake8]``).
2. Otherwise, as Ruff does, the ``pyproject.toml`` with a ``[tool.torch04]`` table
   closest to the file (walking up from its directory) governs it: a nested
   ``sub/pyproject.toml`` governs ``sub/`` and everything under it.
3. ``[flake8]`` (``setup.cfg``, ``tox.ini``, ``.flake8``) is found as flake8 finds
   it: walking up from the current directory (flake8's own
   ``options.config._find_config_file``).  It governs a file when no
   ``[tool.torch04]`` table lies closer to the file (a tie: ``[tool.torch04]``).

``[tool.torch04]`` keys (Ruff's names and semantics): ``select`` (replaces the
default, every ``TV`` code), ``extend-select``, ``ignore``, ``extend-ignore``,
``per-file-ignores`` (a table: glob -> codes; ``!glob`` negates), ``exclude``
(replaces the default excludes), ``extend-exclude``, ``unsafe-fixes``,
``respect-gitignore`` (booleans), ``fixable``, ``unfixable``, ``extend-fixable``
(codes whose fixes ``--fix`` may apply; default every code, ``unfixable`` wins) and
``target-version`` (``"0.3"``, ``"0.4"``, ...: the PyTorch version the code was
written for; unset by default).  Patterns are relative to the ``pyproject.toml``'s
directory; a pattern without ``/`` matches a name at any depth.  Command-line
options form a second layer: ``--select`` replaces the selection,
``--extend-select``/``--ignore`` adjust it; a code both selected and ignored goes to
the longer prefix, a tie ignores.

``[flake8]`` is read by flake8's own option machinery (``flake8.options.config``,
``flake8.options.aggregator``, ``flake8.style_guide``), so ``select``, ``ignore``,
``extend-select``, ``extend-ignore``, ``per-file-ignores``, ``exclude`` and
``extend-exclude`` mean exactly what they mean to flake8 7: ``exclude`` patterns
are made absolute from the configuration's directory, ``per-file-ignores``
patterns from the *current* directory (flake8's ``normalize_path(parent=os.curdir)``),
and a command-line ``--select``/``--ignore``/``--extend-*`` replaces the file's value
of that option.  Codes of other plugins are allowed (and ignored).  Without an
``exclude`` in the section, torch04's default excludes stay (a superset of
flake8's: ``.venv``, ``build``, ...).  ``target-version`` and the ``fixable`` keys
are read from ``[flake8]`` too (flake8 ignores them).

``settings.target_version`` is what rules read to know "this project is 0.3 code"
(``None``: not said; then each rule decides from the file alone).
"""
from __future__ import annotations

import os
import re
import sys
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .select import DEFAULT_IGNORE, DEFAULT_SELECT, UsageError, check_selectors, parse_codes

FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")
FIX_KEYS = ("fixable", "unfixable", "extend-fixable")
TOOL_KEYS = ("select", "extend-select", "ignore", "extend-ignore", "exclude",
             "extend-exclude", "per-file-ignores", "unsafe-fixes", "respect-gitignore",
             "target-version") + FIX_KEYS
FLAKE8_KEYS = ("select", "extend-select", "ignore", "extend-ignore", "exclude",
               "extend-exclude", "per-file-ignores")
_VERSION = re.compile(r"\d+\.\d+\Z")


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


class CommandLine:
    """The command line's settings (``None``: not given), applied over each file's."""

    def __init__(self, layer: Optional[Layer] = None, unsafe_fixes=None,
                 respect_gitignore=None, target_version=None, fixable=None,
                 unfixable=None, extend_fixable=None) -> None:
        self.layer = layer or Layer()
        self.unsafe_fixes: Optional[bool] = unsafe_fixes
        self.respect_gitignore: Optional[bool] = respect_gitignore
        self.target_version: Optional[str] = target_version
        self.fixable: Optional[List[str]] = fixable
        self.unfixable: Optional[List[str]] = unfixable
        self.extend_fixable: Optional[List[str]] = extend_fixable


def check_version(value, where: str) -> str:
    if not isinstance(value, str) or not _VERSION.match(value.strip()):
        raise UsageError(f"{where}: target-version: expected a PyTorch version such as "
                         f"\"0.3\" or \"0.4\", got {value!r}")
    return value.strip()


class Settings:
    """The configuration that governs some files (see the module's docstring).

    ``path`` is the configuration file (``None``: defaults only), ``root`` the
    directory its patterns are relative to, ``style`` ``"torch04"``, ``"flake8"`` or
    ``None``.  :meth:`codes_for` and :meth:`excluded` answer for one file;
    ``origins`` says where each setting came from (for ``--show-settings``).
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
        #: the PyTorch version the code was written for ("0.3"); None: not said
        self.target_version: Optional[str] = None
        self.fixable: Optional[List[str]] = None
        self.unfixable: List[str] = []
        self.extend_fixable: List[str] = []
        self.origins: Dict[str, str] = {}
        #: ``[flake8]``: flake8's options and style guides (see :class:`_Flake8`)
        self.flake8: Optional["_Flake8"] = None
        self._codes: Optional[Tuple[str, ...]] = None
        self._by_ignores: Dict[Tuple[str, ...], Tuple[str, ...]] = {}

    def _origin(self, key: str) -> str:
        section = "tool.torch04" if self.style == "torch04" else "flake8"
        return f"{_shown(self.path)} [{section}] {key}"

    # -- selection ---------------------------------------------------------

    def add_layer(self, layer: Layer) -> None:
        """Command-line options over the file's (``[flake8]``: given to flake8 when
        the section is read, see :func:`_read_flake8`; without a file: the only layer)."""
        if self.style == "flake8":
            raise ValueError("[flake8] settings take the command line when read")
        for key, _ in layer.selectors():
            self.origins[key] = "command line"
        self.layers.append(layer)
        self._codes = None
        self._by_ignores.clear()

    def apply(self, cli: CommandLine) -> None:
        """The command line's values over this file's (``--unsafe-fixes`` ...)."""
        for key in ("unsafe_fixes", "respect_gitignore", "target_version", "fixable",
                    "unfixable", "extend_fixable"):
            value = getattr(cli, key)
            if value is not None:
                setattr(self, key, value)
                self.origins[key.replace("_", "-")] = f"--{key.replace('_', '-')}"

    def codes(self, extra_ignore: Sequence[str] = ()) -> Tuple[str, ...]:
        """The codes selected for every file (without per-file ignores)."""
        key = tuple(extra_ignore)
        if not key and self._codes is not None:
            return self._codes
        if key in self._by_ignores:
            return self._by_ignores[key]
        from ..analysis.registry import gates

        known = list(gates())
        if self.flake8 is not None:
            chosen = self.flake8.codes(known, None)
        elif self.style == "torch04":
            chosen = tuple(_ruff_selection(known, self.layers, extra_ignore))
        else:
            layer = self.layers[-1] if self.layers else Layer()
            chosen = tuple(_flake8_selection(known, layer, extra_ignore))
        if key:
            self._by_ignores[key] = chosen
        else:
            self._codes = chosen
        return chosen

    def codes_for(self, path: str) -> Tuple[str, ...]:
        """The codes to report in the file at ``path`` (``per-file-ignores`` applied)."""
        if self.flake8 is not None:
            from ..analysis.registry import gates

            return self.flake8.codes(list(gates()), path)
        ignored: List[str] = []
        for pattern, codes, negated in self.per_file_ignores:
            if self._matches(pattern, path) != negated:
                ignored.extend(codes)
        if not ignored:
            return self.codes()
        return tuple(c for c in self.codes() if not c.startswith(tuple(ignored)))

    def fixable_codes(self) -> Tuple[str, ...]:
        """The codes whose fixes ``--fix`` may apply (Ruff's ``fixable`` minus
        ``unfixable``; ``extend-fixable`` adds to ``fixable``)."""
        from ..analysis.registry import gates

        fixable = [*(self.fixable if self.fixable is not None else DEFAULT_SELECT),
                   *self.extend_fixable]
        return tuple(c for c in gates() if c.startswith(tuple(fixable))
                     and not c.startswith(tuple(self.unfixable)))

    # -- files -------------------------------------------------------------

    def exclude_patterns(self) -> List[str]:
        from .excludes import DEFAULT_EXCLUDES

        base = self.exclude if self.exclude is not None else list(DEFAULT_EXCLUDES)
        return base + self.extend_exclude

    def excluded(self, path: str, is_dir: bool = False) -> bool:
        """Whether ``path`` (a file, or a directory with ``is_dir``) matches an exclude."""
        if self.flake8 is not None:
            from .excludes import DEFAULT_EXCLUDES, Excludes

            if self.exclude is None and Excludes(DEFAULT_EXCLUDES).excluded(
                    os.path.basename(os.path.abspath(path)), is_dir):
                return True
            return self.flake8.excluded(path, self.flake8.exclude + self.flake8.extend_exclude)
        return self.matcher(self.exclude_patterns())(path, is_dir)

    def skip(self, replaced: bool):
        """``(path, is_dir, parent) -> bool``: whether this configuration's excludes
        skip a path (``replaced``: ``--exclude`` replaced the ``exclude`` key; the
        defaults are then the command's).  flake8 matches a file it is named by the
        file's own name and path, never a directory above it (``parent``)."""
        if self.flake8 is not None:
            flake8 = self.flake8
            patterns = ([] if replaced else flake8.exclude) + flake8.extend_exclude
            return lambda path, is_dir, parent=False: (
                not parent and bool(patterns) and flake8.excluded(path, patterns))
        patterns = ([] if replaced else self.exclude or []) + self.extend_exclude
        match = self.matcher(patterns) if patterns else None
        return lambda path, is_dir, parent=False: match is not None and match(path, is_dir)

    def matcher(self, patterns: Sequence[str]):
        """``(path, is_dir) -> bool``: whether a path matches one of ``patterns``
        (Ruff's globs, relative to :attr:`root`), as :meth:`_matches` reads each (what
        does not depend on the path is worked out once: a walk asks for every path)."""
        from .excludes import Excludes

        globs = [(p, Excludes([p])) for p in patterns]

        def matches(path: str, is_dir: bool = False) -> bool:
            absolute = os.path.abspath(path)
            return any(_glob_matches(p, absolute, self.root, is_dir, excludes)
                       for p, excludes in globs)
        return matches

    def _matches(self, pattern: str, path: str, is_dir: bool = False) -> bool:
        return _glob_matches(pattern, os.path.abspath(path), self.root, is_dir)

    # -- what --show-settings prints ------------------------------------------

    def describe(self, path: Optional[str] = None) -> List[str]:
        """``key = value  # where it came from`` lines, for ``--show-settings``."""
        def line(key: str, value) -> str:
            origin = self.origins.get(key, "default")
            return f"{key} = {value!r}  # {origin}"

        out = [f"configuration = {_shown(self.path)!r}  # "
               + (f"[{'tool.torch04' if self.style == 'torch04' else 'flake8'}]"
                  if self.path else "none found (defaults)"),
               f"root = {_shown(self.root)!r}"]
        if path is not None:
            out.append(line("codes", ",".join(self.codes_for(path)) or "(none)")
                       .replace("# default", "# select/ignore/per-file-ignores"))
            out.append(f"excluded = {self.excluded(path)!r}")
        if self.flake8 is not None:
            for key in FLAKE8_KEYS:
                value = self.flake8.value(key)
                if key == "exclude" and key not in self.flake8.in_file:
                    value = "(default)"  # (torch04's, not flake8's: see the docstring)
                out.append(line(key, value))
        else:
            sources = ([_shown(self.path)] if self.path else []) + ["command line"]
            for layer, source in zip(self.layers, sources):
                for key, code in layer.selectors():
                    out.append(f"{key} += {code!r}  # {source}")
            out.append(line("per-file-ignores", [(("!" if n else "") + p, list(c))
                                                 for p, c, n in self.per_file_ignores]))
            out.append(line("exclude", self.exclude_patterns()[:len(self.exclude)]
                            if self.exclude is not None else "(default)"))
            out.append(line("extend-exclude", self.extend_exclude))
        for key in ("unsafe-fixes", "respect-gitignore", "target-version"):
            out.append(line(key, getattr(self, key.replace("-", "_"))))
        out.append(line("fixable", self.fixable if self.fixable is not None else ["TV"]))
        out.append(line("unfixable", self.unfixable))
        out.append(line("extend-fixable", self.extend_fixable))
        return out


def _shown(path: Optional[str]) -> Optional[str]:
    """``path`` relative to the current directory when it lies under it."""
    if path is None:
        return None
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


class _Flake8:
    """A ``[flake8]`` section read by flake8 7's own machinery: its option manager
    (flake8's default options, ``TV`` added to the default select as the plugin's
    registration adds it), ``aggregate_options`` (the file's values, then the command
    line's), and a ``StyleGuideManager`` whose style guides (one a
    ``per-file-ignores`` pattern) decide each code for each file."""

    def __init__(self, file: Optional[str], argv: Sequence[str]) -> None:
        import logging

        import flake8
        from flake8.main import options as main_options
        from flake8.options import aggregator, config, manager
        from flake8.style_guide import StyleGuideManager

        option_manager = manager.OptionManager(
            version=flake8.__version__, plugin_versions="", parents=[],
            formatter_names=["default"])
        main_options.register_default_options(option_manager)
        option_manager.extend_default_select(list(DEFAULT_SELECT))
        option_manager.extend_default_ignore(list(DEFAULT_IGNORE))
        try:
            cfg, cfg_dir = config.load_config(file, [], isolated=file is None)
            self.in_file = {key.replace("_", "-"): value for key, value in
                            config.parse_config(option_manager, cfg, cfg_dir).items()}
            self.options = aggregator.aggregate_options(option_manager, cfg, cfg_dir,
                                                        list(argv))
        except (ValueError, flake8.exceptions.ExecutionError) as exc:
            raise UsageError(f"{file}: {exc}") from None
        except SystemExit:  # (argparse, on a value it cannot read)
            raise UsageError(f"{file}: [flake8] cannot be read") from None
        self.file = file
        self.argv = list(argv)
        try:
            self.manager = StyleGuideManager(self.options, None)  # (formatter: unused)
        except (ValueError, flake8.exceptions.ExecutionError) as exc:
            raise UsageError(f"{file}: {exc}") from None
        self.logger = logging.getLogger(__name__)
        self.exclude: List[str] = list(self.options.exclude or []) \
            if "exclude" in self.in_file else []
        self.extend_exclude: List[str] = list(self.options.extend_exclude or [])
        self._codes: Dict[object, Tuple[str, ...]] = {}

    def codes(self, known: Sequence[str], path: Optional[str]) -> Tuple[str, ...]:
        from flake8.style_guide import Decision

        guide = self.manager.default_style_guide if path is None else \
            self.manager.style_guide_for(path)
        chosen = self._codes.get(id(guide))
        if chosen is None:
            chosen = tuple(c for c in known
                           if guide.decider.decision_for(c) is Decision.Selected)
            self._codes[id(guide)] = chosen
        return chosen

    def excluded(self, path: str, patterns: Sequence[str]) -> bool:
        from flake8.utils import matches_filename

        return matches_filename(path, patterns, "%(path)s", self.logger)

    def value(self, key: str):
        return getattr(self.options, key.replace("-", "_"), None)

    def origin(self, key: str) -> Optional[str]:
        flag = f"--{key}"
        if any(a == flag or a.startswith(flag + "=") for a in self.argv):
            return "command line"
        return "file" if key in self.in_file else None


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
    chosen = {c: c.startswith(DEFAULT_SELECT) and not c.startswith(DEFAULT_IGNORE)
              for c in known}
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
# which configuration governs a file


class Resolver:
    """The settings of each file of a run (see the module's docstring): built once
    per configuration file, looked up once per directory.

    ``cwd`` is where flake8 would run (its ``[flake8]`` file is found from there, and
    its ``per-file-ignores`` are relative to the process's current directory);
    ``cli`` the command line's settings."""

    def __init__(self, config: Optional[str] = None, isolated: bool = False,
                 cli: Optional[CommandLine] = None, cwd: Optional[str] = None) -> None:
        self.config = config
        self.isolated = isolated
        self.cli = cli or CommandLine()
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self._by_file: Dict[Optional[str], Settings] = {}
        self._by_dir: Dict[str, Settings] = {}
        self._tool: Dict[str, Optional[str]] = {}
        self._flake8_file: Optional[Tuple[Optional[str]]] = None
        if config is not None and not os.path.isfile(config):
            raise UsageError(f"--config: {config}: no such file")

    def for_path(self, path: Optional[str] = None) -> Settings:
        """The settings that govern ``path`` (a file or a directory; default: ``cwd``)."""
        if path is None or path == "-":
            directory = self.cwd
        else:
            absolute = os.path.abspath(path)
            directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        found = self._by_dir.get(directory)
        if found is None:
            found = self._by_dir[directory] = self._settings(*self._governing(directory))
        return found

    def _governing(self, directory: str) -> Tuple[Optional[str], Optional[str]]:
        if self.isolated:
            return None, None
        if self.config is not None:
            return self.config, "torch04" if self.config.endswith(".toml") else "flake8"
        tool = self._closest_tool(directory)
        flake8 = self.flake8_file()
        if flake8 is not None and (tool is None or _depth(flake8, directory)
                                   > _depth(tool, directory)):
            return flake8, "flake8"
        if tool is not None:
            return tool, "torch04"
        return None, None

    def _closest_tool(self, directory: str) -> Optional[str]:
        if directory in self._tool:
            return self._tool[directory]
        pyproject = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(pyproject) and _has_tool_table(pyproject):
            found: Optional[str] = pyproject
        else:
            parent = os.path.dirname(directory)
            found = None if parent == directory else self._closest_tool(parent)
        self._tool[directory] = found
        return found

    def flake8_file(self) -> Optional[str]:
        """The ``[flake8]`` file flake8 run in ``cwd`` reads (flake8's own search)."""
        if self._flake8_file is None:
            found = None
            if _any_flake8_text(self.cwd):  # (else flake8's search would find nothing)
                from flake8.options.config import _find_config_file

                found = _find_config_file(self.cwd)
            self._flake8_file = (os.path.abspath(found) if found else None,)
        return self._flake8_file[0]

    def _settings(self, file: Optional[str], style: Optional[str]) -> Settings:
        settings = self._by_file.get(file)
        if settings is not None:
            return settings
        if file is None:
            settings = Settings(self.cwd)
            settings.add_layer(self.cli.layer)
        else:
            settings = Settings(os.path.dirname(os.path.abspath(file)), file, style)
            if style == "torch04":
                _apply_tool(settings, file)
                settings.add_layer(self.cli.layer)
            else:
                _read_flake8(settings, file, self.cli.layer)
        settings.apply(self.cli)
        self._by_file[file] = settings
        return settings

    def excluded(self, path: str, is_dir: bool = False) -> bool:
        return self.for_path(os.path.dirname(os.path.abspath(path))).excluded(path, is_dir)

    def skip(self, replaced: bool):
        """``(path, is_dir, parent) -> bool`` over every configuration of the run: a
        path is matched by the configuration that governs its directory."""
        skips: Dict[int, object] = {}

        def skip(path: str, is_dir: bool, parent: bool = False) -> bool:
            settings = self.for_path(os.path.dirname(os.path.abspath(path)))
            matcher = skips.get(id(settings))
            if matcher is None:
                matcher = skips[id(settings)] = settings.skip(replaced)
            return matcher(path, is_dir, parent)
        return skip


def _any_flake8_text(directory: str) -> bool:
    """Whether a file flake8 would read, in ``directory`` or above, says ``[flake8``
    at all (a section flake8 takes cannot be written without it)."""
    while True:
        for name in FLAKE8_FILES:
            try:
                with open(os.path.join(directory, name), "rb") as handle:
                    if b"[flake8" in handle.read():
                        return True
            except OSError:
                pass
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def _depth(config: str, directory: str) -> int:
    """How deep the configuration's directory is, when it is ``directory`` or above it
    (-1: elsewhere, so that a configuration above the file wins over it)."""
    base = os.path.dirname(os.path.abspath(config))
    if directory == base or directory.startswith(base.rstrip(os.sep) + os.sep):
        return base.count(os.sep) + (base != os.sep)
    return -1


def find(start: str) -> Tuple[Optional[str], Optional[str]]:
    """The configuration that governs ``start`` (a directory) and its style, with the
    ``[flake8]`` file found from ``start`` too (as for a server's file)."""
    resolver = Resolver(cwd=start)
    return resolver._governing(os.path.abspath(start))


def load(path: Optional[str] = None, config: Optional[str] = None, isolated: bool = False,
         cli: Optional[CommandLine] = None) -> Settings:
    """The settings for the file or directory ``path`` (default: the current directory).

    ``[flake8]`` is found from the current directory when ``path`` lies under it,
    else from ``path``'s directory (a language server started elsewhere).  Raises
    :class:`~flake8_torch04.config.select.UsageError` for an unreadable file, an
    unknown key in ``[tool.torch04]`` or a code that matches no rule.
    """
    return resolver_for(path, config, isolated, cli).for_path(path)


def resolver_for(path: Optional[str] = None, config: Optional[str] = None,
                 isolated: bool = False, cli: Optional[CommandLine] = None) -> Resolver:
    """The :class:`Resolver` that :func:`load` reads ``path``'s settings with."""
    cwd = os.getcwd()
    if path is not None:
        absolute = os.path.abspath(path)
        directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        if not (directory == cwd or directory.startswith(cwd.rstrip(os.sep) + os.sep)):
            cwd = directory
    return Resolver(config, isolated, cli, cwd)


def excluded_file(path: str, resolver: Resolver) -> bool:
    """Whether the configuration excludes the file ``path``, as ``torch04 check
    --force-exclude`` (the pre-commit hook) decides for a file it is named: the
    file or a directory above it matches an exclude (the default list when the
    configuration sets none)."""
    from .excludes import DEFAULT_EXCLUDES, Excludes, forced_out

    defaults = Excludes(DEFAULT_EXCLUDES if resolver.for_path(None).exclude is None else ())
    skip = resolver.skip(replaced=False)

    def dropped(full: str, rel: str, is_dir: bool, parent: bool = False) -> bool:
        return defaults.excluded(rel, is_dir) or skip(full, is_dir, parent)
    return forced_out(path, dropped)


def _read_flake8(settings: Settings, file: str, layer: Layer) -> None:
    """A ``[flake8]`` section, and the command line's codes over it, read by flake8."""
    argv = [f"--{key.replace('_', '-')}={','.join(getattr(layer, key))}"
            for key in ("select", "extend_select", "ignore", "extend_ignore")
            if getattr(layer, key) is not None]
    flake8 = _Flake8(file, argv)
    for key in ("select", "extend-select", "ignore", "extend-ignore"):
        value = flake8.value(key)
        if key in flake8.in_file and value:
            check_selectors([(key, c.upper()) for c in value], where=file,
                            others_allowed=True)
    for _, codes in parse_files_to_codes(flake8.in_file.get("per-file-ignores", ""), file):
        check_selectors([("per-file-ignores", c) for c in codes], where=file,
                        others_allowed=True)
    settings.flake8 = flake8
    settings.exclude = flake8.exclude if "exclude" in flake8.in_file else None
    settings.extend_exclude = flake8.extend_exclude
    for key in FLAKE8_KEYS:
        origin = flake8.origin(key)
        if origin is not None:
            settings.origins[key] = "command line" if origin == "command line" \
                else settings._origin(key)
    _read_flake8_extras(settings, file)


def _read_flake8_extras(settings: Settings, file: str) -> None:
    """``target-version`` and the ``fixable`` keys, which flake8 does not know."""
    import configparser

    parser = configparser.RawConfigParser()
    try:
        parser.read(file, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as exc:
        raise UsageError(f"{file}: cannot read: {exc}") from None
    if not parser.has_section("flake8"):
        return
    options = {k.replace("_", "-"): v for k, v in parser.items("flake8")}
    if "target-version" in options:
        settings.target_version = check_version(options["target-version"], file)
        settings.origins["target-version"] = settings._origin("target-version")
    for key in FIX_KEYS:
        if key in options:
            codes = [c.upper() for c in _comma_list(options[key])]
            check_selectors([(key, c) for c in codes], where=file, others_allowed=True)
            setattr(settings, key.replace("-", "_"), codes)
            settings.origins[key] = settings._origin(key)


# ---------------------------------------------------------------------------
# reading the files


def _has_tool_table(path: str) -> bool:
    with open(path, "rb") as handle:
        data = handle.read()
    if b"torch04" not in data:  # (most pyproject.toml files: no TOML parser needed)
        return False
    return _read_toml(path) is not None


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
    if "target-version" in get:
        settings.target_version = check_version(get["target-version"], file)
    for key in FIX_KEYS:
        if key in get:
            codes_ = parse_codes(_strings(get[key], key, file), f"{file}: {key}")
            check_selectors([(key, c) for c in codes_], where=file)
            setattr(settings, key.replace("-", "_"), codes_)
    for key in get:
        settings.origins[key] = settings._origin(key)


def _comma_list(value: str) -> List[str]:
    return [v.strip() for v in re.split(r"[,\s]", value) if v.strip()]


def parse_files_to_codes(value: str, file: str = "") -> List[Tuple[str, List[str]]]:
    """flake8's own ``utils.parse_files_to_codes_mapping``: ``pattern: codes`` pairs."""
    from flake8.exceptions import ExecutionError
    from flake8.utils import parse_files_to_codes_mapping

    try:
        return [(name, list(codes)) for name, codes in parse_files_to_codes_mapping(value)]
    except (ValueError, ExecutionError):
        raise UsageError(f"{file}: per-file-ignores: cannot read {value.strip()!r}") from None
