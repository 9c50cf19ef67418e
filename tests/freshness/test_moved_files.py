"""A name moved with its file (`git mv httpx/_transports/mock.py httpx/testing.py`, the package's
re-export dropped) gets its new home as the suggestion, though the move's diff adds no `class`
line; a renamed file that no longer defines the name suggests nothing."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

MOCK = ('"""Mock transports."""\nfrom pkg._impl.base import Transport\n\n__all__ = ["MockTransport"]\n\n\n'
        'class MockTransport(Transport):\n    def __init__(self, handler):\n        self.handler = handler\n\n'
        '    def handle(self, request):\n        return self.handler(request)\n')
FILES = {  # httpx's layout: the package star-imports a private package that star-imports the module
    "pkg/__init__.py": 'from pkg._impl import *\n\n__all__ = [\n    "MockTransport",\n    "Transport",\n]\n',
    "pkg/_impl/__init__.py": "from pkg._impl.base import *\nfrom pkg._impl.mock import *\n",
    "pkg/_impl/base.py": '__all__ = ["Transport"]\n\n\nclass Transport:\n    def handle(self, request):\n        raise NotImplementedError\n',
    "pkg/_impl/mock.py": MOCK,
    "docs/testing.md": "# Testing\n\nThe `pkg.MockTransport` class takes a handler function.\n",
}


def _move(root, body: str) -> None:
    git(root, "mv", "pkg/_impl/mock.py", "pkg/testing.py")
    (root / "pkg/testing.py").write_text(body)
    (root / "pkg/_impl/__init__.py").write_text("from pkg._impl.base import *\n")
    (root / "pkg/__init__.py").write_text('from pkg._impl import *\nfrom pkg import testing\n\n__all__ = [\n    "Transport",\n]\n')
    commit(root, "MockTransport moves to pkg.testing", date=FEB)


def test_a_class_moved_with_its_file_suggests_its_new_module(repo_factory):
    root = repo_factory(FILES, date=JAN)
    _move(root, MOCK)
    [finding] = check_docs(repo=root).findings
    assert (finding.path, finding.line) == ("docs/testing.md", 3)
    assert "(moved to `pkg.testing.MockTransport`?)" in finding.message


def test_a_renamed_file_without_the_class_suggests_nothing(repo_factory):
    root = repo_factory(FILES, date=JAN)
    _move(root, '"""Testing helpers."""\n\n\ndef respond(status):\n    return status\n')
    [finding] = check_docs(repo=root).findings
    assert (finding.path, finding.line) == ("docs/testing.md", 3)
    assert "moved to" not in finding.message and "renamed to" not in finding.message
