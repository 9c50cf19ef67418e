"""Written defaults of required parameters (`required_defaults`): a signature a doc writes giving a default to a
parameter the code requires is stale, from the commit that wrote it (more-itertools' `.. autofunction:: sample(
iterable, k=1, weights=None)` while the code's `k` is required). Not judged: a default that differs while the
parameter is optional in both, a parameter `*args` / `**kwargs` absorb, overloads, calls written in prose."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.required_defaults import code_parameters, written_signatures

MORE = '''from typing import overload


def sample(iterable, k, weights=None):
    return list(iterable)[:k]


def group(iterable, ordering=None):
    return iterable


def spread(a, *args, **kwargs):
    return a


@overload
def pick(a, k: int) -> int: ...
@overload
def pick(a) -> None: ...
def pick(a, k=None):
    return k


class Window:
    def __init__(self, size, step=1):
        self.size = size
'''
RST = """API
===

.. currentmodule:: pkg

"""


def _day(i: int) -> str:
    return f"2025-02-{1 + i:02d}T12:00:00+00:00"


def _written(repo_factory, doc: str, text: str, code: str = MORE) -> tuple[list[str], str]:
    root = repo_factory({"pkg/__init__.py": "from .more import *\n", "pkg/more.py": code, doc: "API\n===\n"}, date=_day(0))
    (root / doc).write_text(text)
    commit(root, "docs: the API", date=_day(1))
    written = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / doc).write_text(text + "\nMore to come.\n")
    commit(root, "docs: more", date=_day(2))
    return check_docs(repo=root).lines(), written


def test_a_directive_giving_a_required_parameter_a_default_is_stale_since_written(repo_factory):
    got, written = _written(repo_factory, "docs/api.rst", RST + ".. autofunction:: sample(iterable, k=1, weights=None)\n"
                            ".. class:: Window(size=3, step=1)\n")
    assert got == [
        f"docs/api.rst:6: changed-ref: warning: writes a default for `k` of `sample`, which the code (pkg/more.py) "
        f"requires: a call without it raises TypeError; wrong since {written} (2025-02-02, \"docs: the API\")",
        f"docs/api.rst:7: changed-ref: warning: writes a default for `size` of `Window`, which the code (pkg/more.py) "
        f"requires: a call without it raises TypeError; wrong since {written} (2025-02-02, \"docs: the API\")"], got


def test_a_markdown_signature_line_is_read_too(repo_factory):
    got, _written_in = _written(repo_factory, "docs/api.md", "# API\n\n### `sample(iterable, k=1)`\n\nSamples.\n")
    assert [line.split(": changed-ref")[0] for line in got] == ["docs/api.md:3"], got


def test_optional_both_ways_absorbed_overloaded_or_called_is_not_judged(repo_factory):
    text = (RST + ".. function:: group(iterable, ordering=lambda x: x)\n.. function:: spread(a, k=1)\n"
            ".. function:: pick(a, k=1)\n.. function:: sample(iterable, k, weights=3)\n\n"
            "Call ``sample(data, k=3)`` or `sample(data, k=2)` to draw.\n")
    got, _written_in = _written(repo_factory, "docs/api.rst", text)
    assert got == [], got


def test_a_parameter_made_required_after_the_doc_is_blamed_on_that_commit(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from .more import *\n", "pkg/more.py": MORE.replace("k, weights", "k=1, weights"),
                         "docs/api.rst": RST + ".. function:: sample(iterable, k=1, weights=None)\n"}, date=_day(0))
    (root / "pkg/more.py").write_text(MORE)
    commit(root, "sample: k is required", date=_day(1))
    made = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = check_docs(repo=root).lines()
    assert len(got) == 1 and got[0].startswith("docs/api.rst:6: changed-ref") and made in got[0], got


def test_written_signatures_and_code_parameters():
    lines = ".. function:: f(a, \\\n   k=1)\n- `g(x, y=2)` - a helper\nCall `h(x, y=2)` now.\n"
    assert written_signatures(lines, True) == [(1, "f", "", ("k",)), (3, "g", "", ("y",))]
    assert code_parameters(MORE, "pick") is None and code_parameters(MORE, "Window") == [("any", "size", ""), ("any", "step", "1")]
    assert code_parameters(MORE, "Window.__init__") == [("any", "size", ""), ("any", "step", "1")]
    assert code_parameters("@wrap\ndef f(a, k):\n    return a\n", "f") is None
