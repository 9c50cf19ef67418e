"""A parameter default written as a module constant (`size=_DEFAULT_SIZE`, `_DEFAULT_SIZE = 256`
once at module level) stands for the constant's literal: a doc stating `size=256` states the
code's default, and a commit changing the constant changes it (issue 25, held-out15: yarl's
`cache_configure(*, idna_encode_size=256)` once `_DEFAULT_IDNA_SIZE` became 1024). A constant
bound twice, a parameter the doc does not state and a local of the same name change nothing."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.definitions import definition

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = """_DEFAULT_SIZE = 256
LIMIT: int = 3  # a note


def configure(*, size: int | None = _DEFAULT_SIZE, other=LIMIT):
    return size, other
"""

DOC = """Cache
=====

.. function:: configure(*, size=256, other=3)

   Size the caches.
"""

GUIDE = """Caching
=======

Call ``configure()`` to size the caches: ``size`` defaults to ``256``.
"""

OTHER_ONLY = """Limits
======

.. function:: configure(*, other=3)

   Only the other limit.
"""


def test_a_changed_constant_is_a_changed_default_of_each_parameter_written_with_it(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/cache.py": CODE, "docs/api.rst": DOC,
                         "docs/limits.rst": OTHER_ONLY, "docs/guide.rst": GUIDE}, date=JAN)
    assert list(check_docs(repo=root).findings) == []  # the doc states the constants' values: the code's defaults
    (root / "pkg/cache.py").write_text(CODE.replace("= 256", "= 1024"))
    commit(root, "raise the default cache size", date=FEB)
    findings = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in findings] == [("docs/api.rst", 4), ("docs/guide.rst", 4)]  # a sentence stating it too
    assert all("`size`" in f.message and "raise the default cache size" in f.message for f in findings)


def test_a_constant_bound_twice_or_a_local_of_its_name_is_no_literal(repo_factory):
    twice = "if FAST:\n    _DEFAULT_SIZE = 256\nelse:\n    _DEFAULT_SIZE = 64\n\n\n" + CODE.split("\n", 1)[1]
    local = CODE + "\n\ndef helper():\n    _DEFAULT_SIZE = 5\n    return _DEFAULT_SIZE\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/cache.py": twice, "pkg/other.py": local,
                         "docs/api.rst": DOC}, date=JAN)
    (root / "pkg/cache.py").write_text(twice.replace("= 256", "= 1024"))
    commit(root, "raise the fast cache size", date=FEB)
    assert list(check_docs(repo=root).findings) == []
    assert "_DEFAULT_SIZE" in (definition(twice, "configure") or "")
    assert "_DEFAULT_SIZE" in (definition(local, "configure") or "")
    assert "size = 256 , other = 3" in (definition(CODE, "configure") or "")


def test_a_local_of_the_constants_name_changed_changes_no_default(repo_factory):
    code = CODE + "\n\ndef helper():\n    size = 5\n    return size\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/cache.py": code, "docs/api.rst": DOC}, date=JAN)
    (root / "pkg/cache.py").write_text(code.replace("size = 5", "size = 7"))
    commit(root, "helper size", date=FEB)
    assert list(check_docs(repo=root).findings) == []
