"""A code-shaped attribute read on a parameter of a function an example defines (a callback the
repository calls with its own object) is a `member` reference: flagged once the repository removed it.
Not: an attribute the example sets itself, one read on `self`, a plain word, one still defined."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.example_attrs import handed_attributes

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
CODE = "class State:\n    def __init__(self):\n        self.idle_for = 0.0\n        self.outcome = None\n"
DOC = """Callbacks
=========

::

    def report(retry_state):
        print(retry_state.idle_for)
        return retry_state.outcome.result()
"""


def test_an_attribute_read_on_a_callbacks_parameter_is_flagged_once_removed(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/cb.rst": DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/__init__.py").write_text(CODE.replace("idle_for", "slept_for"))
    commit(root, "idle_for is slept_for", date=FEB)
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    assert [(p, line) for p, line, _ in got] == [("docs/cb.rst", 7)] and "idle_for" in got[0][2]


def test_what_is_no_handed_attribute():
    block = [(1, "def hook(self, request, state):"), (2, "    self.custom_field = request.my_flag"),
             (3, "    request.user_note = 1"), (4, "    x = request.user_note + state.outcome"),
             (5, "    return state.last_outcome.result()"), (6, "def other():"), (7, "    return request.idle_for")]
    got = [(r.name, r.line, r.kind) for r in handed_attributes(block, set())]
    # `my_flag` a placeholder, `user_note` the example's own (it sets it), `outcome` a plain word, `self`'s aside
    assert got == [("last_outcome", 5, "member"), ("idle_for", 7, "member")]
