"""A class attribute's default a doc states in prose (issue 25, rule 5): "By default, the linter
calls ``_eval()`` for every segment ... setting ``_works_on_unparsable`` to ``False`` tells it
not to" says the default is not `False`; when a commit makes it `False`, the doc warns, naming
that commit. A field assigned in a class body is a default; a method's local is not; a change to
another value than the one the doc sets, or a paragraph saying nothing happens by default, warns
nothing."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.coded_defaults import code_default
from noface_ctx.freshness.defaults import stated_defaults

BASE = '''"""Rules."""


class BaseRule:
    """A rule."""

    _works_on_unparsable = True
    lint_phase = "main"

    def crawl(self, segment):
        lint_phase = "post"
        return segment, lint_phase
'''
DOC = """Rules
=====

``_works_on_unparsable``
^^^^^^^^^^^^^^^^^^^^^^^^
By default, the linter calls ``_eval()`` for all segments, even unparsable ones.
This causes issues for some rules. If so, setting ``_works_on_unparsable``
to ``False`` tells the linter not to call ``_eval()`` for them.

Setting ``lint_phase`` to ``post`` runs a rule once.
"""


def test_an_opt_out_beside_what_happens_by_default_states_the_default_is_not_that_value():
    stated = [s for s in stated_defaults(Doc("docs/rules.rst", "r", "r", DOC)) if s.not_value]
    assert [(s.names, s.line, s.not_value) for s in stated] == [(("_works_on_unparsable",), 7, "False")]
    assert code_default(BASE, "_works_on_unparsable") == "True"  # a field of a class body
    assert code_default(BASE.replace("    lint_phase = \"main\"\n", ""), "lint_phase") is None  # a method's local


def test_a_class_attribute_default_turned_to_the_value_the_doc_opts_out_with_warns(repo_factory):
    root = repo_factory({"lintkit/__init__.py": "", "lintkit/rules.py": BASE, "docs/rules.rst": DOC},
                        date="2025-01-01T12:00:00+00:00")
    (root / "lintkit/rules.py").write_text(BASE.replace("_works_on_unparsable = True", "_works_on_unparsable = None"))
    commit(root, "unparsable: ask the crawler", date="2025-02-01T12:00:00+00:00")
    assert not check_docs(repo=root).findings  # another value than the one the doc sets: the doc still holds
    (root / "lintkit/rules.py").write_text(BASE.replace("_works_on_unparsable = True", "_works_on_unparsable = False"))
    commit(root, "rules skip unparsable segments by default", date="2025-03-01T12:00:00+00:00")
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/rules.rst", 7)}
    assert "default of `_works_on_unparsable`" in got["docs/rules.rst", 7]
    assert "rules skip unparsable segments by default" in got["docs/rules.rst", 7]
