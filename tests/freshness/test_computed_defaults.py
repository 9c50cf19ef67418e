"""A default built by a factory is "computed" (issue 25, rule 5): `attrs.Factory(lambda: ...)`,
`field(default_factory=lambda: ...)` and a lambda compute it; a change between computed and a literal is a default
change for a sentence naming the class or its field and "default", one computed default for another is none."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.fallback_defaults import field_default

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CLOCK = "import random\n\n\nclass SystemClock:\n    offset = 5.0\n\n    def current_time(self):\n        return self.offset\n"
DOC = ("Clocks\n======\n\nBy default, a :class:`pkg.clock.SystemClock` adds a large ``offset`` to the time,\n"
       "to catch code comparing it with other clocks.\n")
OTHER = "Clocks\n======\n\nA :class:`pkg.clock.SystemClock` reads the time; set its ``offset`` to shift it.\n"


def test_factories_and_lambdas_compute_their_default():
    assert field_default("attrs.Factory(lambda:random.uniform(10000,200000))") == "computed"
    assert field_default("Factory(list)") == "[]"
    assert field_default("field(default_factory=lambda:[1])") == "computed"
    assert field_default("field(default_factory=make)") == "make()"
    assert field_default("lambda:0") == "computed"
    assert field_default("0.0") == "0.0"


def _found(repo_factory, old: str, new: str) -> set[tuple[str, str]]:
    root = repo_factory({"pkg/__init__.py": "", "pkg/clock.py": CLOCK.replace("5.0", old), "docs/clock.rst": DOC,
                         "docs/other.rst": OTHER}, date=JAN)
    (root / "pkg/clock.py").write_text(CLOCK.replace("5.0", new))
    commit(root, "clock offset", date=FEB)
    return {(f.path, f.code) for f in check_docs(repo=root).findings}


def test_a_sentence_naming_a_class_and_its_field_by_default_is_warned_when_the_field_default_changed(repo_factory):
    assert _found(repo_factory, "5.0", "0.0") == {("docs/clock.rst", "changed-ref")}  # not the doc saying no "default"


def test_a_computed_default_made_a_literal_is_a_change(repo_factory):
    assert _found(repo_factory, "lambda: random.uniform(1, 2)", "0.0") == {("docs/clock.rst", "changed-ref")}


def test_one_computed_default_for_another_is_no_change(repo_factory):
    assert _found(repo_factory, "lambda: random.uniform(1, 2)", "lambda: random.uniform(3, 4)") == set()
