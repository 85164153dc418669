"""Whether the code being checked was written for PyTorch 0.3 (or earlier).

Some fixes keep 0.3's numbers only when they know the code is 0.3 code: since
PyTorch 0.4 bilinear upsampling defaults to ``align_corners=False`` while 0.3
computed ``align_corners=True`` (TV124).  Such a rule asks :func:`legacy`, the
one notion of "this is 0.3 code" every rule reads:

1. an explicit setting wins, both ways: :data:`configured_target` (the front
   ends set it from ``target-version = "0.3"`` in the configuration, or
   ``--target-version 0.3``; see :func:`target`).  ``"0.3"`` and lower mean
   0.3 code; ``"0.4"`` and later mean modern code whatever the files say;
2. otherwise evidence in the file itself (:data:`EVIDENCE`: torch's
   ``Variable`` imported or named through ``autograd``, ``volatile=True``,
   ``.data[0]`` read as a number, ``async=True``);
3. otherwise the same evidence in any other module of the same project: the
   ``.py`` files below the project's root (:func:`..project.modules.root_of`,
   the directory above the file's packages; not the directory above that,
   which may hold anyone's scripts, as ``/tmp`` does).  Their text
   is searched with one regular expression, once per process and root, at most
   :data:`MAX_FILES` files of at most :data:`MAX_BYTES` each, stopping at the
   first file that has evidence.  (A long-lived process, the language server,
   keeps the answer for the root.  The file itself, as it is on disk, is one
   of them: a fix that removes ``Variable`` does not make the next round of
   fixes forget that the file was 0.3 code.  A project does not turn from 0.3
   code into modern code while it is being edited; if it does, the setting
   says so.)

Without a file name (standard input) only the setting and the file count.
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

from .context import Context
from .project.modules import applies, project_files, root_of

#: the target version the front end was given (``target-version``), or ``None``.
#: The configuration model and the command line set it (see module docstring);
#: tests may set it and must reset it to ``None``.
configured_target: Optional[str] = None

#: pre-0.4 idioms: text that code written for PyTorch 0.4 or later never holds
EVIDENCE = re.compile(
    r"\bfrom[ \t]+torch\.autograd(?:\.variable)?[ \t]+import[ \t]+[^\n]*\bVariable\b"
    r"|\bautograd\.(?:variable\.)?Variable\b"
    r"|\bvolatile[ \t]*=[ \t]*True\b"
    r"|\.data\[0\](?![ \t]*[\[:.(])"
    r"|\basync[ \t]*=[ \t]*True\b"
)
#: idioms of PyTorch 0.4 and later, for :func:`written_modern`
MODERN = re.compile(
    r"\.item\(\)|\btorch\.no_grad\b|\btorch\.device\b|\btorch\.tensor\(|"
    r"\binference_mode\b|\bnon_blocking[ \t]*=|\breduction[ \t]*=[ \t]*['\"]"
)
#: the rules that report only in 0.3 code (they ask :func:`legacy` or
#: :func:`file_is_legacy`; tests/test_era.py keeps the list true)
ERA_RULES = frozenset(("TV124", "TV133", "TV143", "TV144", "TV145", "TV147", "TV148",
                       "TV152", "TV154", "TV157", "TV163", "TV168"))
#: at most this many project files are read, each at most this many bytes
MAX_FILES = 3000
MAX_BYTES = 1 << 20

_PROJECTS: Dict[str, bool] = {}


def target() -> Optional[bool]:
    """What the setting says: ``True`` for 0.3 code, ``False`` for modern
    code, ``None`` when there is no (readable) setting."""
    given = configured_target
    if not given:
        return None
    match = re.match(r"\s*(\d+)(?:\.(\d+))?", str(given))
    if match is None:
        return None
    major, minor = int(match.group(1)), int(match.group(2) or 0)
    return (major, minor) < (0, 4)


#: :data:`EVIDENCE`'s alternatives, each searched from the word it starts with
#: (a leading ``\\b`` keeps the regex engine from scanning for a literal: some
#: ten times slower), the character before a match tested by hand
_PARTS = tuple(
    (re.compile(part[2:] if part.startswith(r"\b") else part), part.startswith(r"\b"))
    for part in EVIDENCE.pattern.split("|")
)


def file_evidence(text: str) -> bool:
    """Whether ``text`` holds a pre-0.4 idiom (a match of :data:`EVIDENCE`)."""
    for regex, word in _PARTS:
        for match in regex.finditer(text):
            start = match.start()
            if not word or not start or not (text[start - 1].isalnum()
                                             or text[start - 1] == "_"):
                return True
    return False


def legacy(ctx: Context) -> bool:
    """Whether the file being checked is 0.3 code (see the module docstring)."""
    found = ctx.memo.get("era")
    if found is None:
        setting = target()
        if setting is not None:
            found = setting
        else:
            found = file_evidence(ctx.text) or project_is_legacy(ctx.filename)
        ctx.memo["era"] = found
    return found  # type: ignore[return-value]


def file_is_legacy(ctx: Context) -> bool:
    """Whether the setting, or else the file itself, says it is 0.3 code (not the
    rest of its project): for a rule whose fix changes what code written for 0.4
    and later computes, where a project that mixes both (torch's own tests use
    ``Variable``) must not decide for every file."""
    setting = target()
    return setting if setting is not None else file_evidence(ctx.text)


def written_modern(ctx: Context) -> bool:
    """Whether the file itself holds idioms of 0.4 and later (:data:`MODERN`:
    ``.item()``, ``torch.no_grad``...) and none of 0.3: code written for today's
    PyTorch in a project that :func:`legacy` takes for 0.3 code because another of
    its modules is (torch's own source: its legacy tests).  For a rule whose finding
    in such a file would be about 0.3 behaviour the file never relied on (TV168)."""
    return target() is None and not file_evidence(ctx.text) \
        and MODERN.search(ctx.text) is not None


def fixed_as_03(ctx: Context) -> bool:
    """For a rule that reports in any code but fixes 0.3 code its own way (TV130:
    the scheduler's step guarded in place, where TV163 would take a moved one for
    0.3's end-of-epoch step): :func:`file_is_legacy`.  Such a rule is not one of
    :data:`ERA_RULES`, which report only in 0.3 code."""
    return file_is_legacy(ctx)


def project_is_legacy(filename: str) -> bool:
    """Whether another module of ``filename``'s project holds a pre-0.4 idiom."""
    if not applies(filename):
        return False
    path = os.path.abspath(filename)
    if not os.path.isfile(path):
        return False
    root = root_of(path)
    found = _PROJECTS.get(root)
    if found is None:
        found = _PROJECTS[root] = any(_says(p) for p in project_files(root, MAX_FILES))
    return found


def evidence_lost(fixed: Sequence[Tuple[str, str]]) -> List[str]:
    """The project roots of the files ``fixed`` (``(path, text before the fix)``,
    written since) where that text, or the project as it was read in this process,
    held a pre-0.4 idiom and no file on disk holds one any more: a later check,
    in a new process, takes the project for modern code (see the module
    docstring).  Nothing where the setting decides."""
    if target() is not None:
        return []
    before: Dict[str, bool] = {}
    for path, text in fixed:
        if not applies(path):
            continue
        root = root_of(os.path.abspath(path))
        before[root] = before.get(root, False) or _PROJECTS.get(root, False) \
            or file_evidence(text)
    return [root for root, was in before.items()
            if was and not any(_says(p) for p in project_files(root, MAX_FILES))]


def _says(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES)
    except OSError:
        return False
    return file_evidence(data.decode("utf-8", "replace"))
