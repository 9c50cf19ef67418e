"""A call on a free name an example never assigns (`postgres_dialect.insert_matchers(...)`: an
object the code defines at module level) refers to the method name alone, like a call on an
object of unknown type: stale when this repository defined it, removed it, and nothing defines
it now; a library's call (`np.polyfit`) or one still defined is never a finding."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

BASE = '''"""Dialects: the lexers and grammars of each SQL flavour."""


class Dialect:
    def __init__(self, name, matchers=()):
        self.name = name
        self.matchers = list(matchers)

    def insert_matchers(self, matchers, before):
        at = [m for m in self.matchers].index(before)
        self.matchers[at:at] = matchers

    def copy_as(self, name):
        return Dialect(name, self.matchers)
'''
POSTGRES = '''"""The Postgres dialect."""
from sqlkit.dialects.base import Dialect

postgres_dialect = Dialect("postgres", ["whitespace", "code"]).copy_as("postgres")
postgres_dialect.insert_matchers(["json_operator"], before="code")
'''
DOC = """Writing a dialect
=================

Start from an existing dialect and add the lexer matchers yours needs:

.. code-block:: python

    postgres_dialect.insert_matchers(
        [StringLexer("at", "@", CodeSegment)],
        before="code",
    )
    np.linalg.lstsq(a, b)
    timescale = postgres_dialect.copy_as("timescale")
"""


def test_a_call_on_a_free_lowercase_receiver_is_a_member_reference():
    got = {(r.line, r.name, r.kind) for r in extract_references(Doc("docs/dialect.rst", "d", "d", DOC))}
    assert (8, "insert_matchers", "member") in got
    assert (8, "postgres_dialect.insert_matchers", "method") in got  # as before: a dotted name
    assert not [r for r in got if r[1] == "lstsq"]  # a library's: not code-shaped, and `np` is a library's root


def test_a_method_renamed_everywhere_is_stale_where_a_free_receiver_calls_it(repo_factory):
    root = repo_factory({"sqlkit/__init__.py": "", "sqlkit/dialects/__init__.py": "",
                         "sqlkit/dialects/base.py": BASE, "sqlkit/dialects/postgres.py": POSTGRES,
                         "docs/dialect.rst": DOC}, date=JAN)
    for name, text in (("base.py", BASE), ("postgres.py", POSTGRES)):
        (root / "sqlkit/dialects" / name).write_text(text.replace("insert_matchers", "insert_lexer_matchers"))
    commit(root, "rename Dialect.insert_matchers to insert_lexer_matchers", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/dialect.rst", 8)}  # `copy_as` still defined: no finding
    assert "removed in" in got["docs/dialect.rst", 8] and "insert_lexer_matchers" in got["docs/dialect.rst", 8]


def test_a_literal_span_calling_a_method_on_a_variable_names_the_method(repo_factory):
    # matplotlib's tight layout guide: "you can call ``fig.set_tight_layout(True)``" in prose; the
    # method gone from the code is stale there, ``fig.savefig()`` (kept) and ``np.insert_matchers()``
    # (a library's receiver) are not
    doc = ("# Dialects\n\nCopy one with ``dialect.copy_as('tsql')`` and save it with\n"
           "``dialect.insert_matchers(ms, before)``; ``np.insert_matchers(a)`` is numpy's.\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/dialects.py": BASE, "docs/dialects.md": doc}, date=JAN)
    (root / "pkg/dialects.py").write_text(BASE.replace("def insert_matchers", "def insert_segments"))
    commit(root, "insert_matchers is insert_segments", date=FEB)
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("docs/dialects.md", 4)]
    names = {(r.kind, r.name) for r in extract_references(Doc("docs/dialects.md", "d", "d", doc))}
    assert ("member", "copy_as") in names and ("member", "insert_matchers") in names
