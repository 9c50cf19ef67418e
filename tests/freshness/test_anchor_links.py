"""A link whose URL anchor is a dotted name (Sphinx's anchor of a documented object) references that
name, in any markup (issue 25, held-out15: more-itertools' README links every tool as
`` `split_when <https://.../api.html#more_itertools.split_when>`_ ``); a section's anchor, another
project's object and a URL without an anchor are no references."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
URL = "https://mypkg.readthedocs.io/en/stable/api.html"

README = f"""mypkg
=====

Tools: `split_when <{URL}#mypkg.split_when>`_, `chunked <{URL}#mypkg.chunked>`_.

See `installation <{URL}#installation>`_, `the section <{URL}#mypkg-split-when>`_,
`itertools <https://docs.python.org/3/library/itertools.html#itertools.pairwise>`_ and `home <{URL}>`_.
"""

GUIDE = f"""# Guide

Use [split_when]({URL}#mypkg.chunked) (the text is prose: the anchor decides), or
<a href="api.html#mypkg.windowed">windowed</a>.
"""


def test_a_link_anchored_at_a_removed_name_is_stale_and_other_anchors_are_not(repo_factory):
    root = repo_factory({
        "mypkg/__init__.py": "from mypkg.more import chunked, split_when, windowed\n",
        "mypkg/more.py": "def split_when(it):\n    pass\n\n\ndef chunked(it):\n    pass\n\n\ndef windowed(it):\n    pass\n",
        "README.rst": README,
        "docs/guide.md": GUIDE,
    }, date=JAN)
    (root / "mypkg/more.py").write_text("def split_where(it):\n    pass\n\n\ndef chunked(it):\n    pass\n\n\n"
                                         "def windowed(it):\n    pass\n")
    (root / "mypkg/__init__.py").write_text("from mypkg.more import chunked, split_where, windowed\n")
    commit(root, "rename split_when to split_where", date=FEB)
    findings = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in findings] == [("README.rst", 4, "stale-ref")]
    assert "mypkg.split_when" in findings[0].message and "split_where" in findings[0].message
    assert 'removed in' in findings[0].message and "rename split_when to split_where" in findings[0].message


def test_which_anchors_are_references():
    doc = Doc(path="README.rst", slug="readme", title="readme", text=README)
    assert [(r.name, r.line) for r in extract_references(doc) if r.source == "xref"] == [
        ("mypkg.split_when", 4), ("mypkg.chunked", 4), ("itertools.pairwise", 7)]
    md = Doc(path="docs/guide.md", slug="guide", title="Guide", text=GUIDE)
    assert [r.name for r in extract_references(md) if r.source == "xref"] == ["mypkg.chunked", "mypkg.windowed"]
