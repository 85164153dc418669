"""Rule documentation, built from the rule docstrings.

The README's rule table and rule sections are generated from here, and a test
fails when they drift: ``python -m flake8_torch04.ruledocs`` rewrites them.
"""
from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable, Optional

from .analysis.registry import Rule, all_rules

SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "Use instead:",
            "## Fix safety")
TABLE_START, TABLE_END = "<!-- rules-table:start -->", "<!-- rules-table:end -->"
DOCS_START, DOCS_END = "<!-- rules-docs:start -->", "<!-- rules-docs:end -->"


#: the distribution whose metadata names the project's home
DISTRIBUTION = "flake8-torch04"
#: the project's home when the installed metadata names none (an editable
#: install made before setup.cfg named it)
HOME = "https://github.com/flake8-torch04/flake8-torch04"
#: labels of ``Project-URL`` entries that name the repository
_HOME_LABELS = ("source", "source code", "repository", "code", "homepage", "home")


def rule_url(code: str) -> str:
    """The URL of rule ``code``'s page, ``docs/rules/TVnnn.md``.

    ``TORCH04_DOCS_URL`` wins: the base URL of the pages (``/TVnnn.md`` is
    appended), or a template in which ``{code}`` is replaced.  Otherwise the
    page in the repository named by the installed package's metadata
    (``Project-URL: Source, ...`` or ``Home-page``), whatever the install kind
    (editable or not), else :data:`HOME`'s: always an https URL.
    """
    base = os.environ.get("TORCH04_DOCS_URL")
    if base:
        if "{code}" in base:
            return base.replace("{code}", code)
        return f"{base.rstrip('/')}/{code}.md"
    return f"{project_home()}/blob/main/docs/rules/{code}.md"


@lru_cache(maxsize=None)
def project_home() -> str:
    """The repository's URL from the installed package's metadata (see :func:`rule_url`)."""
    from importlib import metadata

    try:
        meta = metadata.metadata(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return HOME
    return home_of(meta.get_all("Project-URL") or (), meta.get("Home-page")) or HOME


def home_of(project_urls: Iterable[str], home_page: Optional[str] = None) -> Optional[str]:
    """The https repository URL among ``Project-URL`` entries (``label, url``)
    and ``Home-page``, or ``None``."""
    for entry in project_urls:
        label, _, url = entry.partition(",")
        url = url.strip()
        if label.strip().lower() in _HOME_LABELS and url.startswith("https://"):
            return url.rstrip("/")
    if home_page and home_page.startswith("https://"):
        return home_page.rstrip("/")
    return None


def missing_sections(rule: Rule):
    return [s for s in SECTIONS if s not in rule.doc]


def summary(rule: Rule) -> str:
    """The docstring's first paragraph on one line (a sentence may wrap)."""
    return " ".join(_first_paragraph(rule.doc).split())


def _first_paragraph(doc: str) -> str:
    return doc.strip().split("\n\n", 1)[0]


def fix_summary(rule: Rule) -> str:
    text = section(rule, "## Fix safety")
    safe = bool(re.search(r"\*safe\*", text))
    unsafe = bool(re.search(r"\*unsafe\*", text))
    if safe and unsafe:
        return "safe and unsafe"
    return "safe" if safe else "unsafe" if unsafe else "none"


def section(rule: Rule, heading: str) -> str:
    doc = rule.doc
    start = doc.find(heading)
    if start < 0:
        return ""
    start += len(heading)
    ends = [doc.find(h, start) for h in SECTIONS if doc.find(h, start) >= 0]
    return doc[start:min(ends) if ends else len(doc)].strip()


def explain(rule: Rule) -> str:
    """What ``torch04 explain CODE`` prints: the whole docstring under a title."""
    return f"# {rule.code} ({rule.name})\n\n{rule.doc}\n"


#: what the TV0xx patterns do on PyTorch 2.13 (from RULES.md, measured there);
#: a TV1xx code says it by its group (see :func:`on_current_torch`)
ON_CURRENT_TORCH = {
    "TV001": "dead weight",  # Variable(t) runs and returns t detached: it does nothing
    "TV002": "warns",  # "volatile was removed and now has no effect" (and the graph is kept)
    "TV003": "stops",  # loss.data[0]: IndexError on a 0-dim tensor
    "TV004": "silent",  # changes through .data are hidden from autograd: wrong gradients
    "TV005": "silent",  # type(x) == torch.FloatTensor is always False
    "TV006": "stops",  # add_module('norm.1', m): KeyError
}
#: TV1xx groups: (first code, last code, what they do on current PyTorch)
_GROUPS = ((100, 119, "stops"), (120, 139, "warns"), (140, 159, "silent"))


def on_current_torch(code: str) -> str:
    """``stops``, ``warns``, ``silent`` (or, for TV001, ``dead weight``): what
    the flagged code does on PyTorch 2.13."""
    if code in ON_CURRENT_TORCH:
        return ON_CURRENT_TORCH[code]
    number = int(code[2:])
    for first, last, effect in _GROUPS:
        if first <= number <= last:
            return effect
    return ""


def rule_table(rules: Dict[str, Rule]) -> str:
    rows = ["| Code | Name | What it flags | On 2.13 | Fix |", "|---|---|---|---|---|"]
    for rule in rules.values():
        rows.append(f"| [{rule.code}](#{rule.code.lower()}-{rule.name}) | {rule.name} | "
                    f"{summary(rule)} | {on_current_torch(rule.code)} | {fix_summary(rule)} |")
    return "\n".join(rows)


def rule_docs(rules: Dict[str, Rule]) -> str:
    parts = []
    for rule in rules.values():
        first = _first_paragraph(rule.doc)
        body = rule.doc.strip()[len(first):].strip()
        body = body.replace("## ", "#### ")
        parts.append(f"### {rule.code} {rule.name}\n\n{summary(rule)}\n\n{body}")
    return "\n\n".join(parts)


def render(readme: str) -> str:
    rules = all_rules()
    readme = _between(readme, TABLE_START, TABLE_END, rule_table(rules))
    return _between(readme, DOCS_START, DOCS_END, rule_docs(rules))


def _between(text: str, start: str, end: str, content: str) -> str:
    head, sep, rest = text.partition(start)
    if not sep:
        raise ValueError(f"README has no {start}")
    _, sep, tail = rest.partition(end)
    if not sep:
        raise ValueError(f"README has no {end}")
    return f"{head}{start}\n{content}\n{end}{tail}"


def main(argv=None) -> int:
    path = Path(argv[0] if argv else "README.md")
    text = path.read_text(encoding="utf-8")
    new = render(text)
    if new != text:
        path.write_text(new, encoding="utf-8")
        print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
