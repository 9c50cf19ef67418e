"""`.. automodule:: pkg.mod` (and MyST's ```{automodule}```) documents the module itself: a
reference to it, so a module moved or removed since is flagged, with the new module suggested
(held-out10's webargs `multidictproxy` → `multidict`)."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

PROXY = "class MultiDictProxy:\n    def get(self, key):\n        return key\n"
FILES = {"pkg/__init__.py": "", "pkg/core.py": "def parse(x):\n    return x\n", "pkg/proxy.py": PROXY,
         "docs/api.rst": ("API\n===\n\n.. automodule:: pkg.core\n    :members:\n\n.. automodule:: pkg.proxy\n\n"
                          ".. automodule:: numpy.linalg\n"),
         "docs/api.md": "# API\n\n```{automodule} pkg.proxy\n```\n"}


def _found(root):
    return sorted((f.path, f.line, f.code, f.message) for f in check_docs(repo=root).findings)


def test_an_automodule_of_a_moved_module_is_flagged_with_the_new_one(repo_factory):
    root = repo_factory(FILES, date=JAN)
    git(root, "mv", "pkg/proxy.py", "pkg/multidict.py")
    commit(root, "rename the module", date=FEB)
    got = _found(root)
    assert [(p, ln, code) for p, ln, code, _ in got] == [("docs/api.md", 3, "stale-ref"), ("docs/api.rst", 7, "stale-ref")]
    assert all("pkg.multidict" in m for *_, m in got)


def test_an_automodule_of_an_existing_module_or_another_package_is_not_flagged(repo_factory):
    # negative: `pkg.core` still exists (only its content changed), `numpy.linalg` is not this repository's
    root = repo_factory(FILES, date=JAN)
    (root / "pkg/core.py").write_text("def parse(x, y=None):\n    return x\n\n\ndef more():\n    return 1\n")
    commit(root, "more in core", date=FEB)
    assert _found(root) == []
