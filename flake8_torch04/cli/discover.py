"""Which files to check: walking the paths given, with excludes and .gitignore."""
from __future__ import annotations

import os
import stat
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from ..config.excludes import SOURCE_SUFFIXES, Excludes, forced_out


def discover(
    paths: Sequence[str],
    excludes: Excludes,
    skip: Optional[Callable[[str, bool, bool], bool]] = None,
    force_exclude: bool = False,
    gitignore: bool = False,
    skip_parents: bool = True,
    problems: Optional[List[Tuple[str, str, bool]]] = None,
) -> Iterator[str]:
    """Files to check: named files as given, ``.py``/``.ipynb`` files under directories.

    Walking a directory, a symbolic link whose target lies outside that
    directory is not followed (a fix would rewrite a file elsewhere; black
    does the same), and a directory that cannot be read is not passed over in
    silence: ``(path, reason, is_error)`` of each goes to ``problems`` (the
    link is a note; the directory an error).

    ``excludes`` holds patterns relative to each directory walked (``--exclude``);
    ``skip(path, is_dir, parent)`` says whether the configuration excludes a path
    (``parent``: a directory above a named file, under ``force_exclude``); with
    ``gitignore``, what git ignores (``.gitignore`` files, ``.git/info/exclude``)
    is skipped too.  Files named directly are checked whatever the excludes say,
    unless ``force_exclude`` (what pre-commit, which names every file, needs); then
    a named file is skipped when it, or a directory above it, is excluded (without
    ``skip_parents``, ``skip`` looks at the file alone, as flake8 does).
    """
    seen = set()  # (device, inode): one file under two names is checked once
    ignores = GitIgnore(problems) if gitignore else None

    def dropped(path: str, rel: str, is_dir: bool, parent: bool = False) -> bool:
        return (excludes.excluded(rel, is_dir=is_dir)
                or (skip is not None and (skip_parents or not parent)
                    and skip(path, is_dir, parent))
                or (ignores is not None and ignores.ignored(path, is_dir)))

    for path in paths:
        info = _stat(path) if path != "-" else None
        if info is None or not stat.S_ISDIR(info.st_mode):
            if force_exclude and path != "-" and forced_out(path, dropped):
                continue
            identity = (info.st_dev, info.st_ino) if info is not None else path
            if identity not in seen:
                seen.add(identity)
                yield path  # (one that vanished is reported when it is read)
            continue
        if force_exclude and forced_out(path, dropped, is_dir=True):
            continue
        root = os.path.realpath(path)

        def unreadable(exc: OSError) -> None:
            if problems is not None:
                problems.append((exc.filename or path,
                                 f"cannot read the directory: {exc.strerror or exc}", True))

        for dirpath, dirnames, filenames in os.walk(path, onerror=unreadable):
            rel_dir = os.path.relpath(dirpath, path).replace(os.sep, "/")
            rel_dir = "" if rel_dir == "." else rel_dir + "/"
            dirnames[:] = sorted(
                d for d in dirnames
                if not dropped(os.path.join(dirpath, d), rel_dir + d, True)
            )
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                full = os.path.join(dirpath, name)
                if dropped(full, rel_dir + name, False):
                    continue
                info = _stat(full)  # ``None``: a dangling link
                if info is not None and os.path.islink(full) and not _inside(full, root):
                    if problems is not None:
                        problems.append((full, "skipped: a symbolic link to a file outside "
                                               f"{path}", False))
                    continue
                if info is not None and stat.S_ISREG(info.st_mode):
                    identity = (info.st_dev, info.st_ino)
                    if identity not in seen:
                        seen.add(identity)
                        yield full


def _inside(link: str, root: str) -> bool:
    target = os.path.realpath(link)
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


class GitIgnore:
    """What git ignores: the ``.gitignore`` files from a path's directory up to the top
    of its work tree, and ``.git/info/exclude`` (matched with ``pathspec``, git's own
    rules: the deepest file that says something about a path decides).  Outside a git
    work tree nothing is ignored, as git ignores nothing there."""

    def __init__(self, problems: Optional[List[Tuple[str, str, bool]]] = None) -> None:
        #: directory -> its chain, or ``None`` outside a work tree
        self._chains: dict = {}
        #: where to say, once, that ``pathspec`` is missing (see :func:`discover`)
        self._problems = problems
        self._told = False

    def _read(self, path: str):
        try:
            return _ignore_file(path)
        except ImportError:  # (a broken install: check on, with what git ignores)
            if not self._told and self._problems is not None:
                self._told = True
                self._problems.append((path, "not read: pathspec is not installed (pip install "
                                             "pathspec); what git ignores is checked too", False))
            return None

    def _chain(self, directory: str) -> list:
        """``(directory, spec)`` pairs from ``directory`` up to the top of its work tree."""
        return self._chain_or_none(directory) or []

    def _chain_or_none(self, directory: str) -> Optional[list]:
        if directory in self._chains:
            return self._chains[directory]
        # (each directory's files are read once: its subdirectories' chains share them)
        spec = self._read(os.path.join(directory, ".gitignore"))
        specs: Optional[list] = [(directory, spec)] if spec is not None else []
        if os.path.exists(os.path.join(directory, ".git")):
            spec = self._read(os.path.join(directory, ".git", "info", "exclude"))
            if spec is not None:
                specs.append((directory, spec))
        else:
            parent = os.path.dirname(directory)
            above = self._chain_or_none(parent) if parent != directory else None
            specs = None if above is None else specs + above  # (None: not in a work tree)
        self._chains[directory] = specs
        return specs

    def ignored(self, path: str, is_dir: bool) -> bool:
        absolute = os.path.abspath(path)
        for base, spec in self._chain(os.path.dirname(absolute)):
            rel = os.path.relpath(absolute, base).replace(os.sep, "/")
            result = spec.check_file(rel + "/" if is_dir else rel)
            if result.include is not None:
                return bool(result.include)
        return False


def _ignore_file(path: str):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    import warnings

    import pathspec  # (only where there is a .gitignore)

    with warnings.catch_warnings():  # (``[[:digit:]]``: "Possible nested set")
        warnings.simplefilter("ignore")
        try:
            return pathspec.GitIgnoreSpec.from_lines(lines)
        except Exception:  # a line pathspec cannot read (``[z-a]``): as git, it matches nothing
            return pathspec.GitIgnoreSpec.from_lines(line for line in lines if _readable(line))


def _readable(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except Exception:
        return False
    return True


def _stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(path)
    except OSError:
        return None
