"""A changelog is known by its title or its version headings, whatever its file is called (issue 25,
held-out15 precision: more-itertools' `docs/versions.rst`, "Version History", names removed tools
as every changelog does); a guide about versions, or one "Changed in version" note, stays a doc."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.docs.record_titles import titled_record
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

HISTORY = """===============
Version History
===============

1.1.0
-----

* :func:`pkg.tools.pairwise` was added

1.0.0
-----

* First release
"""

SUPPORTED = """Supported Python versions
=========================

Use :func:`pkg.tools.pairwise` on Python 3.9 and later.

.. versionchanged:: 1.2
   ``pairwise`` takes any iterable.
"""


def test_a_changelog_by_title_is_not_judged_and_a_guide_about_versions_is(repo_factory):
    root = repo_factory({
        "pkg/__init__.py": "",
        "pkg/tools.py": "def pairwise(it):\n    pass\n\n\ndef chunked(it):\n    pass\n",
        "docs/versions.rst": HISTORY,
        "docs/python.rst": SUPPORTED,
        "docs/porting-guide.md": "# Migrating from version 1\n\nReplace `pkg.tools.pairwise` with a loop.\n",
    }, date=JAN)
    (root / "pkg/tools.py").write_text("def chunked(it):\n    pass\n")
    commit(root, "remove pairwise", date=FEB)
    report = check_docs(repo=root)
    assert sorted((f.path, f.code) for f in report.findings) == [
        ("docs/porting-guide.md", "stale-ref"), ("docs/python.rst", "stale-ref")]
    explicit = check_docs(["docs/versions.rst"], repo=root)
    assert not explicit.findings and [p for p, _ in explicit.not_judged] == ["docs/versions.rst"]
    assert "record" in explicit.not_judged[0][1]


def _doc(path: str, text: str) -> Doc:
    return Doc(path=path, slug="x", title="x", text=text)


def test_which_titles_and_headings_make_a_record():
    assert titled_record(_doc("docs/versions.rst", HISTORY))
    assert titled_record(_doc("docs/log.md", "# Changelog\n\nAll notable changes.\n"))
    assert titled_record(_doc("docs/2.0.md", "# What's New in Pkg 2.0\n\nText.\n"))
    assert titled_record(_doc("docs/notes.rst", "Release Notes\n=============\n\nText.\n"))
    assert titled_record(_doc("docs/c.md", "# Changes in 1.4\n\nText.\n"))
    assert titled_record(_doc("docs/c.md", "# Pkg\n\n## [2.1.0] - 2024-01-02\n\n## v2.0 (2023)\n\n## Unreleased\n"))
    assert not titled_record(_doc("docs/python.rst", SUPPORTED))
    assert not titled_record(_doc("docs/m.md", "# Migrating from version 1\n\n## 1.0 to 2.0\n\n## Other steps\n"))
    assert not titled_record(_doc("docs/h.md", "# History\n\nThe shell keeps a command history.\n"))
    assert not titled_record(_doc("docs/t.md", "# Tracking changes\n\nObserve an object's changes.\n"))
    assert not titled_record(_doc("docs/c.md", "```md\n# Changelog\n```\n\n# Writing a changelog entry\n"))
    assert titled_record(_doc("CHANGES.md", "## 1.2.0 (2024-05-01)\n\n## 1.1.0\n\n## 1.0.0\n"))  # no title: sections
    assert not titled_record(_doc(".github/pull_request_template.md", "## Changes\n\n## Checklist\n"))  # a section
    assert not titled_record(_doc("notes.md", "# Proposal\n\n## 2.1 Index classes\n\n## 2.2 Access\n\n## 2.3 API\n"))
