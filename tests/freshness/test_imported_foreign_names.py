"""A name the doc's examples import from the repository (`from pkg import context`) is the
repository's even when it is also another language's well-known name (Go's `context`): a call
on it (`context.get_x()`) is a method reference judged by removal history."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

ENV = '''class Env:
    def configure(self, url=None):
        self.url = url

    def get_x(self):
        return 1

    @classmethod
    def create_proxy(cls, namespace):
        namespace.update({"configure": cls().configure})
'''
CONTEXT = "from pkg.env import Env\n\nEnv.create_proxy(globals())\n"
DOC = """Offline mode
============

In ``env.py``::

    from pkg import context

    context.configure(url="sqlite://")

Later on::

    end = context.get_x()

.. code-block:: go

    ctx := context.Background()
    ctx.get_x()
"""


def test_a_method_removed_is_stale_on_a_name_imported_from_the_repository(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/env.py": ENV, "pkg/context.py": CONTEXT, "main.go": "package main\n",
                         "docs/offline.rst": DOC}, date=JAN)
    (root / "pkg/env.py").write_text(ENV.replace("    def get_x(self):\n        return 1\n\n", ""))
    commit(root, "remove Env.get_x", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/offline.rst", 12)}, got  # configure still defined; the Go block imports nothing
    assert "get_x" in got["docs/offline.rst", 12] and "removed in" in got["docs/offline.rst", 12]


def test_without_the_import_the_foreign_name_stays_foreign(repo_factory):
    doc = DOC.replace("    from pkg import context\n\n", "")
    root = repo_factory({"pkg/__init__.py": "", "pkg/env.py": ENV, "pkg/context.py": CONTEXT, "docs/offline.rst": doc},
                        date=JAN)
    (root / "pkg/env.py").write_text(ENV.replace("    def get_x(self):\n        return 1\n\n", ""))
    commit(root, "remove Env.get_x", date=FEB)
    assert not check_docs(repo=root).findings
