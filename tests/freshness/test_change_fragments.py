"""A change fragment named in a doc is not a stale file once a release consumed it (issue 25,
held-out15 precision: yarl's AGENTS.md shows "Example (`CHANGES/1654.bugfix.rst` style)"); a deleted
module the same doc names is still reported."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.change_fragments import fragment
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

AGENTS = """# Contributing

Add a fragment (`CHANGES/12.bugfix.rst` style) or `changelog.d/+fix.misc.md`.
Parsing lives in `src/pkg/_parse.py`; the user guide is `docs/usage.rst`.
"""


def test_a_consumed_fragment_is_not_missing_and_a_deleted_module_is(repo_factory):
    root = repo_factory({
        "src/pkg/__init__.py": "",
        "src/pkg/_parse.py": "def parse(s):\n    return s\n",
        "CHANGES/12.bugfix.rst": "Fixed parsing.\n",
        "CHANGES/README.rst": "Fragments go here.\n",
        "changelog.d/+fix.misc.md": "Tidied.\n",
        "docs/usage.rst": "Usage\n=====\n\nCall parse.\n",
        "AGENTS.md": AGENTS,
    }, date=JAN)
    for gone in ("CHANGES/12.bugfix.rst", "changelog.d/+fix.misc.md", "src/pkg/_parse.py", "docs/usage.rst"):
        (root / gone).unlink()
    commit(root, "Release 1.1.0", date=FEB)
    found = sorted((f.path, f.line, f.message.split("`")[1]) for f in check_docs(repo=root).findings)
    assert found == [("AGENTS.md", 4, "src/pkg/_parse.py")]


def test_which_paths_are_fragments():
    assert fragment("CHANGES/1654.bugfix.rst") and fragment("changelog.d/+orphan.misc.md")
    assert fragment("newsfragments/12.feature") and fragment("changes/1654.bugfix.1.rst")
    assert not fragment("CHANGES/README.rst") and not fragment("changelog.d/template.rst")
    assert not fragment("docs/12.feature.rst") and not fragment("docs/changes.rst") and not fragment("12.bugfix.rst")
