"""Folders of prose the default globs would miss: a top-level folder holding two Markdown or
reStructuredText pages at least and nothing else (rich's `questions/*.question.md`; pictures beside them aside, fewer than its pages: an `images/` folder with a README is
none; a lone README is a placeholder's) is a doc folder, read and judged as `docs/` is.
Never one: a hidden or `_`-prefixed folder (`.github/`, `_build/`), a test or fixture folder, a record
folder (release notes, change fragments: `changes/`, `changelog.d/`), a series of numbered proposals or
decisions (scrapy's `sep/sep-014.rst`, `adr/0001-use-x.md`, `peps/`, `rfcs/`) or a folder of design notes
(xarray's `design_notes/`, "Proposal: flexible indexes refactoring"): records of a design when it was
proposed, which rightly name what is gone since (half its pages numbered, or so named), vendored
code, templates, licences, or any folder holding one other file (code, data, a config:
`examples/README.md` beside `examples/demo.py`). A `doc_globs` the user wrote is taken as written (`docs.load.doc_files` asks only
with the default globs)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from noface_ctx._filetypes import RECORD_DIRS

PROSE_EXTS = (".md", ".rst")
_ASSETS = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp")  # a page's pictures
_NEVER = re.compile(r"^(?:[._].*|tests?|testing|fixtures?|test_?data|vendor(?:ed)?|third_?party|node_modules|"
                    r"templates?|licen[cs]es?|docs?|[\w-]*fragments?|[\w.-]*\.d)$", re.I)
_RECORDS = frozenset(d.replace("-", "_").lower() for d in RECORD_DIRS) | {
    "adr", "adrs", "decisions", "proposals", "peps", "seps", "rfcs", "rfc", "enhancements", "keps", "neps",
    "design", "designs", "design_notes", "design_docs"}
_NUMBERED = re.compile(r"^(?:[a-z]+[-_ ]?)?\d{2,}\b|[-_ ]\d{2,}$", re.I)  # `sep-014`, `0001-use-x`, `pep_0008`


def prose_folders(paths: Iterable[str]) -> list[str]:
    """The top-level folders (sorted) whose every file is Markdown or reStructuredText prose, two pages
    at least (pictures aside, fewer than its pages; `docs/` and `doc/` aside: the default globs read them)."""
    pages: dict[str, int] = {}  # folder -> its pages, -1 once it holds another file
    pictures: dict[str, int] = {}
    numbered: dict[str, int] = {}  # folder -> its pages named by a number
    for path in paths:
        top, sep, rest = path.partition("/")
        if not sep or pages.get(top) == -1:
            continue
        lower = rest.lower()
        if lower.endswith(PROSE_EXTS):
            pages[top] = pages.get(top, 0) + 1
            stem = rest.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            numbered[top] = numbered.get(top, 0) + (_NUMBERED.search(stem) is not None)
        elif lower.endswith(_ASSETS):
            pages.setdefault(top, 0)
            pictures[top] = pictures.get(top, 0) + 1
        else:
            pages[top] = -1
    return sorted(top for top, n in pages.items() if n >= 2 and n > pictures.get(top, 0) and not _NEVER.match(top)
                  and top.replace("-", "_").lower() not in _RECORDS and 2 * numbered.get(top, 0) < n)
