"""The default thing a sentence speaks of is the instance the code builds when no other is given (issue 25, rule 5):
"The default clock ... plus a large random offset" speaks of the `offset` field's default of the class `run` builds
when its `clock` is None."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.default_instances import instance_default, instance_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

RUN = '''import random

import attrs


@attrs.frozen
class SystemClock:
    offset: float = attrs.Factory(lambda: random.uniform(10000, 200000))
    resolution: float = 0.001


def run(fn, *, clock=None):
    if clock is None:
        clock = SystemClock()
    return fn(clock)
'''
TIME = ("Time\n====\n\nEvery call to :func:`pkg.core.run` has a clock.\n\n"
        "The default clock is currently implemented as :func:`time.perf_counter`\nplus a large random offset.\n")
VALUE = "Time\n====\n\nEvery call to :func:`pkg.core.run` has a clock. The default value of the offset is random.\n"
BARE = "Time\n====\n\nThe default clock is currently implemented with a large random offset.\n"


def _found(repo_factory, old: str, new: str) -> tuple[set[tuple[str, int, str]], str]:
    root = repo_factory({"pkg/__init__.py": "", "pkg/core.py": RUN, "docs/time.rst": TIME, "docs/value.rst": VALUE,
                         "docs/bare.rst": BARE}, date=JAN)
    (root / "pkg/core.py").write_text(RUN.replace(old, new))
    commit(root, "clock", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert all(head in f.message and "offset" in f.message for f in found)
    return {(f.path, f.line, f.code) for f in found}, head


def test_reading_the_default_instance():
    assert instance_default(RUN, "offset", "clock") == "computed"
    assert instance_default(RUN, "resolution", "clock") == "0.001"
    assert instance_default(RUN, "offset", "timer") is None  # no parameter `timer` falling back to an instance
    assert instance_default(RUN.replace("clock = SystemClock()", "clock = make_clock()"), "offset", "clock") is None
    words = [names[0] for names, _line, _noun in instance_statements(TIME.split("\n"))]
    assert "offset" in words and "perf_counter" not in words and "clock" not in words
    assert instance_statements(VALUE.split("\n")) == []  # "the default value": no thing
    assert instance_statements(BARE.split("\n")) == []  # its section names nothing as code


def test_a_computed_field_made_a_literal_warns_the_sentence_about_the_default_instance(repo_factory):
    got, _ = _found(repo_factory, "attrs.Factory(lambda: random.uniform(10000, 200000))", "0.0")
    assert got == {("docs/time.rst", 6, "changed-ref")}


def test_another_computed_field_is_no_change(repo_factory):
    got, _ = _found(repo_factory, "attrs.Factory(lambda: random.uniform(10000, 200000))", "attrs.Factory(lambda: random.random())")
    assert got == set()
