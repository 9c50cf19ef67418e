"""A role with a leading dot and a dotted target (`:func:`.sub.compare``) is Sphinx's search by
suffix: it resolves only when a full name (definitions and re-exports) ends with `.sub.compare`,
not when `compare` is defined somewhere; a dropped re-export breaks it."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

API = "def compare(a, b):\n    return a == b\n\n\ndef render(x):\n    return str(x)\n"
INIT = "from .api import compare as compare\nfrom .api import render as render\n"
DOC = """Comparing
=========

Use :func:`.sub.compare` to compare,
or :func:`.compare` alone,
or :func:`.api.compare` through its module;
:func:`.sub.render` renders.
"""


def test_a_dropped_reexport_breaks_a_leading_dot_dotted_role(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/sub/__init__.py": INIT, "pkg/sub/api.py": API,
                         "docs/compare.rst": DOC}, date=JAN)
    (root / "pkg/sub/__init__.py").write_text("from .api import render as render\n")
    commit(root, "stop re-exporting compare from pkg.sub", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/compare.rst", 4)}, got  # `.compare`, `.api.compare` and `.sub.render` still resolve
    assert "`.sub.compare`" in got["docs/compare.rst", 4] and "removed in" in got["docs/compare.rst", 4]


def test_a_leading_dot_role_still_reexported_is_not_flagged(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/sub/__init__.py": INIT, "pkg/sub/api.py": API,
                         "docs/compare.rst": DOC}, date=JAN)
    (root / "pkg/sub/api.py").write_text(API + "\n\ndef extra():\n    return 1\n")
    commit(root, "add extra", date=FEB)
    assert not check_docs(repo=root).findings
