"""A reStructuredText comment (`.. some text` and its indented body) is not read for references:
no reader of the built docs sees it. Directives, targets, footnotes and substitution definitions
are explicit markup too and keep being read; a comment holding `>>>` prompts is kept (doctest
runners reading the file as text run it)."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.rst_comments import blank_comments

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
CODE = "def current_deadline():\n    return 1\n"
DOC = ("Guide\n=====\n\n.. The outline of this guide\n\n   explain cancel scopes and\n   current_deadline()\n\n"
       "Body text.\n\n.. note::\n\n   Call ``current_deadline()`` to read it.\n")


def test_a_comment_is_not_read_but_a_directive_body_is(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/guide.rst": DOC}, date=JAN)
    (root / "pkg/__init__.py").write_text(CODE.replace("current_deadline", "effective_deadline"))
    commit(root, "rename current_deadline", date=FEB)
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("docs/guide.rst", 13)]


def test_which_explicit_markup_is_a_comment():
    lines = [".. hidden", "   old_name()", "", ".. _target:", ".. note::", "", "   kept", "", ".. |s| replace:: x",
             ".. [1] foot", "", "..", "", "   a block quote", "", "text", ".. in a paragraph", "",
             ".. setup", "", "   >>> import pkg"]
    out = blank_comments(lines)
    assert out[:2] == ["", ""]
    assert out[2:] == lines[2:]
    assert len(out) == len(lines)
