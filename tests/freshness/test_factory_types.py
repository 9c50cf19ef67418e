"""An example name assigned from a repository function annotated to return one class of the
repository (`m = moments.now()`, `def now() -> Moment`) is typed by that class: a method renamed
everywhere is stale where the example calls it on the name. Not typed: `-> Optional[Moment]`,
`-> Any`, a builtin, a function of another package, two assignments giving different things."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

MOMENT = '''"""A moment in time."""


class Moment:
    def __init__(self, t):
        self.t = t

    def rewind(self, seconds):
        return Moment(self.t - seconds)
'''

API = '''"""Module-level factories."""
from typing import Any, Optional

from .moment import Moment


def now() -> Moment:
    return Moment(0)


def parse(text) -> "Moment":
    return Moment(int(text))


def maybe(text) -> Optional[Moment]:
    return None


def anything(text) -> Any:
    return Moment(1)


def label(text) -> str:
    return text
'''

INIT = "from .api import now, parse, maybe, anything, label\nfrom .moment import Moment\n"


def _doc(assign: str, second: str = "") -> str:
    return f"""Guide
=====

Rewind a moment::

    >>> m = {assign}
{second}    >>> earlier = m.rewind(5)
"""


DOCS = {
    "docs/now.rst": _doc("moments.now()"),
    "docs/parse.rst": _doc("moments.parse('3')", "    >>> m = moments.now()\n"),
    "docs/mixed.rst": _doc("moments.Moment(4)", "    >>> m = moments.api.now()\n"),
    "docs/optional.rst": _doc("moments.maybe('3')"),
    "docs/any.rst": _doc("moments.anything('3')"),
    "docs/builtin.rst": _doc("moments.label('3')"),
    "docs/other.rst": _doc("arrowlike.now()"),
    "docs/two.rst": _doc("moments.now()", "    >>> m = moments.label('x')\n"),
    "docs/fence.md": "# Guide\n\n```python\nm = moments.now()  # m.rewind in a comment\nm.rewind(5)\n```\n",
}


def test_a_method_renamed_is_stale_on_a_name_a_factory_function_types(repo_factory):
    files = {"moments/__init__.py": INIT, "moments/api.py": API, "moments/moment.py": MOMENT, **DOCS}
    root = repo_factory(files, date=JAN)
    assert not check_docs(repo=root).findings  # everything resolves at first
    (root / "moments/moment.py").write_text(MOMENT.replace("def rewind(", "def step_back("))
    commit(root, "rename Moment.rewind to step_back", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/now.rst", 7), ("docs/parse.rst", 8), ("docs/mixed.rst", 8), ("docs/fence.md", 5)}
    assert all("rename Moment.rewind" in message and "step_back" in message for message in got.values())
