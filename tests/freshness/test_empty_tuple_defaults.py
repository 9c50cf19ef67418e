"""An empty tuple written as a default (`bases=()`) is a default, not grouping parentheses around
nothing: `set()` → `()` is a default-only change (no concern of a doc passing the keyword), and
`()` → no default makes the parameter required (a doc calling without it is warned)."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.body_tokens import tokens
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
CODE = "class Unit:\n    def decompose(self, bases=set()):\n        return self\n"
DOC = ("Units\n=====\n\nA unit is reduced with `Unit.decompose() <pkg.core.Unit.decompose>`, limited to some units\n"
       "with the ``bases`` keyword argument.\n")


def _found(root):
    return [(f.path, f.line) for f in check_docs(repo=root).findings]


def test_a_default_changed_to_an_empty_tuple_is_a_default_only_change(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/core.py": CODE, "docs/units.rst": DOC}, date=JAN)
    (root / "pkg/core.py").write_text(CODE.replace("set()", "()"))
    commit(root, "an immutable default", date=FEB)
    assert _found(root) == []


def test_an_empty_tuple_default_dropped_makes_the_parameter_required(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/core.py": CODE.replace("set()", "()"), "docs/units.rst": DOC}, date=JAN)
    (root / "pkg/core.py").write_text(CODE.replace("=set()", ""))
    commit(root, "bases is required", date=FEB)
    assert _found(root) == [("docs/units.rst", 4)]


def test_empty_parentheses_are_kept_grouping_ones_dropped():
    assert tokens("def f(self, x=(), y=set()):") == "def f ( self , x = ( ) , y = set ( ) ) :"
    assert tokens("return (a + b) * (c)") == "return a + b * c"
