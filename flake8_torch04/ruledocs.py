"""Rule documentation, built from the rule docstrings.

One page a rule, ``docs/rules/TVnnn.md``, and the README's rule table are generated
from here, and a test fails when they drift: ``python -m flake8_torch04.ruledocs``
rewrites them.  :func:`rule_url` is the page's address that every output able to
carry a link gives (JSON ``url``, SARIF ``helpUri``, the server's
``codeDescription``, ``--output-format full``): the repository's URL from the
package's metadata (``project_urls``/``url`` of setup.cfg; :data:`HOME`
when none is configured) + ``/blob/main/docs/rules/TVnnn.md``.  ``TORCH04_DOCS_URL``
overrides it: the address of the directory of the pages (``TVnnn.md`` is appended),
or a template holding ``{code}``.
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
PAGES = "docs/rules"
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
    """What ``torch04 rule CODE`` prints: the rule's page (``docs/rules/CODE.md``)."""
    return page(rule)


def page(rule: Rule) -> str:
    """The rule's page: the whole docstring under a title, what the flagged code does
    on current PyTorch, the fix's safety, and how to select or silence the rule."""
    return (f"# {rule.code} ({rule.name})\n\n{rule.doc}\n\n"
            f"## On PyTorch 2.13\n\nThe flagged code {_effect(on_current_torch(rule.code))}. "
            f"Fix: {fix_summary(rule)}.\n\n"
            f"Select it with `--select {rule.code}`; silence one line with "
            f"`# noqa: {rule.code}`.\n")


def _effect(effect: str) -> str:
    return {"stops": "stops the program", "warns": "runs with a warning",
            "silent": "runs and silently computes something else",
            "dead weight": "runs and does nothing"}.get(effect, effect)


#: what the TV0xx patterns do on PyTorch 2.13 (from RULES.md, measured there), and
#: the TV1xx codes that their group does not describe; any other TV1xx code says
#: it by its group (see :func:`on_current_torch`)
ON_CURRENT_TORCH = {
    "TV001": "dead weight",  # Variable(t) runs and returns t detached: it does nothing
    "TV002": "warns",  # "volatile was removed and now has no effect" (and the graph is kept)
    "TV003": "stops",  # loss.data[0]: IndexError on a 0-dim tensor
    "TV004": "silent",  # changes through .data are hidden from autograd: wrong gradients
    "TV005": "silent",  # type(x) == torch.FloatTensor is always False
    "TV006": "stops",  # add_module('norm.1', m): KeyError
    # (a TV1xx code outside its group: torchvision, not PyTorch, removed it)
    "TV138": "stops",  # make_grid(x, range=(0, 1)): TypeError on torchvision 0.16+
    "TV146": "warns",  # torch.sparse.FloatTensor(i, v, size): deprecated (the 12x group is full)
    "TV148": "stops",  # samples[:, i] = (N, 1) column: RuntimeError (expand) (the 10x-11x are full)
    "TV149": "stops",  # nn.Linear(n, n / 2) on Python 3: TypeError (the 10x-11x group is full)
    "TV150": "stops",  # a write into an expanded tensor: RuntimeError (index writes warn)
    "TV151": "warns",  # scheduler.step(epoch): deprecated (the 12x-13x group is full)
    "TV153": "stops",  # x.t() of a 3-D tensor: RuntimeError (the 10x-11x group is full)
    "TV155": "stops",  # torch.split(x, split_size=n): TypeError (the 10x-11x group is full)
    "TV156": "warns",  # x.resize(*sizes): deprecated (the 12x-13x group is full)
    "TV158": "stops",  # Adam(betas=(0, 0.9)): ValueError since 2.6 (the 10x-11x group is full)
    "TV159": "stops",  # c and t or d of a tensor t: RuntimeError (the 10x-11x group is full)
    "TV160": "stops",  # a name a torch star import no longer gives: NameError
    "TV161": "stops",  # a cell derived from RNNCellBase without its arguments: TypeError
    "TV162": "stops",  # x.norm(2, 1).expand_as(x): 0.1's kept dimension, RuntimeError now
    "TV163": "silent",  # scheduler.step() after the epoch's training: an epoch early now
    "TV164": "warns",  # np.isnan(t), np.array(t): numpy 2 DeprecationWarning
    "TV165": "warns",  # Fn().apply(x): DeprecationWarning, the Function should not be instantiated
    "TV166": "stops",  # state["step"] = 0 in a SharedAdam: Adam.step raises (state_steps)
    "TV167": "warns",  # torch.ByteStorage.from_buffer(b): TypedStorage is deprecated
    "TV170": "stops",  # pack_padded_sequence(x, np.sort(l)[::-1]): negative strides, ValueError
    "TV169": "stops",  # loader.batch_size = 1: ValueError, set after DataLoader is initialized
    "TV168": "stops",  # mask.nonzero().squeeze(): 0-dim for one match, IndexError after
    "TV173": "stops",  # autograd.grad in a Function's backward: no graph, RuntimeError
    "TV172": "stops",  # data, batch_sizes = packed: ValueError, too many values to unpack
    "TV171": "stops",  # torch.dot(a, b) of n-D tensors: RuntimeError, 1D tensors expected
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


def rule_table(rules: Dict[str, Rule], link: str = PAGES) -> str:
    rows = ["| Code | Name | What it flags | On 2.13 | Fix |", "|---|---|---|---|---|"]
    for rule in rules.values():
        rows.append(f"| [{rule.code}]({link}/{rule.code}.md) | {rule.name} | "
                    f"{summary(rule)} | {on_current_torch(rule.code)} | {fix_summary(rule)} |")
    return "\n".join(rows)


def render(readme: str) -> str:
    return _between(readme, TABLE_START, TABLE_END, rule_table(all_rules()))


def index() -> str:
    """``docs/rules/README.md``: the table of every rule, linking its page."""
    return ("# Rules\n\nOne page a rule, generated from the rule's docstring by "
            "`python -m flake8_torch04.ruledocs`; `torch04 rule CODE` prints the same page."
            "\n\n" + rule_table(all_rules(), link=".") + "\n")


def pages() -> Dict[str, str]:
    """Every generated file under ``docs/rules``: name -> text."""
    out = {f"{code}.md": page(rule) for code, rule in all_rules().items()}
    out["README.md"] = index()
    return out


def _between(text: str, start: str, end: str, content: str) -> str:
    head, sep, rest = text.partition(start)
    if not sep:
        raise ValueError(f"README has no {start}")
    _, sep, tail = rest.partition(end)
    if not sep:
        raise ValueError(f"README has no {end}")
    return f"{head}{start}\n{content}\n{end}{tail}"


def stale(root: Path) -> Dict[str, Optional[str]]:
    """The generated files that differ from what is on disk under ``root``: path ->
    the text to write (``None``: a page of no rule, to delete)."""
    out: Dict[str, Optional[str]] = {}
    directory = root / PAGES
    wanted = pages()
    for name, text in wanted.items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            out[f"{PAGES}/{name}"] = text
    if directory.is_dir():
        for path in directory.glob("*.md"):
            if path.name not in wanted:
                out[f"{PAGES}/{path.name}"] = None
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8")
    if render(text) != text:
        out["README.md"] = render(text)
    return out


def main(argv=None) -> int:
    root = Path(argv[0] if argv else ".")
    for name, text in stale(root).items():
        path = root / name
        if text is None:
            path.unlink()
            print(f"removed {path}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
