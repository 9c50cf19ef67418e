"""A "by default" sentence about a function states the changed parameter's default only when it
states no value for another parameter (issue 25, rules 5 and 6)."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = "class Expr:\n    def evalf(self, n=15, subs=None, maxn=100):\n        return n, subs, maxn\n"
PRECISION = ("Evaluating\n==========\n\nBy default, 15 digits of precision are used, but you can pass any number\n"
             "as the argument to :func:`~pkg.core.Expr.evalf`.\n")
CAP = "Evaluating\n==========\n\nBy default, :func:`~pkg.core.Expr.evalf` caps its working precision.\n"


def _found(repo_factory, old: str, new: str) -> set[tuple[str, str]]:
    root = repo_factory({"pkg/__init__.py": "", "pkg/core.py": CODE, "docs/precision.rst": PRECISION,
                         "docs/cap.rst": CAP}, date=JAN)
    (root / "pkg/core.py").write_text(CODE.replace(old, new))
    commit(root, f"{old} -> {new}", date=FEB)
    return {(f.path, f.code) for f in check_docs(repo=root).findings}


def test_a_sentence_writing_another_parameters_default_is_not_about_the_changed_one(repo_factory):
    # sympy's tutorial: "By default, 15 digits of precision are used" (`n=15`) is not warned when `maxn`'s default
    # changed; a sentence saying only what evalf does by default is
    assert _found(repo_factory, "maxn=100", "maxn=200") == {("docs/cap.rst", "changed-ref")}


def test_the_same_sentence_is_warned_when_the_parameter_whose_value_it_writes_changed(repo_factory):
    assert _found(repo_factory, "n=15", "n=20") == {("docs/precision.rst", "changed-ref"), ("docs/cap.rst", "changed-ref")}
