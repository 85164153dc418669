"""Rule documentation, built from the rule docstrings.

The README's rule table and rule sections are generated from here, and a test
fails when they drift: ``python -m flake8_torch04.ruledocs`` rewrites them.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict

from .analysis.registry import Rule, all_rules

SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "Use instead:",
            "## Fix safety")
TABLE_START, TABLE_END = "<!-- rules-table:start -->", "<!-- rules-table:end -->"
DOCS_START, DOCS_END = "<!-- rules-docs:start -->", "<!-- rules-docs:end -->"


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
