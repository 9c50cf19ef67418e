"""A name a package stopped re-exporting (its `__init__.py` drops `from .api import compare as
compare`) is flagged where a doc imports or documents it through the package, and the suggestion
is its one remaining full name (`pkg.sub.api.compare`), committed or in the staged edits the
pre-commit hook checks; a name deleted with its re-export, or one the package took from another
package, gets no suggestion."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

API = "def compare(a, b):\n    return a == b\n\n\ndef render(x):\n    return str(x)\n"
INIT = "from .api import compare as compare\nfrom .api import render as render\nfrom os.path import join as join\n"
DOC = """API
===

.. autofunction:: pkg.sub.compare

Use :func:`.sub.compare` to compare two things.

.. autofunction:: pkg.sub.join
"""
GUIDE = "# Guide\n\n```python\nfrom pkg.sub import join\n\njoin('a', 'b')\n```\n"


def _repo(repo_factory):
    return repo_factory({"pkg/__init__.py": "", "pkg/sub/__init__.py": INIT, "pkg/sub/api.py": API,
                         "docs/conf.py": "project = 'x'\n", "docs/api.rst": DOC, "docs/guide.md": GUIDE}, date=JAN)


def _messages(root, *paths):
    return {(f.path, f.line): f.message for f in check_docs(list(paths), repo=root).findings}


def test_a_dropped_reexport_suggests_the_module_that_still_defines_the_name(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/sub/__init__.py").write_text("from .api import render as render\nfrom os.path import join as join\n")
    commit(root, "stop re-exporting compare", date=FEB)
    got = _messages(root)
    assert set(got) == {("docs/api.rst", 4)}, got
    assert "removed in" in got["docs/api.rst", 4] and "(moved to `pkg.sub.api.compare`?)" in got["docs/api.rst", 4]


def test_the_hook_suggests_it_for_a_staged_change(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/sub/__init__.py").write_text("from .api import render as render\nfrom os.path import join as join\n")
    git(root, "add", "-A")
    got = _messages(root, "pkg/sub/__init__.py")
    assert set(got) == {("docs/api.rst", 4)}, got
    assert "uncommitted" in got["docs/api.rst", 4] and "`pkg.sub.api.compare`?" in got["docs/api.rst", 4]


def test_a_name_deleted_with_its_reexport_gets_no_suggestion(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/sub/__init__.py").write_text("from .api import render as render\nfrom os.path import join as join\n")
    (root / "pkg/sub/api.py").write_text("def render(x):\n    return str(x)\n")
    commit(root, "remove compare", date=FEB)
    got = _messages(root)
    assert set(got) == {("docs/api.rst", 4)}, got
    assert "removed in" in got["docs/api.rst", 4] and "?)" not in got["docs/api.rst", 4]


def test_a_name_taken_from_another_package_gets_no_suggestion(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/sub/__init__.py").write_text(INIT.replace("from os.path import join as join\n", ""))
    commit(root, "stop re-exporting os.path.join", date=FEB)
    got = _messages(root)
    assert set(got) == {("docs/api.rst", 8), ("docs/guide.md", 4)}, got
    assert all("removed in" in m and "?)" not in m for m in got.values()), got  # os.path is no module of ours
